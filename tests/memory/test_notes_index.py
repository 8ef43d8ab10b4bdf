"""The notes index client (elf_infra.index) against the embedded Qdrant server."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from qdrant_client import QdrantClient, models

from elf_infra.index import bm25
from elf_infra.index.hybrid import CollectionMismatch, ensure_hybrid_collection, hybrid_query, upsert_points
from elf_infra.index.notes_collection import (
    KEYWORD_INDEXES,
    OBSERVED_TS,
    chunk_point,
    delete_note_points,
    ensure_notes_collection,
)
from elf_infra.index.scope_filter import read_tag
from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import client_for, qdrant_server  # noqa: F401

NAME = "mem_notes_test"
DIM = 4
SECTION_6_FIELDS = {
    "note_id",
    "chunk_id",
    "chunk_index",
    "start_offset",
    "end_offset",
    "tenant_id",
    "project_id",
    "agent_id",
    "scope",
    "type",
    "key",
    "status",
    "updated_at",
    "expires_at",
    "importance",
    "confidence",
    "embedding_version",
}
# NLTK's English stopword list (179 words), the list that won on LoCoMo.
NLTK_ENGLISH_STOPWORDS = [
    "i",
    "me",
    "my",
    "myself",
    "we",
    "our",
    "ours",
    "ourselves",
    "you",
    "you're",
    "you've",
    "you'll",
    "you'd",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "she's",
    "her",
    "hers",
    "herself",
    "it",
    "it's",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "what",
    "which",
    "who",
    "whom",
    "this",
    "that",
    "that'll",
    "these",
    "those",
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "a",
    "an",
    "the",
    "and",
    "but",
    "if",
    "or",
    "because",
    "as",
    "until",
    "while",
    "of",
    "at",
    "by",
    "for",
    "with",
    "about",
    "against",
    "between",
    "into",
    "through",
    "during",
    "before",
    "after",
    "above",
    "below",
    "to",
    "from",
    "up",
    "down",
    "in",
    "out",
    "on",
    "off",
    "over",
    "under",
    "again",
    "further",
    "then",
    "once",
    "here",
    "there",
    "when",
    "where",
    "why",
    "how",
    "all",
    "any",
    "both",
    "each",
    "few",
    "more",
    "most",
    "other",
    "some",
    "such",
    "no",
    "nor",
    "not",
    "only",
    "own",
    "same",
    "so",
    "than",
    "too",
    "very",
    "s",
    "t",
    "can",
    "will",
    "just",
    "don",
    "don't",
    "should",
    "should've",
    "now",
    "d",
    "ll",
    "m",
    "o",
    "re",
    "ve",
    "y",
    "ain",
    "aren",
    "aren't",
    "couldn",
    "couldn't",
    "didn",
    "didn't",
    "doesn",
    "doesn't",
    "hadn",
    "hadn't",
    "hasn",
    "hasn't",
    "haven",
    "haven't",
    "isn",
    "isn't",
    "ma",
    "mightn",
    "mightn't",
    "mustn",
    "mustn't",
    "needn",
    "needn't",
    "shan",
    "shan't",
    "shouldn",
    "shouldn't",
    "wasn",
    "wasn't",
    "weren",
    "weren't",
    "won",
    "won't",
    "wouldn",
    "wouldn't",
]


def test_bm25_drops_the_179_english_stopwords_and_stems() -> None:
    assert len(NLTK_ENGLISH_STOPWORDS) == 179
    assert all(bm25.embed_query(w).indices == [] for w in NLTK_ENGLISH_STOPWORDS)
    garden = bm25.embed_query("garden").indices
    assert len(garden) == 1 and bm25.embed_query("gardening").indices == bm25.embed_query("Gardens").indices == garden
    assert sorted(bm25.embed_query("What is the weather like in Paris?").indices) == sorted(
        bm25.embed_query("weather like Paris").indices
    )


def test_bm25_document_weights_terms_and_query_counts_each_once() -> None:
    doc = bm25.embed_document("garden garden garden roses")
    weights = dict(zip(doc.indices, doc.values, strict=False))
    (garden,) = bm25.embed_query("garden").indices
    (roses,) = bm25.embed_query("roses").indices
    assert weights[garden] > weights[roses] > 0
    query = bm25.embed_query("garden gardens roses")
    assert sorted(query.indices) == sorted({garden, roses}) and query.values == [1.0, 1.0]


def _chunk(note_id: str, index: int, dense: list[float], text: str, **overrides: object) -> models.PointStruct:
    fields: dict = dict(
        chunk_id=uuid.uuid4(),
        note_id=note_id,
        chunk_index=index,
        start_offset=0,
        end_offset=len(text),
        tenant_id="t1",
        project_id="p1",
        agent_id="a1",
        scope="project_shared",
        note_type="fact",
        key=None,
        status="active",
        updated_at=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
        expires_at=None,
        importance=0.5,
        confidence=0.9,
        embedding_version="local:minilm:4",
        dense=dense,
        bm25=bm25.embed_document(text),
    )
    fields.update(overrides)
    return chunk_point(**fields)


def test_chunk_point_carries_section_6_payload_and_no_text() -> None:
    note_id, chunk_id = uuid.uuid4(), uuid.uuid4()
    point = _chunk(str(note_id), 2, [1.0, 0, 0, 0], "Paris is the capital of France", chunk_id=chunk_id, key="capital")
    assert point.id == str(chunk_id)
    # + BM25's IDF corpus key (issue 36) and who may find it (issue 35)
    assert set(point.payload) == SECTION_6_FIELDS | {"lexical_scope", "read_key", "read_tag"}
    assert point.payload["read_key"] == "project_shared\tp1\t"
    assert point.payload["read_tag"] == read_tag("t1", "project_shared", "p1", "")
    assert point.payload["lexical_scope"] == "t1\tp1"
    assert point.payload["note_id"] == str(note_id) and point.payload["chunk_index"] == 2
    assert point.payload["updated_at"] == "2025-01-02T03:04:05+00:00" and point.payload["type"] == "fact"
    assert "Paris" not in repr(point.payload)
    assert set(point.vector) == {"dense", "bm25"}


def test_ensure_notes_collection_creates_checks_and_is_idempotent(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    ensure_notes_collection(client, NAME, DIM, quantization="int8")
    ensure_notes_collection(client, NAME, DIM, quantization="int8")
    info = client.get_collection(NAME)
    dense = info.config.params.vectors["dense"]
    assert (dense.size, dense.distance) == (DIM, models.Distance.COSINE)
    assert info.config.params.sparse_vectors["bm25"].modifier == models.Modifier.IDF
    assert {f: s.data_type for f, s in info.payload_schema.items()} == {
        **dict.fromkeys((*KEYWORD_INDEXES, "speaker"), models.PayloadSchemaType.KEYWORD),
        **dict.fromkeys((OBSERVED_TS, "read_tag"), models.PayloadSchemaType.INTEGER),
    }
    with pytest.raises(CollectionMismatch, match="size 4 but storage.qdrant.vector_dim is 8"):
        ensure_notes_collection(client, NAME, 8, quantization="int8")

    client.create_collection(
        "no_sparse", vectors_config={"dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE)}
    )
    with pytest.raises(CollectionMismatch, match="bm25"):
        ensure_notes_collection(client, "no_sparse", DIM, quantization="int8")


def _seed(client: QdrantClient) -> dict[str, str]:
    """Four notes in t1/p1 plus decoys in another project; returns note ids by name."""
    ensure_notes_collection(client, NAME, DIM, quantization="int8")
    ids = {n: str(uuid.uuid4()) for n in ("A", "B", "C", "E", "other_project")}
    upsert_points(
        client,
        NAME,
        [
            _chunk(ids["A"], 0, [1.0, 0.05, 0, 0], "We cooked pasta for dinner on Sunday"),
            _chunk(ids["B"], 0, [1.0, 0.3, 0, 0], "The deploy pipeline uses blue green deployments for the API"),
            _chunk(ids["B"], 1, [-1.0, 0.2, 0, 0], "Rollbacks are manual"),
            _chunk(ids["C"], 0, [1.0, 0.6, 0, 0], "Our deploy pipeline runs nightly"),
            _chunk(ids["E"], 0, [0.0, 0.0, 1.0, 0], "The pipeline for data exports"),
            _chunk(
                ids["other_project"], 0, [1.0, 0.0, 0, 0], "deploy pipeline blue green deploy pipeline", project_id="p2"
            ),
        ],
    )
    return ids


def _scope_filter(project: str = "p1") -> models.Filter:
    return models.Filter(
        must=[
            models.FieldCondition(key="tenant_id", match=models.MatchValue(value="t1")),
            models.FieldCondition(key="project_id", match=models.MatchValue(value=project)),
            models.FieldCondition(key="status", match=models.MatchValue(value="active")),
        ]
    )


def test_hybrid_query_fuses_dense_and_bm25_with_rrf_under_the_payload_filter(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    ids = _seed(client)
    names = {v: k for k, v in ids.items()}
    dense, sparse = [1.0, 0.0, 0.0, 0.0], bm25.embed_query("How does the deploy pipeline work?")

    hits = hybrid_query(client, NAME, dense, sparse, _scope_filter(), limit=4)
    # dense (p1 only): A, B#0, C, E ...; bm25: B#0 (deploy+pipeline, more terms), C (deploy+pipeline), E (pipeline)
    # RRF k=2: B#0 1/3+1/2, C 1/4+1/3, A 1/2, E 1/5+1/4 -> B, C, A, E; other_project is filtered out.
    assert [names[h.payload["note_id"]] for h in hits] == ["B", "C", "A", "E"]
    assert hits[0].payload["chunk_index"] == 0
    hits60 = hybrid_query(client, NAME, dense, sparse, _scope_filter(), limit=4, rrf_k=60)
    assert [names[h.payload["note_id"]] for h in hits60] == ["B", "C", "E", "A"]

    only_stopwords = hybrid_query(
        client, NAME, dense, bm25.embed_query("what is it"), _scope_filter(), limit=2, with_payload=["note_id"]
    )
    assert [names[h.payload["note_id"]] for h in only_stopwords] == ["A", "B"]
    assert set(only_stopwords[0].payload) == {"note_id"}
    assert hybrid_query(client, NAME, dense, sparse, _scope_filter("p9"), limit=4) == []


def test_delete_note_points_removes_every_chunk_of_that_note_only(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    ids = _seed(client)
    assert client.count(NAME).count == 6
    delete_note_points(client, NAME, ids["B"])
    assert client.count(NAME).count == 4
    remaining = {p.payload["note_id"] for p in client.scroll(NAME, limit=10)[0]}
    assert ids["B"] not in remaining and ids["A"] in remaining
    delete_note_points(client, NAME, uuid.uuid4())  # a note with no points: nothing to do, no error
    assert client.count(NAME).count == 4


def test_an_older_collection_gets_the_lexical_scope_index_and_a_warning_naming_the_rebuild(
    qdrant_server: EmbeddedQdrant, caplog
) -> None:
    """A collection of an earlier version (no `lexical_scope` index, points without it): ensure adds the index
    and warns how many points lack the field until rebuild_qdrant re-indexes them; a current one says nothing."""
    client = client_for(qdrant_server)
    older_fields = [f for f in KEYWORD_INDEXES if f != "lexical_scope"]
    ensure_hybrid_collection(client, "older", DIM, older_fields, quantization="int8")
    old = _chunk(str(uuid.uuid4()), 0, [1.0, 0, 0, 0], "Paris is the capital of France")
    old.payload.pop("lexical_scope")
    upsert_points(client, "older", [old, _chunk(str(uuid.uuid4()), 0, [0, 1.0, 0, 0], "Rome is in Italy")])
    with caplog.at_level("WARNING", logger="elf.index"):
        ensure_notes_collection(client, "older", DIM, quantization="int8")
        ensure_notes_collection(client, "older", DIM, quantization="int8")  # the index exists now: no second warning
    warnings = [r.getMessage() for r in caplog.records if r.name == "elf.index"]
    assert len(warnings) == 1 and "1 points have no 'lexical_scope'" in warnings[0], warnings
    assert "rebuild_qdrant" in warnings[0]
    assert "lexical_scope" in client.get_collection("older").payload_schema
