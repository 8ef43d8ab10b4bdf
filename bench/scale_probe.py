"""What elf-bench scale reads besides latency: the approximate search's overlap with exact search, the memory of
each process of the running stack, and the disk per note in Postgres and Qdrant.

- overlap@10: per sample query, the dense leg of a search as the service sends it (the query's embedding, the
  read rule's payload filter, limit candidate_k, the collection's HNSW, rescored when the vectors are int8), its
  first 10, beside the exact top 10: ``SearchParams(exact=True)``, quantization ignored (a full scan of the
  points the filter admits, float vectors); the share of the exact top 10 the approximate first 10 hold,
  averaged over the sample. (The BM25 leg reads an inverted index and is exact.)
- memory: per process of the stack (found by its command line: the config file for elf-api and elf-worker,
  the port for Postgres, Qdrant and Redis), its PSS (shared pages split among the processes sharing them, so
  the sum of a group does not count Postgres' shared buffers or a forked worker's shared pages twice) and RSS.
- disk: pg_total_relation_size (table, TOAST, indexes) of the four notes tables over the notes they hold; the
  Qdrant collection's folder under the embedded stack's data dir (not the copy an optimization works on) over
  its points.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil
import psycopg
from qdrant_client import QdrantClient, models

from elf_config import ElfConfig
from elf_infra.index import collection_facts
from elf_infra.index.hybrid import DENSE_VECTOR, dense_search_params
from elf_infra.index.notes_collection import read_filter
from elf_infra.index.search_breadth import dense_params
from elf_infra.providers.factory import build_embedding

NOTES_TABLES = ("memory_notes", "memory_note_chunks", "note_chunk_embeddings", "note_embeddings")
TOP = 10
SERVICE_EF = 0  # in overlap_by_ef's ``efs``: the ef the service would send (search_breadth), not a fixed one
# The truth: every point the filter admits, scored with its float vector (a quantized copy, if any, is not read).
EXACT = models.SearchParams(exact=True, quantization=models.QuantizationSearchParams(ignore=True))


def overlap_at_10(cfg: ElfConfig, queries: Sequence[str], *, tenant: str, project: str, agent: str,
                  read_profile: str) -> float:
    """Mean over ``queries`` of |approximate top 10 & exact top 10| / |exact top 10| for the dense leg, searched as
    the service searches it (elf_infra.index.search_breadth)."""
    return overlap_by_ef(cfg, queries, tenant=tenant, project=project, agent=agent, read_profile=read_profile,
                         efs=[SERVICE_EF])[0].overlap


@dataclass(frozen=True)
class EfOverlap:
    """The dense leg at one hnsw_ef (None: Qdrant's default): overlap@10 with exact search and the approximate
    request's wall time per query (ms, limit candidate_k, one request at a time)."""

    ef: int | None
    overlap: float
    ms: list[float]


def overlap_by_ef(cfg: ElfConfig, queries: Sequence[str], *, tenant: str, project: str, agent: str,
                  read_profile: str, efs: Sequence[int]) -> list[EfOverlap]:
    """overlap@10 at each ef of ``efs`` (SERVICE_EF: the service's), each query's exact top 10 read once."""
    embedder = build_embedding(cfg)
    vectors = embedder.embed(list(queries))
    collection = cfg.storage.qdrant.collection
    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=300)
    flt = read_filter(tenant_id=tenant, project_id=project, agent_id=agent,
                      scopes=list(cfg.scopes.read_profiles[read_profile]),
                      by=collection_facts.facts(client, collection).read_by)
    params = [dense_params(client, collection) if ef == SERVICE_EF else dense_search_params(ef) for ef in efs]
    shares: list[list[float]] = [[] for _ in efs]
    times: list[list[float]] = [[] for _ in efs]

    def top(query: list[float], p: models.SearchParams | None, limit: int) -> set:
        """The first TOP of ``limit`` points (sorted by score): the dense leg asks for candidate_k, and with int8
        vectors which points come back rescored depends on how many are asked for."""
        return {pt.id for pt in client.query_points(collection, query=query, using=DENSE_VECTOR, query_filter=flt,
                                                    limit=limit, search_params=p, with_payload=False).points[:TOP]}
    try:
        for vec in vectors:
            query = [float(x) for x in vec]
            truth = top(query, EXACT, TOP)
            if not truth:
                continue
            for i, p in enumerate(params):
                t0 = time.perf_counter()
                found = top(query, p, cfg.memory.candidate_k)
                times[i].append((time.perf_counter() - t0) * 1000)
                shares[i].append(len(truth & found) / len(truth))
    finally:
        client.close()
    return [EfOverlap(None if p is None else p.hnsw_ef, sum(s) / len(s) if s else float("nan"), t)
            for p, s, t in zip(params, shares, times, strict=True)]


