"""The embedded Qdrant server, driven through plain qdrant-client over REST."""

from __future__ import annotations

import http.client
import importlib.metadata
import json
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient, models
from qdrant_client.common.version_check import get_server_version, is_compatible
from qdrant_client.http.exceptions import UnexpectedResponse

from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import client_for, qdrant_server, run_server  # noqa: F401

DIM = 4


def _create(client: QdrantClient, name: str = "c", **kwargs: object) -> None:
    client.create_collection(
        name,
        vectors_config={"dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE)},
        sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)},
        **kwargs,
    )


def _point(
    pid: int | str, dense: list[float], payload: dict, sparse: tuple[list[int], list[float]] | None = None
) -> models.PointStruct:
    vector: dict = {"dense": dense}
    if sparse:
        vector["bm25"] = models.SparseVector(indices=sparse[0], values=sparse[1])
    return models.PointStruct(id=pid, vector=vector, payload=payload)


def _raw(url: str, method: str, path: str, body: object) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


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
    _create(client, metadata={"owner": "tests"})
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
        _create(client)
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
        lambda: client.upsert("nope", points=[_point(1, [1.0, 0, 0, 0], {})]),
    ):
        with pytest.raises(UnexpectedResponse) as exc:
            call()
        assert _status(exc) == 404
        assert b"doesn't exist" in exc.value.content


def test_bad_input_is_400(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    _create(client)
    with pytest.raises(UnexpectedResponse) as exc:
        client.upsert("c", points=[_point(1, [1.0, 0, 0], {})])  # wrong dimension
    assert _status(exc) == 400 and b"dimension" in exc.value.content
    with pytest.raises(UnexpectedResponse) as exc:
        client.query_points("c", query=[1.0, 0, 0, 0], using="nope")
    assert _status(exc) == 400
    status, body = _raw(
        qdrant_server.url, "PUT", "/collections/c/points", {"points": [{"id": "not-a-uuid", "vector": {}}]}
    )
    assert status == 400 and "not a valid point ID" in body["status"]["error"]
    with pytest.raises(UnexpectedResponse) as exc:
        client.query_points("c", query=7, using="dense")  # by point id: not implemented, and says so
    assert _status(exc) == 400 and b"not supported by the embedded Qdrant server" in exc.value.content
    status, body = _raw(qdrant_server.url, "POST", "/collections/c/points/query", b"{not json")
    assert status == 400 and "Format error in JSON body" in body["status"]["error"]
    with pytest.raises(UnexpectedResponse) as exc:
        client.create_collection(".hidden", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.DOT))
    assert _status(exc) == 422
    assert [c.name for c in client.get_collections().collections] == ["c"]


