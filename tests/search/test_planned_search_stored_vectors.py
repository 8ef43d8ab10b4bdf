"""planned_search with the local reranker scores from stored vectors (issue 18 item 3), over real HTTP on
isolated stacks whose embedding provider is the fake HTTP server (vectors from the local MiniLM), so every
embedding call of the API is counted: the query is embedded once (by recall; not again on a repeat, the
query vector cache of each API process), no snippet ever is, and the trace's rerank scores are the local
reranker's formula on the notes' pooled vectors stored in Postgres. A candidate whose note has no stored vector
of the current version has its snippet embedded. An HTTP rerank provider is still called as before (method
"provider")."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

import numpy as np
import pytest
import requests

from elf_infra.providers.local_embedder import LOCAL_EMBEDDING_MODEL, LocalEmbedder
from elf_infra.providers.local_rerank import LocalRerankProvider, content_terms
from tests.conftest import EMBED_PATH, RERANK_PATH, TEST_CONFIG, FakeResponse, local_model_embeddings
from tests.indexing_helpers import parse_vector
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed
from tests.search.test_search_api import _rerank as fake_http_rerank

TEXTS = ["Fact: the billing service runs on port 8443.",
         "Fact: the billing database is backed up every night at two.",
         "Decision: the team moves the billing service to the new cluster in March.",
         "Fact: the office coffee machine is on the third floor."]


def local_rerank(data: dict) -> None:
    """The test config's local reranker; embeddings stay on the fake HTTP server (counted)."""
    data["providers"]["rerank"] = tomllib.loads(TEST_CONFIG.read_text())["providers"]["rerank"]


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("stored_rerank", local_rerank)
    s.start_api()
    s.start_worker()
    s.ids = {}
    for tenant in ("t1", "t2"):  # t2: the fallback test edits its stored vectors
        results = ingest(s, [note(t) for t in TEXTS], tenant=tenant).json()["results"]
        assert [r["op"] for r in results] == ["ADD"] * len(TEXTS), results
        s.ids[tenant] = [r["note_id"] for r in results]
        for nid in s.ids[tenant]:
            wait_indexed(s, nid)
    return s


@pytest.fixture(scope="module")
def embedder():
    return LocalEmbedder(LOCAL_EMBEDDING_MODEL)