@dataclass(frozen=True)
class Memory:
    """One process of the stack: its role, pid and memory in bytes."""

    role: str
    pid: int
    pss: int
    rss: int


def _cmd(p: psutil.Process) -> list[str]:
    try:
        return p.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return []


def _with_children(roots: list[psutil.Process]) -> list[psutil.Process]:
    seen: dict[int, psutil.Process] = {}
    for r in roots:
        seen[r.pid] = r
        with contextlib.suppress(psutil.NoSuchProcess):
            seen.update((c.pid, c) for c in r.children(recursive=True))
    return list(seen.values())


def stack_processes(cfg: ElfConfig, config_path: str) -> dict[str, list[psutil.Process]]:
    """The stack's processes by role: elf-api (gunicorn master and workers), elf-worker, postgres, qdrant,
    redis. Roles with no process found (e.g. an external Qdrant) are left out."""
    pg_port = str(psycopg.conninfo.conninfo_to_dict(cfg.storage.postgres.dsn).get("port", 5432))
    qd_port = cfg.storage.qdrant.url.rstrip("/").rsplit(":", 1)[-1]
    redis_port = cfg.worker.broker_url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[-1]
    config = os.path.realpath(config_path)
    roots: dict[str, list[psutil.Process]] = {k: [] for k in ("elf-api", "elf-worker", "postgres", "qdrant", "redis")}
    for p in psutil.process_iter():
        cmd = _cmd(p)
        if not cmd:
            continue
        joined = " ".join(cmd)
        uses_config = any(os.path.realpath(a) == config for a in cmd if a.endswith(".toml"))
        if uses_config and any(a.endswith("elf-api") for a in cmd):
            roots["elf-api"].append(p)
        elif uses_config and any(a.endswith("elf-worker") for a in cmd):
            roots["elf-worker"].append(p)
        elif Path(cmd[0]).name == "postgres" and f"-p {pg_port}" in joined:
            roots["postgres"].append(p)
        elif "elf_infra.qdrant_server" in joined and f"--port {qd_port}" in joined:
            roots["qdrant"].append(p)
        elif "redis-server" in cmd[0] and f":{redis_port}" in joined:  # redis rewrites its title: one string
            roots["redis"].append(p)
    return {role: _with_children(ps) for role, ps in roots.items() if ps}


def memory(cfg: ElfConfig, config_path: str) -> list[Memory]:
    out = []
    for role, procs in stack_processes(cfg, config_path).items():
        for p in procs:
            try:
                info = p.memory_full_info()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            out.append(Memory(role, p.pid, getattr(info, "pss", info.rss), info.rss))
    return out


@dataclass(frozen=True)
class Disk:
    notes: int  # rows of memory_notes (every tenant's)
    postgres_bytes: int  # the four notes tables with their TOAST and indexes
    points: int  # points of the notes collection
    qdrant_bytes: int | None  # its folder, when the stack is the embedded one (else None)

    @property
    def postgres_per_note(self) -> float:
        return self.postgres_bytes / max(self.notes, 1)

    @property
    def qdrant_per_point(self) -> float | None:
        return None if self.qdrant_bytes is None else self.qdrant_bytes / max(self.points, 1)


SHADOW = "shard.optimizing"  # the embedded Qdrant's working copy while it optimizes (elf_infra.qdrant_server)


def _folder_bytes(path: Path) -> int:
    total = 0
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != SHADOW]
        for f in files:
            with contextlib.suppress(FileNotFoundError):  # an optimization swapped it away meanwhile
                total += os.stat(os.path.join(root, f)).st_blocks * 512  # allocated, not apparent, size
    return total


def disk(cfg: ElfConfig) -> Disk:
    with psycopg.connect(cfg.storage.postgres.dsn, autocommit=True) as conn:
        notes = conn.execute("SELECT count(*) FROM memory_notes").fetchone()[0]
        size = conn.execute("SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest(%s::text[]) t",
                            [list(NOTES_TABLES)]).fetchone()[0]
    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=60)
    try:
        points = client.count(cfg.storage.qdrant.collection, exact=True).count
    finally:
        client.close()
    folder = Path(cfg.resolve_path(cfg.stack.data_dir)) / "qdrant" / "collections" / cfg.storage.qdrant.collection
    return Disk(notes, int(size), points, _folder_bytes(folder) if folder.is_dir() else None)
