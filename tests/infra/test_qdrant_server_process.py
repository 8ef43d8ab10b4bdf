"""The embedded Qdrant server as a process: restarts, kill -9, a second server on one data dir, concurrent
clients, keep-alive, and the shard swap of a shadow optimization (the REST API is in test_qdrant_server.py)."""


from __future__ import annotations

import http.client
import json
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import models

from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.conftest import autogroups_enabled
from tests.qdrant_fixtures import (  # noqa: F401
    DIM,
    client_for,
    create_collection,
    load_hybrid_fixture,
    make_point,
    qdrant_server,
    run_server,
)


def test_data_survives_restart(tmp_path: Path) -> None:
    server = run_server(tmp_path)
    try:
        client = client_for(server)
        load_hybrid_fixture(client)
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
        create_collection(client)
        client.upsert("c", points=[make_point(i, [1.0, 0, 0, float(i)], {"i": i}) for i in range(100)])
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
    create_collection(client)
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
        create_collection(client)
        client.upsert("c", points=[make_point(i, [1.0, 0, 0, float(i)], {}) for i in range(5)])
        server.stop()
        shutil.copytree(collection_dir / "shard", tmp_path / "copy")  # the optimized copy: 5 points
        server.start()
        client_for(server).upsert("c", points=[make_point(5, [1.0, 0, 0, 5.0], {})])  # the live shard: 6 points
        server.stop()
        # Crash between the swap's two renames: the live shard is moved aside, the copy not yet in place.
        (tmp_path / "copy").rename(collection_dir / "shard.optimizing")
        (collection_dir / "shard").rename(collection_dir / "shard.old")
        if caught_up:
            (collection_dir / "shadow.ready").write_text("{}")
        server.start()
        # Without the ready marker the copy may lack writes, so the old live shard comes back.
        assert client_for(server).count("c").count == (5 if caught_up else 6)
        assert sorted(p.name for p in collection_dir.iterdir()) == ["collection.json", "pending_changes.json", "shard"]
    finally:
        server.stop()


def _hnsw_collection(client, points: int, seed: int, batch: int) -> list[list[float]]:
    """Collection "c" of 32-dim points small enough to index (its HNSW graph is built at the first optimization),
    filled with points 0 .. ``points``-1 in upserts of ``batch``; returns ``points`` + 2,000 random vectors (the
    rest for writes the test makes later)."""
    client.create_collection(
        "c",
        vectors_config={"dense": models.VectorParams(size=32, distance=models.Distance.COSINE)},
        optimizers_config=models.OptimizersConfigDiff(indexing_threshold=100),  # KB: forces an HNSW build
    )
    vectors = np.random.default_rng(seed).normal(size=(points + 2000, 32)).tolist()
    for lo in range(0, points, batch):
        client.upsert("c", points=[models.PointStruct(id=i, vector={"dense": vectors[i]}, payload={"i": i})
                                   for i in range(lo, lo + batch)])
    return vectors


def test_optimization_swaps_in_an_optimized_shard_and_keeps_concurrent_writes(tmp_path: Path) -> None:
    # The idle window is longer than any pause between the eight upserts below even on a loaded machine: with
    # 0.2 s, a CI run once paused long enough after 2,000 points for the optimizer to start on those alone.
    server = run_server(tmp_path, "--optimize-idle-seconds", "2", "--optimize-min-changes", "500")
    try:
        client = client_for(server)
        vectors = _hnsw_collection(client, 4000, seed=7, batch=500)
        vec = lambda i: vectors[i % 4000]  # noqa: E731
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
        # The optimizer ran below every other process: niced, in a session of its own whose autogroup is niced
        # too where the kernel has autogroups (a niced child in the server's session would only yield to it).
        while "optimization done" not in server.log_text():
            assert time.monotonic() < deadline, server.log_text()
            time.sleep(0.05)
        done = re.search(r"optimization done .*worker nice (\d+), own session (\w+), autogroup nice (\w+)",
                         server.log_text())
        assert done and done.group(1) == "10" and done.group(2) == "True", server.log_text()
        if autogroups_enabled():
            assert done.group(3) == "10"
        assert server.restart() == 0
        assert client_for(server).count("c").count == 3998
    finally:
        server.stop()


def test_writes_pending_optimization_are_optimized_after_a_restart(tmp_path: Path) -> None:
    """The optimizer's count of changes survives a restart: 4,000 points written by a server that never optimizes
    (its threshold is out of reach) are optimized by the next server on the same data, which would otherwise have
    called the collection green with them unindexed."""
    first = run_server(tmp_path, "--optimize-idle-seconds", "3600", "--optimize-min-changes", "1000000")
    try:
        vectors = _hnsw_collection(client_for(first), 4000, seed=11, batch=1000)
    finally:
        assert first.stop() == 0
    second = EmbeddedQdrant(tmp_path / "qdrant", tmp_path / "qdrant-2.log",
                            ("--optimize-idle-seconds", "0.5", "--optimize-min-changes", "500"))
    second.start()
    try:
        client = client_for(second)
        assert client.get_collection("c").status != models.CollectionStatus.GREEN
        deadline = time.monotonic() + 120
        while "optimization done" not in second.log_text():
            assert time.monotonic() < deadline, second.log_text()
            time.sleep(0.05)
        assert "changed: True" in second.log_text(), second.log_text()
        info = client.get_collection("c")
        assert info.status == models.CollectionStatus.GREEN and info.points_count == 4000
        assert client.query_points("c", query=vectors[5], using="dense", limit=1).points[0].id == 5
    finally:
        second.stop()


def test_an_optimization_outrun_by_writes_is_cancelled_and_runs_once_writes_pause(tmp_path: Path) -> None:
    """Writes made during an optimization are journaled in memory: past --optimize-journal-max-points the
    optimization is cancelled (the journal dropped, nothing lost) and runs again once writes pause."""
    server = run_server(tmp_path, "--optimize-idle-seconds", "1", "--optimize-min-changes", "500",
                        "--optimize-journal-max-points", "300")
    try:
        client = client_for(server)
        # 20,000 points: an optimization of about 3 s here, long enough for the writes below to outrun
        vectors = _hnsw_collection(client, 20000, seed=5, batch=5000)
        upsert = lambda lo, hi: client.upsert("c", points=[  # noqa: E731
            models.PointStruct(id=i, vector={"dense": vectors[i]}) for i in range(lo, hi)])
        deadline = time.monotonic() + 60
        while client.get_collection("c").status != models.CollectionStatus.YELLOW:
            assert time.monotonic() < deadline, "optimization never started"
            time.sleep(0.02)
        for lo in range(20000, 22000, 200):  # 2,000 points while it runs: over the limit of 300
            upsert(lo, lo + 200)
        while "optimization cancelled" not in server.log_text():
            assert time.monotonic() < deadline, server.log_text()
            time.sleep(0.05)
        assert "points written while it was being optimized (limit 300" in server.log_text()
        while "optimization done" not in server.log_text():
            assert time.monotonic() < deadline, server.log_text()
            time.sleep(0.05)
        assert "changed: True" in server.log_text(), server.log_text()
        info = client.get_collection("c")
        assert info.points_count == 22000
        assert client.query_points("c", query=vectors[21234], using="dense", limit=1).points[0].id == 21234
        assert server.restart() == 0
        assert client_for(server).count("c").count == 22000
    finally:
        server.stop()