def planned(s, query: str, tenant: str = "t1") -> dict:
    r = requests.post(s.admin + "/v2/admin/searches/raw", json={"query": query, "mode": "planned_search"},
                      headers={**headers(tenant=tenant), "X-ELF-Read-Profile": "private_only"}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def embed_inputs(s) -> list[list[str]]:
    return [r.json["input"] for r in s.fake.requests_to(EMBED_PATH)]


def rerank_stage(s, trace_id: str, tenant: str = "t1") -> dict:
    """The rerank stage of the trace, once the worker has persisted it (GET /v2/admin/trajectories/{id})."""
    deadline = time.monotonic() + 30
    while True:
        got = requests.get(f"{s.admin}/v2/admin/trajectories/{trace_id}", headers=headers(tenant=tenant), timeout=10)
        if got.status_code == 200 or time.monotonic() > deadline:
            assert got.status_code == 200, got.text
            return next(st for st in got.json()["stages"] if st["stage_name"] == "rerank")
        time.sleep(0.3)


def stored(s, tenant: str) -> dict[str, tuple[str, np.ndarray]]:
    """chunk id -> (chunk text, its note's pooled vector of the current embedding version) of the tenant's notes."""
    got = rows(s, """SELECT c.chunk_id::text, c.text, e.vec::text FROM memory_note_chunks c
                       JOIN note_embeddings e ON e.note_id = c.note_id AND e.embedding_version = %s
                      WHERE c.note_id = ANY(%s::uuid[])""", (s.cfg.embedding_version, s.ids[tenant]))
    return {cid: (text, parse_vector(vec)) for cid, text, vec in got}


def set_pooled(s, note_id: str, *, vec: str | None = None, version: str | None = None) -> None:
    """Overwrite a note's stored pooled vector (``vec``, pgvector text) or move it to another ``version``."""
    if vec is not None:
        rows(s, "UPDATE note_embeddings SET vec = %s::vector WHERE note_id = %s RETURNING 1", (vec, note_id))
    if version is not None:
        rows(s, "UPDATE note_embeddings SET embedding_version = %s WHERE note_id = %s RETURNING 1", (version, note_id))


def formula(query_vec, query: str, doc_vec, doc: str) -> float:
    """0.5 * cosine + 0.5 * the share of the query's stemmed terms found in the doc, written out here."""
    q, d = np.asarray(query_vec, dtype=np.float64), np.asarray(doc_vec, dtype=np.float64)
    cosine = float(q @ d / (np.linalg.norm(q) * np.linalg.norm(d)))
    terms = content_terms(query)
    return 0.5 * cosine + 0.5 * len(terms & content_terms(doc)) / len(terms)


def api_processes(s) -> int:
    """elf-api's gunicorn worker processes (the children of its master): each has its own query vector cache."""
    tasks = Path(f"/proc/{s.api.proc.pid}/task").iterdir()
    return len({pid for task in tasks for pid in (task / "children").read_text().split()})


def test_one_query_embedding_and_none_for_snippets_then_none_on_a_repeat(svc):
    query = "Which port does the billing service listen on?"
    before = len(embed_inputs(svc))
    first = planned(svc, query)
    assert embed_inputs(svc)[before:] == [[query]]  # recall's query embedding; the rerank reuses it
    assert first["items"] and first["items"][0]["note_id"] == svc.ids["t1"][0]
    again, workers = len(embed_inputs(svc)), api_processes(svc)
    assert workers >= 1
    repeats = [planned(svc, query) for _ in range(3 * workers)]
    # The query vector cache is per process: a repeat is embedded only by a process that has not seen it yet
    # (at most once each), and stored vectors need no call at all.
    assert embed_inputs(svc)[again:] == [[query]] * len(embed_inputs(svc)[again:])
    assert len(embed_inputs(svc)[again:]) <= workers - 1
    second = repeats[-1]
    assert [i["note_id"] for i in second["items"]] == [i["note_id"] for i in first["items"]]
    stage = rerank_stage(svc, second["trace_id"])
    assert stage["stage_payload"] == {"skipped": False, "method": "stored_vectors", "cache_hit": False,
                                      "called": False, "error": None, "embedded_docs": 0}


def test_trace_scores_are_the_formula_on_the_stored_vectors(svc, embedder):
    query = "When is the billing database backed up?"
    out = planned(svc, query)
    stage = rerank_stage(svc, out["trace_id"])
    scores = {i["chunk_id"]: i["metrics"]["rerank_score"] for i in stage["items"]}
    vectors = stored(svc, "t1")
    assert set(scores) == set(vectors)  # every candidate of the tenant was scored
    (query_vec,) = embedder.embed([query])
    for cid, score in scores.items():
        text, vec = vectors[cid]
        assert score == pytest.approx(formula(query_vec, query, vec, text), abs=1e-6), text
    # The scores the provider gives by embedding the snippets again (a one-chunk note's pooled vector is its text's
    # embedding).
    by_provider = LocalRerankProvider("local", embedder).rerank(query, [vectors[c][0] for c in scores])
    assert list(scores.values()) == pytest.approx(by_provider, abs=1e-4)
    best = max(scores, key=scores.get)
    assert vectors[best][0] == TEXTS[1] and out["items"][0]["note_id"] == svc.ids["t1"][1]

    # The stored vector is what counts: give the coffee note the query's own vector and its cosine becomes 1.
    coffee = next(cid for cid, (text, _) in vectors.items() if text == TEXTS[3])
    original = rows(svc, "SELECT vec::text FROM note_embeddings WHERE note_id = %s", (svc.ids["t1"][3],))[0][0]
    set_pooled(svc, svc.ids["t1"][3], vec=str([float(x) for x in query_vec]))
    try:
        stage = rerank_stage(svc, planned(svc, query)["trace_id"])
        again = {i["chunk_id"]: i["metrics"]["rerank_score"] for i in stage["items"]}
    finally:
        set_pooled(svc, svc.ids["t1"][3], vec=original)
    assert again[coffee] == pytest.approx(formula(query_vec, query, query_vec, TEXTS[3]), abs=1e-6)
    assert again[coffee] > scores[coffee] + 0.3
    others = {c: v for c, v in scores.items() if c != coffee}
    assert {c: v for c, v in again.items() if c != coffee} == pytest.approx(others)


def test_a_candidate_without_a_stored_vector_has_its_snippet_embedded(svc, embedder):
    query = "Where is the coffee machine?"
    coffee = rows(svc, "SELECT chunk_id::text, text FROM memory_note_chunks WHERE note_id = %s", (svc.ids["t2"][3],))
    ((chunk_id, text),) = coffee
    # A vector of another embedding version only: what a note looks like before the worker re-embeds it.
    set_pooled(svc, svc.ids["t2"][3], version="older-version")
    try:
        before = len(embed_inputs(svc))
        out = planned(svc, query, tenant="t2")
        assert embed_inputs(svc)[before:] == [[query], [text]]  # the query (recall), then that one snippet
        stage = rerank_stage(svc, out["trace_id"], "t2")
        assert stage["stage_payload"] == {
            "skipped": False, "method": "stored_vectors", "cache_hit": False, "called": True, "error": None,
            "embedded_docs": 1}
        scores = {i["chunk_id"]: i["metrics"]["rerank_score"] for i in stage["items"]}
        (query_vec, fresh) = embedder.embed([query, text])
        assert scores[chunk_id] == pytest.approx(formula(query_vec, query, fresh, text), abs=1e-6)
        assert len(scores) == len(TEXTS) and max(scores, key=scores.get) == chunk_id
        assert out["items"][0]["note_id"] == svc.ids["t2"][3]

        # The snippet's embedding call fails (the query's, if this API process has no cached vector, does not):
        # the search still answers, in retrieval order, and the stage says why.
        svc.fake.handle(EMBED_PATH, lambda r: FakeResponse(status=503, json={"error": "down"})
                        if r.json["input"] == [text] else local_model_embeddings(r))
        out = planned(svc, query, tenant="t2")
        stage = rerank_stage(svc, out["trace_id"], "t2")
        payload = stage["stage_payload"]
        assert (payload["method"], payload["called"], payload["embedded_docs"]) == ("stored_vectors", True, 1)
        assert payload["error"] and stage["items"] == []
        assert out["items"][0]["note_id"] == svc.ids["t2"][3]
    finally:
        svc.fake.handle(EMBED_PATH, local_model_embeddings)
        set_pooled(svc, svc.ids["t2"][3], version=svc.cfg.embedding_version)


def test_an_http_rerank_provider_is_called_as_before(isolated_services):
    s = isolated_services("http_rerank")
    s.fake.handle(RERANK_PATH, fake_http_rerank)
    s.start_api()
    s.start_worker()
    s.ids = {"t1": [r["note_id"] for r in ingest(s, [note(t) for t in TEXTS]).json()["results"]]}
    for nid in s.ids["t1"]:
        wait_indexed(s, nid)
    query = "Which port does the billing service listen on?"
    out = planned(s, query)
    (call,) = s.fake.requests_to(RERANK_PATH)
    assert call.json["query"] == query and sorted(call.json["documents"]) == sorted(TEXTS)
    stage = rerank_stage(s, out["trace_id"])
    assert stage["stage_payload"] == {"skipped": False, "method": "provider", "cache_hit": False, "called": True,
                                      "error": None}
    planned(s, query)
    assert len(s.fake.requests_to(RERANK_PATH)) == 1  # the rerank cache answers the repeat


def test_a_speakers_own_turns_are_scored_against_the_query_in_their_words(svc, embedder):
    """Issue 32 (elf_domain.speakers): "What did Caroline paint?" is embedded with "What did I paint?" in one call
    (recall's speaker leg); the rerank scores Caroline's turns against that vector and every other note against
    the query's own, with no more embedding calls."""
    turns = ["Caroline: I made a watercolour of sunflowers, my first in years.",
             "Caroline: The weather was warm and we had lunch outside.",
             "Melanie: Caroline, what did you paint? Caroline paints so well.",
             "Gina: I painted my kitchen wall yellow."]
    results = ingest(svc, [note(t) for t in turns], tenant="t3").json()["results"]
    assert [r["op"] for r in results] == ["ADD"] * len(turns), results
    for r in results:
        wait_indexed(svc, r["note_id"])
    query, theirs = "What did Caroline paint?", "What did I paint?"
    before = len(embed_inputs(svc))
    out = planned(svc, query, tenant="t3")
    assert embed_inputs(svc)[before:] == [[query, theirs]]  # one call for both; none for the rerank
    scores = {i["chunk_id"]: i["metrics"]["rerank_score"] for i in rerank_stage(svc, out["trace_id"], "t3")["items"]}
    got = rows(svc, """SELECT c.chunk_id::text, c.text, e.vec::text FROM memory_note_chunks c
                         JOIN note_embeddings e ON e.note_id = c.note_id AND e.embedding_version = %s
                        WHERE c.note_id = ANY(%s::uuid[])""",
               (svc.cfg.embedding_version, [r["note_id"] for r in results]))
    query_vec, their_vec = embedder.embed([query, theirs])
    assert len(scores) == len(turns) == len(got)
    for cid, text, vec in got:
        used = their_vec if text.startswith("Caroline:") else query_vec
        assert scores[cid] == pytest.approx(formula(used, query, parse_vector(vec), text), abs=1e-6), text
        other = query_vec if used is their_vec else their_vec
        assert scores[cid] != pytest.approx(formula(other, query, parse_vector(vec), text), abs=1e-6), text
