"""Qdrant benchmark: notes-style upsert throughput and hybrid (dense + BM25, RRF) query latency.

elf-bench qdrant [--points 20000] [--queries 200] [--url http://host:port]

Without --url it starts the embedded server (python -m elf_infra.qdrant_server) on a temporary data
directory. It creates a fresh notes collection (elf_infra.index.notes_collection), upserts random
unit dense vectors plus BM25 vectors of synthetic English sentences through qdrant-client in batches, and
times hybrid queries under a tenant/project filter: before optimization, while the server optimizes
(embedded server: on a copy, in a child process), and after it is done.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from qdrant_client import QdrantClient, models

from elf_config.schema import DENSE_QUANTIZATIONS
from elf_infra.index import bm25
from elf_infra.index.hybrid import hybrid_query, upsert_points
from elf_infra.index.notes_collection import chunk_point, ensure_notes_collection
from elf_infra.qdrant_server.launcher import EmbeddedQdrant

TENANTS = [f"tenant-{i}" for i in range(4)]
PROJECTS = [f"project-{i}" for i in range(5)]
SCOPES = ["agent_private", "project_shared", "org_shared"]
TYPES = ["preference", "constraint", "decision", "profile", "fact", "plan"]
_SUBJECTS = [
    "Alice",
    "Bob",
    "Carol",
    "the",
    "team",
    "the",
    "client",
    "our",
    "lead",
    "the",
    "designer",
    "Dana",
    "the",
    "ops",
    "crew",
    "Evan",
    "Priya",
]
_VERBS = [
    "prefers",
    "likes",
    "deployed",
    "reviewed",
    "scheduled",
    "rejected",
    "approved",
    "migrated",
    "documented",
    "measured",
    "tested",
    "renamed",
    "archived",
    "planned",
    "postponed",
]
_OBJECTS = [
    "the billing service",
    "dark roast coffee",
    "weekly standups",
    "the Postgres cluster",
    "a blue green rollout",
    "the mobile release",
    "unit tests in CI",
    "the onboarding guide",
    "Kubernetes upgrades",
    "the search index",
    "quarterly budgets",
    "the API gateway",
    "a vegetarian menu",
    "the hiking trip",
    "TypeScript linting",
    "the data warehouse",
    "backup retention",
    "the design review",
    "morning runs",
    "the incident report",
]
_TAILS = [
    "on Monday",
    "before the launch",
    "after lunch",
    "for the next sprint",
    "every Friday",
    "in Berlin",
    "with the vendor",
    "because of latency",
    "to cut costs",
    "when traffic peaks",
    "during the offsite",
    "next quarter",
    "",
]


def sentence(rng: random.Random) -> str:
    """A short synthetic English note."""
    return " ".join(filter(None, [rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_OBJECTS), rng.choice(_TAILS)]))


def unit_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    """`n` random unit vectors (float32)."""
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def build_points(n: int, dim: int, seed: int) -> list[models.PointStruct]:
    """Notes-style chunk points, spread over tenants, projects, scopes and types."""
    rng = random.Random(seed)
    vectors = unit_vectors(n, dim, seed)
    now = datetime.now(UTC)
    points = []
    for i in range(n):
        text = sentence(rng)
        points.append(
            chunk_point(
                chunk_id=uuid.UUID(int=rng.getrandbits(128), version=4),
                note_id=uuid.UUID(int=rng.getrandbits(128), version=4),
                chunk_index=0,
                start_offset=0,
                end_offset=len(text),
                tenant_id=rng.choice(TENANTS),
                project_id=rng.choice(PROJECTS),
                agent_id=f"agent-{rng.randrange(8)}",
                scope=rng.choice(SCOPES),
                note_type=rng.choice(TYPES),
                key=None,
                status="active",
                updated_at=now,
                expires_at=None,
                importance=round(rng.random(), 2),
                confidence=0.9,
                embedding_version=f"bench:random:{dim}",
                dense=vectors[i].tolist(),
                bm25=bm25.embed_document(text),
            )
        )
    return points


def percentile_ms(samples: list[float], q: float) -> float:
    """The q-th percentile of samples given in seconds, in milliseconds."""
    return float(np.percentile(np.asarray(samples) * 1e3, q))


def summary(label: str, samples: list[float]) -> str:
    """One line: p50 / p95 latency of the samples."""
    return (
        f"qdrant hybrid query {label}(n={len(samples)}): p50={percentile_ms(samples, 50):.2f} ms "
        f"p95={percentile_ms(samples, 95):.2f} ms"
    )


class QueryRunner:
    """Hybrid queries with a tenant/project/status filter, as ELF's search step 7 runs them."""

    def __init__(self, client: QdrantClient, collection: str, dim: int, limit: int, seed: int) -> None:
        self.client, self.collection, self.limit = client, collection, limit
        self._rng = random.Random(seed)
        self._vectors = unit_vectors(512, dim, seed + 1)

    def one(self) -> float:
        """Run one query; return its wall time in seconds."""
        rng = self._rng
        flt = models.Filter(
            must=[
                models.FieldCondition(key="tenant_id", match=models.MatchValue(value=rng.choice(TENANTS))),
                models.FieldCondition(key="project_id", match=models.MatchValue(value=rng.choice(PROJECTS))),
                models.FieldCondition(key="status", match=models.MatchValue(value="active")),
            ]
        )
        dense = self._vectors[rng.randrange(len(self._vectors))].tolist()
        sparse = bm25.embed_query(sentence(rng))
        started = time.perf_counter()
        hits = hybrid_query(self.client, self.collection, dense, sparse, flt, self.limit)
        elapsed = time.perf_counter() - started
        if not hits:
            raise RuntimeError("hybrid query returned nothing")
        return elapsed

    def run(self, n: int) -> list[float]:
        """Run n queries; return their wall times."""
        return [self.one() for _ in range(n)]

    def run_while(self, condition: Callable[[], bool], max_n: int) -> list[float]:
        """Run queries while `condition()` holds (at most max_n); return their wall times."""
        samples: list[float] = []
        while len(samples) < max_n and condition():
            samples.append(self.one())
        return samples


