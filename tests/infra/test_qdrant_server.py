"""The embedded Qdrant server, driven through plain qdrant-client over REST."""

from __future__ import annotations

import importlib.metadata
import json
import urllib.request
import uuid

import pytest
from qdrant_client import models
from qdrant_client.common.version_check import get_server_version, is_compatible
from qdrant_client.http.exceptions import UnexpectedResponse

from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import (  # noqa: F401
    DIM,
    client_for,
    create_collection,
    load_hybrid_fixture,
    make_point,
    qdrant_server,
    raw_request,
    run_server,
)


def _status(exc_info: pytest.ExceptionInfo[UnexpectedResponse]) -> int:
    return exc_info.value.status_code


def test_root_answers_with_a_version_qdrant_client_accepts(qdrant_server: EmbeddedQdrant) -> None:
    with urllib.request.urlopen(qdrant_server.url + "/") as resp:
        assert json.load(resp)["title"] == "qdrant - vector search engine"
    # the call qdrant-client's compatibility check makes
    server_version = get_server_version(qdrant_server.url, {}, None, 5)
    assert is_compatible(importlib.metadata.version("qdrant-client"), server_version)


def test_collection_create_get_list_delete(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    assert not client.collection_exists("c")
    create_collection(client, metadata={"owner": "tests"})
    assert client.collection_exists("c")
    assert [c.name for c in client.get_collections().collections] == ["c"]

    info = client.get_collection("c")
    assert info.status == models.CollectionStatus.GREEN
    assert info.points_count == 0
    dense = info.config.params.vectors["dense"]
    assert (dense.size, dense.distance) == (DIM, models.Distance.COSINE)
    assert info.config.params.sparse_vectors["bm25"].modifier == models.Modifier.IDF
    assert info.config.metadata == {"owner": "tests"}

    with pytest.raises(UnexpectedResponse) as exc:
        create_collection(client)
    assert _status(exc) == 409

    assert client.delete_collection("c") is True
    assert not client.collection_exists("c")
    assert client.delete_collection("c") is False


def test_missing_collection_is_404(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    for call in (
        lambda: client.get_collection("nope"),
        lambda: client.count("nope"),
        lambda: client.query_points("nope", query=[1.0, 0, 0, 0], using="dense"),
        lambda: client.upsert("nope", points=[make_point(1, [1.0, 0, 0, 0], {})]),
    ):
        with pytest.raises(UnexpectedResponse) as exc:
            call()
        assert _status(exc) == 404
        assert b"doesn't exist" in exc.value.content


def test_bad_input_is_400(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    create_collection(client)
    with pytest.raises(UnexpectedResponse) as exc:
        client.upsert("c", points=[make_point(1, [1.0, 0, 0], {})])  # wrong dimension
    assert _status(exc) == 400 and b"dimension" in exc.value.content
    with pytest.raises(UnexpectedResponse) as exc:
        client.query_points("c", query=[1.0, 0, 0, 0], using="nope")
    assert _status(exc) == 400
    status, body = raw_request(
        qdrant_server.url, "PUT", "/collections/c/points", {"points": [{"id": "not-a-uuid", "vector": {}}]}
    )
    assert status == 400 and "not a valid point ID" in body["status"]["error"]
    with pytest.raises(UnexpectedResponse) as exc:
        client.query_points("c", query=7, using="dense")  # by point id: not implemented, and says so
    assert _status(exc) == 400 and b"not supported by the embedded Qdrant server" in exc.value.content
    status, body = raw_request(qdrant_server.url, "POST", "/collections/c/points/query", b"{not json")
    assert status == 400 and "Format error in JSON body" in body["status"]["error"]
    with pytest.raises(UnexpectedResponse) as exc:
        client.create_collection(".hidden", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.DOT))
    assert _status(exc) == 422
    assert [c.name for c in client.get_collections().collections] == ["c"]


def test_payload_indexes_are_created_reported_and_applied(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    create_collection(client)
    client.create_payload_index("c", "tenant_id", models.PayloadSchemaType.KEYWORD)
    client.create_payload_index(
        "c", "n", models.IntegerIndexParams(type=models.IntegerIndexType.INTEGER, lookup=True, range=True)
    )
    client.create_payload_index("c", "at", models.PayloadSchemaType.DATETIME)
    client.create_payload_index("c", "flag", models.PayloadSchemaType.BOOL)
    client.create_payload_index("c", "w", models.PayloadSchemaType.FLOAT)
    client.upsert(
        "c",
        points=[
            make_point(
                i,
                [1.0, 0, 0, float(i)],
                {
                    "tenant_id": "a" if i % 2 else "b",
                    "n": i,
                    "w": i / 2,
                    "flag": i > 2,
                    "at": f"2024-01-0{i}T00:00:00Z",
                },
            )
            for i in range(1, 6)
        ],
    )
    schema = client.get_collection("c").payload_schema
    assert schema["tenant_id"].data_type == models.PayloadSchemaType.KEYWORD
    assert schema["n"].data_type == models.PayloadSchemaType.INTEGER and schema["n"].params.range is True
    assert {f: schema[f].points for f in ("tenant_id", "n", "at", "flag", "w")} == dict.fromkeys(
        ("tenant_id", "n", "at", "flag", "w"), 5
    )
    flt = models.Filter(
        must=[
            models.FieldCondition(key="n", range=models.Range(gte=2, lt=5)),
            models.FieldCondition(key="at", range=models.DatetimeRange(gt="2024-01-02T00:00:00Z")),
            models.FieldCondition(key="flag", match=models.MatchValue(value=True)),
        ]
    )
    assert client.count("c", count_filter=flt).count == 2  # n = 3, 4

    with pytest.raises(UnexpectedResponse) as exc:
        client.create_payload_index("c", "body", models.PayloadSchemaType.TEXT)
    assert _status(exc) == 400
    client.delete_payload_index("c", "w")
    assert "w" not in client.get_collection("c").payload_schema


def test_upsert_list_and_batch_then_retrieve_scroll_count(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    create_collection(client)
    uid = str(uuid.uuid4())
    client.upsert("c", points=[make_point(uid, [0.0, 1, 0, 0], {"t": "x"}, ([7, 3], [0.5, 2.0]))])
    client.upsert(
        "c",
        points=models.Batch(
            ids=list(range(1, 11)),
            vectors={"dense": [[1.0, 0, 0, float(i)] for i in range(1, 11)]},
            payloads=[{"t": "y", "i": i} for i in range(1, 11)],
        ),
    )
    assert client.count("c").count == 11
    assert (
        client.count(
            "c", count_filter=models.Filter(must=[models.FieldCondition(key="t", match=models.MatchValue(value="y"))])
        ).count
        == 10
    )

    (rec,) = client.retrieve("c", ids=[uid], with_vectors=True)
    assert rec.id == uid and rec.payload == {"t": "x"}
    assert rec.vector["dense"] == [0.0, 1.0, 0.0, 0.0]
    assert sorted(zip(rec.vector["bm25"].indices, rec.vector["bm25"].values, strict=False)) == [(3, 2.0), (7, 0.5)]
    assert client.retrieve("c", ids=[12345]) == []

    seen, offset = [], None
    while True:
        page, offset = client.scroll(
            "c",
            scroll_filter=models.Filter(must=[models.FieldCondition(key="t", match=models.MatchValue(value="y"))]),
            limit=4,
            offset=offset,
        )
        assert all(p.vector is None and p.payload["t"] == "y" for p in page)
        seen += [p.id for p in page]
        if offset is None:
            break
    assert seen == list(range(1, 11))
    page, _ = client.scroll(
        "c",
        limit=2,
        with_payload=["i"],
        with_vectors=["dense"],
        scroll_filter=models.Filter(must=[models.HasIdCondition(has_id=[3])]),
    )
    assert page[0].payload == {"i": 3}
    assert page[0].vector["dense"] == pytest.approx([0.1**0.5, 0.0, 0.0, 0.9**0.5])  # cosine: stored normalised


def test_filters_must_should_must_not_match_range_empty_null_has_id(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    create_collection(client)
    payloads = [
        {"k": "a", "n": 1, "tags": ["x"], "maybe": None},
        {"k": "b", "n": 2, "tags": []},
        {"k": "c", "n": 3, "tags": ["x", "y"], "maybe": 1},
        {"k": "a", "n": 4},
    ]
    client.upsert("c", points=[make_point(i + 1, [1.0, 0, 0, 0], p) for i, p in enumerate(payloads)])

    def count(flt: models.Filter) -> int:
        return client.count("c", count_filter=flt, exact=True).count

    key = lambda v: models.FieldCondition(key="k", match=models.MatchValue(value=v))  # noqa: E731
    assert count(models.Filter(must=[key("a")])) == 2
    assert count(models.Filter(should=[key("b"), key("c")])) == 2
    assert count(models.Filter(must_not=[key("a")])) == 2
    assert count(models.Filter(must=[models.FieldCondition(key="k", match=models.MatchAny(any=["b", "c"]))])) == 2
    assert (
        count(models.Filter(must=[models.FieldCondition(key="k", match=models.MatchExcept(**{"except": ["a"]}))])) == 2
    )
    assert count(models.Filter(must=[models.FieldCondition(key="n", range=models.Range(gt=1, lte=3))])) == 2
    assert count(models.Filter(must=[models.IsEmptyCondition(is_empty=models.PayloadField(key="tags"))])) == 2
    assert count(models.Filter(must=[models.IsNullCondition(is_null=models.PayloadField(key="maybe"))])) == 1
    assert count(models.Filter(must=[models.HasIdCondition(has_id=[1, 3, 99])])) == 2
    assert (
        count(
            models.Filter(
                must=[
                    key("a"),
                    models.Filter(
                        should=[
                            models.FieldCondition(key="n", range=models.Range(gte=4)),
                            models.HasIdCondition(has_id=[2]),
                        ]
                    ),
                ]
            )
        )
        == 1
    )


def test_delete_by_ids_and_by_filter(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    create_collection(client)
    client.upsert("c", points=[make_point(i, [1.0, 0, 0, float(i)], {"note_id": f"n{i % 3}"}) for i in range(1, 13)])
    client.delete("c", points_selector=models.PointIdsList(points=[1, 2]))
    assert client.count("c").count == 10
    assert [r.id for r in client.retrieve("c", ids=[1, 2, 3])] == [3]
    client.delete(
        "c",
        points_selector=models.FilterSelector(
            filter=models.Filter(must=[models.FieldCondition(key="note_id", match=models.MatchValue(value="n0"))])
        ),
    )
    remaining = client.scroll("c", limit=100)[0]
    assert len(remaining) == 6 and all(p.payload["note_id"] != "n0" for p in remaining)
    client.delete(
        "c",
        points_selector=models.FilterSelector(
            filter=models.Filter(must=[models.FieldCondition(key="note_id", match=models.MatchValue(value="absent"))])
        ),
    )
    assert client.count("c").count == 6


def test_hybrid_rrf_query_with_filter_returns_expected_order(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    load_hybrid_fixture(client)
    tenant = models.Filter(must=[models.FieldCondition(key="tenant", match=models.MatchValue(value="t1"))])
    prefetch = [
        models.Prefetch(query=[1.0, 0, 0, 0], using="dense", limit=10),
        models.Prefetch(query=models.SparseVector(indices=[1, 2], values=[1.0, 1.0]), using="bm25", limit=10),
    ]
    res = client.query_points(
        "c", prefetch=prefetch, query=models.FusionQuery(fusion=models.Fusion.RRF), query_filter=tenant, limit=10
    ).points
    # Qdrant's default RRF constant k=2, score = sum of 1/(k + 0-based rank):
    # B 1/2 + 1/3, C 1/3 + 1/4, A 1/2, E 1/5 + 1/4
    assert [p.payload["name"] for p in res] == ["B", "C", "A", "E"]
    assert [round(p.score, 4) for p in res] == [0.8333, 0.5833, 0.5, 0.45]

    res60 = client.query_points(
        "c", prefetch=prefetch, query=models.RrfQuery(rrf=models.Rrf(k=60)), query_filter=tenant, limit=10, offset=1
    ).points
    assert [p.payload["name"] for p in res60] == ["C", "E", "A"]  # k=60 ranks E above A; offset skips B

    batch = client.query_batch_points(
        "c",
        requests=[
            models.QueryRequest(
                prefetch=prefetch,
                query=models.FusionQuery(fusion=models.Fusion.RRF),
                filter=tenant,
                limit=2,
                with_payload=True,
            ),
            models.QueryRequest(query=[1.0, 0, 0, 0], using="dense", limit=1, with_payload=True),
        ],
    )
    assert [[p.payload["name"] for p in r.points] for r in batch] == [["B", "C"], ["D"]]


def test_bm25_idf_over_a_corpus_filter_ignores_points_outside_it(qdrant_server: EmbeddedQdrant) -> None:
    """`params.idf.corpus` (Qdrant's IdfCorpusParams): IDF computed over the points the filter admits, so points
    of another tenant change nothing; "global" (and no params) is collection-wide; anything else is a 400."""
    client = client_for(qdrant_server)
    client.create_collection("idf", vectors_config={},
                             sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)})
    term = lambda *ids: models.SparseVector(indices=list(ids), values=[1.0] * len(ids))  # noqa: E731
    mine = [models.PointStruct(id=i, vector={"bm25": v}, payload={"tenant": "t1"})
            for i, v in ((1, term(1)), (2, term(2)), (3, term(1, 2)))]
    client.upsert("idf", points=mine, wait=True)
    t1 = models.Filter(must=[models.FieldCondition(key="tenant", match=models.MatchValue(value="t1"))])
    scoped = models.SearchParams(idf=models.IdfCorpusParams(corpus=t1))

    def ask(params):
        res = client.query_points("idf", query=term(1, 2), using="bm25", query_filter=t1, search_params=params)
        return {p.id: p.score for p in res.points}

    alone = ask(None)
    assert ask(scoped) == alone and ask(models.SearchParams(idf=models.IdfScope.GLOBAL)) == alone
    others = [models.PointStruct(id=10 + i, vector={"bm25": term(1)}, payload={"tenant": "t2"}) for i in range(20)]
    client.upsert("idf", points=others, wait=True)
    assert ask(scoped) == alone  # t2's twenty points with term 1 do not count for t1
    moved = ask(None)
    assert moved[1] < alone[1]  # collection-wide IDF: term 1 is common now
    status, body = raw_request(qdrant_server.url, "POST", "/collections/idf/points/query",
                        {"query": {"indices": [1], "values": [1.0]}, "using": "bm25", "params": {"idf": "local"}})
    assert status == 400 and "params.idf" in body["status"]["error"]