def test_payload_indexes_are_created_reported_and_applied(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    _create(client)
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
            _point(
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
    _create(client)
    uid = str(uuid.uuid4())
    client.upsert("c", points=[_point(uid, [0.0, 1, 0, 0], {"t": "x"}, ([7, 3], [0.5, 2.0]))])
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
    assert sorted(zip(rec.vector["bm25"].indices, rec.vector["bm25"].values)) == [(3, 2.0), (7, 0.5)]
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
    _create(client)
    payloads = [
        {"k": "a", "n": 1, "tags": ["x"], "maybe": None},
        {"k": "b", "n": 2, "tags": []},
        {"k": "c", "n": 3, "tags": ["x", "y"], "maybe": 1},
        {"k": "a", "n": 4},
    ]
    client.upsert("c", points=[_point(i + 1, [1.0, 0, 0, 0], p) for i, p in enumerate(payloads)])

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
    _create(client)
    client.upsert("c", points=[_point(i, [1.0, 0, 0, float(i)], {"note_id": f"n{i % 3}"}) for i in range(1, 13)])
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


def _hybrid_fixture(client: QdrantClient) -> None:
    # Within tenant t1, dense order is A, B, C, E and sparse order is B, C, E (A has no sparse match).
    # D (tenant t2) matches both best and must be filtered out of both prefetches.
    _create(client)
    client.create_payload_index("c", "tenant", models.PayloadSchemaType.KEYWORD)
    client.upsert(
        "c",
        points=[
            _point(1, [1.0, 0.05, 0, 0], {"name": "A", "tenant": "t1"}, ([9], [1.0])),
            _point(2, [1.0, 0.3, 0, 0], {"name": "B", "tenant": "t1"}, ([1, 2], [3.0, 3.0])),
            _point(3, [1.0, 0.6, 0, 0], {"name": "C", "tenant": "t1"}, ([1, 2], [1.0, 1.0])),
            _point(4, [1.0, 0.0, 0, 0], {"name": "D", "tenant": "t2"}, ([1, 2], [5.0, 5.0])),
            _point(5, [0.0, 0.0, 1, 0], {"name": "E", "tenant": "t1"}, ([1], [0.5])),
        ],
    )


def test_hybrid_rrf_query_with_filter_returns_expected_order(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    _hybrid_fixture(client)
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


def test_data_survives_restart(tmp_path: Path) -> None:
    server = run_server(tmp_path)
    try:
        client = client_for(server)
        _hybrid_fixture(client)
        client.create_payload_index("c", "name", models.PayloadSchemaType.KEYWORD)
        query = dict(
            prefetch=[
                models.Prefetch(query=[1.0, 0, 0, 0], using="dense", limit=10),
                models.Prefetch(query=models.SparseVector(indices=[1, 2], values=[1.0, 1.0]), using="bm25", limit=10),
            ],
            query=models.FusionQuery(fusion=models.Fusion.RRF),
            limit=10,
        )
        before = [(p.id, p.score) for p in client.query_points("c", **query).points]
        assert server.restart() == 0
        client = client_for(server)
        assert client.count("c").count == 5
        assert [(p.id, p.score) for p in client.query_points("c", **query).points] == before
        assert set(client.get_collection("c").payload_schema) == {"tenant", "name"}
    finally:
        server.stop()


def test_keep_alive_connections_are_reused_without_stalls(qdrant_server: EmbeddedQdrant) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", qdrant_server.port, timeout=10)
    timings, sockets = [], set()
    for _ in range(10):
        started = time.perf_counter()
        conn.request("GET", "/collections")
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["status"] == "ok"
        timings.append(time.perf_counter() - started)
        sockets.add(id(conn.sock))
    conn.close()
    assert len(sockets) == 1  # one connection served all ten requests
    assert sorted(timings)[5] < 0.02  # a Nagle / delayed-ACK stall costs ~40 ms per request


def test_a_second_server_on_the_same_data_dir_refuses_to_start(
    qdrant_server: EmbeddedQdrant, tmp_path: Path
) -> None:
    second = EmbeddedQdrant(qdrant_server.data_dir, tmp_path / "second.log")
    with pytest.raises(RuntimeError, match="in use by another qdrant server process"):
        second.start()
    assert second.stop() == 1
    assert client_for(qdrant_server).get_collections().collections == []


def test_writes_survive_a_killed_server(tmp_path: Path) -> None:
    server = run_server(tmp_path)
    try:
        client = client_for(server)
        _create(client)
        client.upsert("c", points=[_point(i, [1.0, 0, 0, float(i)], {"i": i}) for i in range(100)])
        server.proc.send_signal(signal.SIGKILL)  # no flush, no close: the WAL has the writes
        server.proc.wait()
        server.start()
        client = client_for(server)
        assert client.count("c").count == 100
        assert client.retrieve("c", ids=[42])[0].payload == {"i": 42}
    finally:
        server.stop()


_WRITER = textwrap.dedent("""
    import sys
    from qdrant_client import QdrantClient, models
    url, base = sys.argv[1], int(sys.argv[2])
    client = QdrantClient(url=url, timeout=30)
    for batch in range(20):
        ids = [base + batch * 25 + i for i in range(25)]
        client.upsert("c", points=[models.PointStruct(id=i, vector={"dense": [1.0, float(i % 7), 0.0, 1.0]},
                                                      payload={"writer": base}) for i in ids])
        hits = client.query_points("c", query=[1.0, 0.0, 0.0, 1.0], using="dense", limit=5,
                                   query_filter=models.Filter(must=[models.FieldCondition(
                                       key="writer", match=models.MatchValue(value=base))])).points
        assert hits and all(h.id >= base for h in hits), hits
    print("ok")
""")


def test_two_client_processes_at_once(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    _create(client)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, qdrant_server.url, str(base)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for base in (100_000, 200_000)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    assert all(out.strip() == "ok" for out, _ in outputs)
    assert client.count("c").count == 1000
    for base in (100_000, 200_000):
        assert (
            client.count(
                "c",
                count_filter=models.Filter(
                    must=[models.FieldCondition(key="writer", match=models.MatchValue(value=base))]
                ),
            ).count
            == 500
        )


@pytest.mark.parametrize("caught_up", [False, True])
def test_an_interrupted_shard_swap_is_resolved_at_start(tmp_path: Path, caught_up: bool) -> None:
    server = run_server(tmp_path)
    collection_dir = server.data_dir / "collections" / "c"
    try:
        client = client_for(server)
        _create(client)
        client.upsert("c", points=[_point(i, [1.0, 0, 0, float(i)], {}) for i in range(5)])
        server.stop()
        shutil.copytree(collection_dir / "shard", tmp_path / "copy")  # the optimized copy: 5 points
        server.start()
        client_for(server).upsert("c", points=[_point(5, [1.0, 0, 0, 5.0], {})])  # the live shard: 6 points
        server.stop()
        # Crash between the swap's two renames: the live shard is moved aside, the copy not yet in place.
        (tmp_path / "copy").rename(collection_dir / "shard.optimizing")
        (collection_dir / "shard").rename(collection_dir / "shard.old")
        if caught_up:
            (collection_dir / "shadow.ready").write_text("{}")
        server.start()
        # Without the ready marker the copy may lack writes, so the old live shard comes back.
        assert client_for(server).count("c").count == (5 if caught_up else 6)
        assert sorted(p.name for p in collection_dir.iterdir()) == ["collection.json", "shard"]
    finally:
        server.stop()


def test_optimization_swaps_in_an_optimized_shard_and_keeps_concurrent_writes(tmp_path: Path) -> None:
    server = run_server(tmp_path, "--optimize-idle-seconds", "0.2", "--optimize-min-changes", "500")
    try:
        client = client_for(server)
        client.create_collection(
            "c",
            vectors_config={"dense": models.VectorParams(size=32, distance=models.Distance.COSINE)},
            optimizers_config=models.OptimizersConfigDiff(indexing_threshold=100),  # KB: forces an HNSW build
        )
        vectors = np.random.default_rng(7).normal(size=(4000, 32)).tolist()
        vec = lambda i: vectors[i % 4000]  # noqa: E731
        for start in range(0, 4000, 500):
            client.upsert(
                "c",
                points=[
                    models.PointStruct(id=i, vector={"dense": vec(i)}, payload={"i": i})
                    for i in range(start, start + 500)
                ],
            )
        assert client.query_points("c", query=vec(5), using="dense", limit=1).points[0].id == 5

        deadline = time.monotonic() + 60
        while client.get_collection("c").status != models.CollectionStatus.YELLOW:
            assert time.monotonic() < deadline, "optimization never started"
            time.sleep(0.02)
        # Written while the copy is being optimized: must be replayed onto it before the swap.
        client.upsert("c", points=[models.PointStruct(id=10_000, vector={"dense": vec(1)}, payload={"i": -1})])
        client.delete("c", points_selector=models.PointIdsList(points=[0, 1, 2]))
        while "optimized shard installed" not in server.log_text():
            assert time.monotonic() < deadline, server.log_text()
            time.sleep(0.05)

        info = client.get_collection("c")
        assert info.points_count == 3998
        assert info.indexed_vectors_count >= 3900  # the HNSW-indexed segment is live
        assert int(re.search(r"\((\d+) writes replayed\)", server.log_text()).group(1)) >= 1
        assert client.retrieve("c", ids=[10_000])[0].payload == {"i": -1}
        assert client.retrieve("c", ids=[0, 1, 2]) == []
        assert client.query_points("c", query=vec(5), using="dense", limit=1).points[0].id == 5
        assert not (server.data_dir / "collections" / "c" / "shard.optimizing").exists()
        assert server.restart() == 0
        assert client_for(server).count("c").count == 3998
    finally:
        server.stop()