def status(client: QdrantClient, collection: str) -> models.CollectionStatus:
    """The collection's status (green once optimization is done)."""
    return client.get_collection(collection).status


def run(url: str, args: argparse.Namespace) -> int:
    """The benchmark against the server at `url`."""
    client = QdrantClient(url=url, prefer_grpc=False, timeout=300)
    collection = f"bench_notes_{uuid.uuid4().hex[:8]}"
    try:
        ensure_notes_collection(client, collection, args.dim, quantization=args.quantization)
        points = build_points(args.points, args.dim, args.seed)
        started = time.perf_counter()
        for i in range(0, len(points), args.batch):
            upsert_points(client, collection, points[i : i + args.batch])
        elapsed = time.perf_counter() - started
        print(
            f"qdrant upsert: {len(points)} points in {elapsed:.2f} s = {len(points) / elapsed:.0f} points/s "
            f"(batches of {args.batch}, dim {args.dim})"
        )

        runner = QueryRunner(client, collection, args.dim, args.limit, args.seed)
        runner.run(5)  # warm-up
        before_status = status(client, collection)
        print(summary(f"before optimization [{before_status.value}] ", runner.run(args.queries)))

        wait_started = time.perf_counter()
        during = runner.run_while(lambda: status(client, collection) != models.CollectionStatus.GREEN, 100_000)
        if during:
            print(summary("while optimizing ", during) + f" max={max(during) * 1e3:.2f} ms")
        deadline = time.monotonic() + args.optimize_timeout
        while (state := status(client, collection)) != models.CollectionStatus.GREEN:
            if state == models.CollectionStatus.RED or time.monotonic() > deadline:
                print(
                    f"qdrant: collection is {state.value}, not green; optimizer: "
                    f"{client.get_collection(collection).optimizer_status}"
                )
                return 1
            time.sleep(0.2)
        info = client.get_collection(collection)
        print(
            f"qdrant optimization: green after {time.perf_counter() - wait_started:.1f} s "
            f"({info.segments_count} segments, {info.indexed_vectors_count} indexed vectors)"
        )
        runner.run(5)
        print(summary("", runner.run(args.queries)))
        return 0
    finally:
        client.delete_collection(collection)
        client.close()


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command-line options of `elf-bench qdrant`."""
    p = argparse.ArgumentParser(prog="elf-bench qdrant", description=__doc__.splitlines()[0])
    p.add_argument("--points", type=int, default=20_000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--url", help="a running Qdrant server; default: start the embedded one")
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--quantization", choices=DENSE_QUANTIZATIONS, default=DENSE_QUANTIZATIONS[0],
                   help="the dense vector's storage (storage.qdrant.dense_quantization)")
    p.add_argument("--batch", type=int, default=256, help="points per upsert request")
    p.add_argument("--limit", type=int, default=60, help="candidates per prefetch and fused (ELF's candidate_k)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--optimize-timeout", type=float, default=900.0, help="seconds to wait for status green")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    """Entry point for `elf-bench qdrant`."""
    args = parse_args(argv)
    if args.url:
        return run(args.url, args)
    with tempfile.TemporaryDirectory(prefix="elf-qdrant-bench-") as tmp:
        server = EmbeddedQdrant(Path(tmp) / "data", Path(tmp) / "server.log")
        server.start()
        try:
            return run(server.url, args)
        finally:
            server.stop()
