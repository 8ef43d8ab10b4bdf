"""The embedded server's kept IDF corpora (elf_infra/qdrant_server/term_stats.py): a BM25 query whose IDF corpus
is one keyword value is answered from counts the server keeps, and its scores stay qdrant-edge's own through
upserts, moves between corpora, deletes by id and by filter, and conditional upserts."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe
from qdrant_client import QdrantClient, models

from elf_infra.qdrant_server.term_stats import LN2, NO_POINT, IdfStatsPolicy, TermStats, idf
from tests.qdrant_fixtures import client_for, create_collection, raw_request, run_server

BUILT = "IDF corpus scope="


def _match(value: str) -> models.FieldCondition:
    return models.FieldCondition(key="scope", match=models.MatchValue(value=value))


def _point(pid: int, scope: str, terms: list[int] | None, rng: random.Random) -> models.PointStruct:
    vector: dict = {"dense": [rng.random() + 0.01 for _ in range(4)]}
    if terms is not None:
        vector["bm25"] = models.SparseVector(indices=terms, values=[round(rng.uniform(0.5, 2.0), 3) for _ in terms])
    return models.PointStruct(id=pid, vector=vector, payload={"scope": scope, "n": pid})


def _terms(rng: random.Random) -> list[int] | None:
    roll = rng.random()
    if roll < 0.05:
        return None  # no BM25 vector: not in the corpus's point count
    if roll < 0.1:
        return []  # an empty one: counted
    return sorted(rng.sample(range(40), rng.randint(1, 6)))


def _ask(client: QdrantClient, scope: str, query: list[int], *, reference: bool) -> list[tuple[int, float]]:
    """BM25 with IDF over `scope`: as the service names it (one keyword value, which the server may answer from
    its counts), or as a MatchAny of that one value (the same corpus, which it always leaves to qdrant-edge)."""
    corpus = (models.Filter(must=[models.FieldCondition(key="scope", match=models.MatchAny(any=[scope]))])
              if reference else models.Filter(must=[_match(scope)]))
    res = client.query_points(
        "c", query=models.SparseVector(indices=query, values=[1.0 + i / 10 for i in range(len(query))]),
        using="bm25", limit=200, search_params=models.SearchParams(idf=models.IdfCorpusParams(corpus=corpus)),
    )
    return [(int(p.id), p.score) for p in res.points]


def _ask_batch(client: QdrantClient, scope: str, query: list[int]) -> tuple[list, list]:
    """Both forms in one batch request (the service's recall sends its legs so)."""
    sparse = models.SparseVector(indices=query, values=[1.0 + i / 10 for i in range(len(query))])
    forms = (models.Filter(must=[_match(scope)]),
             models.Filter(must=[models.FieldCondition(key="scope", match=models.MatchAny(any=[scope]))]))
    kept, counted = client.query_batch_points("c", requests=[
        models.QueryRequest(query=sparse, using="bm25", limit=200,
                            params=models.SearchParams(idf=models.IdfCorpusParams(corpus=corpus)))
        for corpus in forms])
    return [(int(p.id), p.score) for p in kept.points], [(int(p.id), p.score) for p in counted.points]


def _same_scores(client: QdrantClient, scopes: list[str], rng: random.Random) -> None:
    for scope in scopes:
        for i in range(6):
            query = sorted(rng.sample(range(42), rng.randint(1, 5)))  # 40 and 41 are in no point
            kept, counted = (_ask_batch(client, scope, query) if i % 2 else
                             (_ask(client, scope, query, reference=False), _ask(client, scope, query, reference=True)))
            assert dict(kept).keys() == dict(counted).keys(), (scope, query)
            for pid, score in counted:
                assert dict(kept)[pid] == pytest.approx(score, rel=1e-5), (scope, query, pid)


def _wait_built(server, count: int) -> None:
    deadline = time.monotonic() + 30
    while server.log_text().count(BUILT) < count:
        assert time.monotonic() < deadline, server.log_text()[-2000:]
        time.sleep(0.05)


@contextmanager
def _scoped_server(tmp_path: Path, seed: int) -> Iterator[tuple[Any, QdrantClient, random.Random]]:
    """A server keeping corpora of 60 points or more, with collection "c" and a keyword index on "scope"."""
    server = run_server(tmp_path, "--idf-stats-min-points", "60")
    try:
        client = client_for(server)
        create_collection(client)
        client.create_payload_index("c", "scope", models.PayloadSchemaType.KEYWORD)
        yield server, client, random.Random(seed)
    finally:
        server.stop()


def test_kept_corpus_scores_equal_qdrant_edges_through_writes(tmp_path: Path) -> None:
    with _scoped_server(tmp_path, 35) as (server, client, rng):
        client.upsert("c", points=[_point(i, "A" if i < 150 else "B" if i < 250 else "S", _terms(rng), rng)
                                   for i in range(260)], wait=True)
        _same_scores(client, ["A", "B", "S"], rng)  # the first queries name A and B: built in the background
        _wait_built(server, 2)
        _same_scores(client, ["A", "B", "S"], rng)  # S (10 points) is under 60: never kept
        assert "scope='S'" not in server.log_text()

        client.upsert("c", points=[_point(i, "A", _terms(rng), rng) for i in range(300, 340)], wait=True)  # new
        client.upsert("c", points=[_point(i, "B", _terms(rng), rng) for i in range(0, 30)], wait=True)  # A -> B
        client.upsert("c", points=[_point(i, "A", _terms(rng), rng) for i in range(30, 60)], wait=True)  # new terms
        _same_scores(client, ["A", "B"], rng)
        client.delete("c", points_selector=models.PointIdsList(points=list(range(60, 90))), wait=True)
        client.delete("c", points_selector=models.FilterSelector(filter=models.Filter(must=[
            models.FieldCondition(key="n", range=models.Range(gte=200, lt=230))])), wait=True)
        _same_scores(client, ["A", "B"], rng)
        # one id twice in a write: the last point of an upsert stands, a delete removes the point once
        client.upsert("c", points=[_point(95, "B", [1, 2], rng), _point(95, "A", [3, 4, 5], rng),
                                   _point(341, "A", [1], rng), _point(341, "A", [2, 6], rng)], wait=True)
        client.delete("c", points_selector=models.PointIdsList(points=[96, 96, 97]), wait=True)
        _same_scores(client, ["A", "B"], rng)
        assert server.log_text().count(BUILT) == 2  # kept by the writes, not counted again

        # an upsert whose effect depends on the stored points: the corpora are dropped and built again
        client.upsert("c", points=[_point(i, "A", _terms(rng), rng) for i in range(90, 120)], wait=True,
                      update_filter=models.Filter(must=[models.FieldCondition(key="n", range=models.Range(lt=100))]))
        _same_scores(client, ["A", "B"], rng)
        _wait_built(server, 4)
        _same_scores(client, ["A", "B"], rng)


def test_the_server_lists_the_corpora_it_keeps_and_builds(tmp_path: Path) -> None:
    with _scoped_server(tmp_path, 36) as (server, client, rng):
        points = [_point(i, "A" if i < 100 else "S", _terms(rng), rng) for i in range(110)]
        client.upsert("c", points=points, wait=True)
        status, body = raw_request(server.url, "GET", "/collections/c/idf_corpora", None)
        assert status == 200
        assert body["result"] == {"min_points": 60, "max_terms": 5_000_000, "kept": [], "building": [],
                                  "wanted": []}
        _ask(client, "A", [1, 2], reference=False)  # asks for A's counts, built in the background
        _ask(client, "S", [1, 2], reference=False)  # S has 10 points, under 60: never kept
        _wait_built(server, 1)
        in_a = [p.vector["bm25"] for p in points if p.payload["scope"] == "A" and "bm25" in p.vector]
        result = raw_request(server.url, "GET", "/collections/c/idf_corpora", None)[1]["result"]
        assert result["kept"] == [{"vector": "bm25", "key": "scope", "value": "A", "points": len(in_a),
                                   "terms": len({t for v in in_a for t in v.indices})}]
        assert result["building"] == result["wanted"] == []
        assert raw_request(server.url, "GET", "/collections/nope/idf_corpora", None)[0] == 404


def _stats_of(points: list[tuple[str, list[int]]], min_points: int = 1) -> TermStats:
    stats = TermStats(["bm25"], IdfStatsPolicy(min_points=min_points))
    records = [qe.Point(i, {"bm25": qe.SparseVector(t, [1.0] * len(t))}, {"scope": s})
               for i, (s, t) in enumerate(points)]
    for key in stats.take_wanted() or [("bm25", "scope", "A")]:
        stats.build(key, lambda k: sum(s == k[2] for s, _ in points),
                    lambda k: iter([r for r in records if r.payload["scope"] == k[2]]))
    return stats


def _body(scope: str, **extra: object) -> dict:
    return {"query": {"indices": [1, 2], "values": [1.0, 0.5]}, "using": "bm25",
            "params": {"hnsw_ef": None, "idf": {"corpus": {"must": [{"key": "scope", "match": {"value": scope}}]}}},
            **extra}


def test_a_kept_corpus_rewrites_the_query_weights_and_names_no_point() -> None:
    stats = _stats_of([("A", [1, 2]), ("A", [1]), ("A", [3]), ("B", [2])])
    out = stats.rewrite(_body("A"))
    assert out["params"]["idf"] == {"corpus": NO_POINT} and out["params"]["hnsw_ef"] is None
    assert out["query"]["values"] == pytest.approx([1.0 * idf(3, 2) / LN2, 0.5 * idf(3, 1) / LN2])
    fused = {"prefetch": [{"query": [0.1, 0.2], "using": "dense"}, _body("A")], "query": {"fusion": "rrf"}}
    assert stats.rewrite(fused)["prefetch"][1]["params"]["idf"] == {"corpus": NO_POINT}
    nearest = {**_body("A"), "query": {"nearest": {"indices": [1], "values": [1.0]}}}
    assert stats.rewrite(nearest)["query"]["nearest"]["values"] == pytest.approx([idf(3, 2) / LN2])


@pytest.mark.parametrize(("body", "wanted"), [
    (_body("B"), [("bm25", "scope", "B")]),  # not kept yet: asked for, left as it is
    ({**_body("A"), "using": "dense"}, []),
    ({**_body("A"), "params": {"idf": {"corpus": {"must": [{"key": "scope", "match": {"any": ["A"]}}]}}}}, []),
    ({**_body("A"), "params": {"idf": {"corpus": {"must": [{"key": "scope", "match": {"value": "A"}}],
                                                  "must_not": [{"has_id": [1]}]}}}}, []),
    ({**_body("A"), "params": {"idf": "global"}}, []),
])
def test_other_queries_are_left_to_qdrant_edge(body: dict, wanted: list) -> None:
    stats = _stats_of([("A", [1, 2]), ("A", [1])])
    assert stats.rewrite(body) is body
    assert stats.take_wanted() == wanted


def test_a_small_corpus_is_not_kept_and_is_counted_again_later() -> None:
    stats = _stats_of([("A", [1])], min_points=5)
    assert stats.rewrite(_body("A")) == _body("A")
    assert stats.take_wanted() == []  # known small for recheck_s


def test_a_corpus_being_built_is_not_asked_for_again() -> None:
    stats = TermStats(["bm25"], IdfStatsPolicy(min_points=1))
    assert stats.rewrite(_body("A")) == _body("A")
    assert stats.take_wanted() == [("bm25", "scope", "A")]
    stats.rewrite(_body("A"))  # while it is built
    assert stats.take_wanted() == []
    point = qe.Point(1, {"bm25": qe.SparseVector([1], [1.0])}, {"scope": "A"})
    stats.build(("bm25", "scope", "A"), lambda k: 1, lambda k: iter([point]))
    assert stats.rewrite(_body("A"))["params"]["idf"] == {"corpus": NO_POINT}


@pytest.mark.parametrize("body", [
    {**_body("A"), "query": {"indices": [1, 2], "values": ["x", None]}},
    {**_body("A"), "query": {"indices": [[1]], "values": [1.0]}},
    {**_body("A"), "params": {"idf": {"corpus": {"must": [[{"key": "scope"}]]}}}},
    {**_body("A"), "params": {"idf": {"corpus": {"must": [{"key": "scope", "match": "A"}]}}}},
])
def test_a_malformed_body_is_left_for_the_request_builder_to_refuse(body: dict) -> None:
    stats = _stats_of([("A", [1, 2]), ("A", [1])])
    assert stats.rewrite(body) is body
