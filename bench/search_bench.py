"""elf-bench search -c elf.toml: search latency at growing note counts against a running ELF (`make run`).

For each size (default 1k, 10k, 100k, cumulative under one fresh tenant) the notes are bulk-loaded the way
the indexing worker would leave them: rows in memory_notes / memory_note_chunks / note_chunk_embeddings /
note_embeddings (binary COPY) and one Qdrant point per note (dense + BM25). Texts are LoCoMo dialogue
sentences; only the ~12k distinct sentences are embedded with the local model, and a note repeating a
sentence gets that vector plus small Gaussian noise (re-normalised) and a distinct suffix, so 100k notes
load in minutes instead of hours of embedding. Queries are LoCoMo questions, sent over HTTP to
POST /v2/searches in both modes; server time comes from the Server-Timing header.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid
from datetime import datetime, timezone

import numpy as np
import psycopg
import requests
from pgvector.psycopg import register_vector
from qdrant_client import QdrantClient

from bench.add_note_bench import LOCOMO, sentences
from elf_infra.index import bm25
from elf_infra.index.notes_collection import chunk_point, ensure_notes_collection
from elf_infra.providers.local_embedder import LocalEmbedder
from bench.target import loopback_base_url
from elf_config import load_config

NOISE = 0.02
UPSERT_BATCH = 512


def questions(n: int) -> list[str]:
    data = json.loads(LOCOMO.read_text())
    qs = [qa["question"] for conv in data for qa in conv.get("qa", []) if qa.get("question", "").isascii()]
    return qs[:n]


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(p * len(values)) - 1))]


class Loader:
    def __init__(self, cfg, tenant: str):
        self.cfg, self.tenant = cfg, tenant
        self.base = sentences(20000)
        t0 = time.perf_counter()
        self.base_vecs = np.asarray(LocalEmbedder(cfg.providers.embedding.model).embed(self.base), dtype=np.float32)
        print(f"embedded {len(self.base)} distinct sentences in {time.perf_counter() - t0:.1f} s", flush=True)
        self.rng = np.random.default_rng(7)
        self.loaded = 0
        self.qdrant = QdrantClient(url=cfg.storage.qdrant.url, timeout=120)
        ensure_notes_collection(self.qdrant, cfg.storage.qdrant.collection, cfg.storage.qdrant.vector_dim)

    def _note(self, i: int) -> tuple[str, np.ndarray]:
        j, rep = i % len(self.base), i // len(self.base)
        if rep == 0:
            return self.base[j], self.base_vecs[j]
        v = self.base_vecs[j] + self.rng.normal(0, NOISE, self.base_vecs.shape[1]).astype(np.float32)
        return f"{self.base[j]} (copy {rep})", v / np.linalg.norm(v)

    def load_to(self, total: int) -> float:
        t0 = time.perf_counter()
        cfg, ev, dim = self.cfg, self.cfg.embedding_version, self.cfg.storage.qdrant.vector_dim
        now = datetime.now(timezone.utc)
        rows = []
        for i in range(self.loaded, total):
            text, vec = self._note(i)
            rows.append((uuid.uuid4(), uuid.uuid4(), text, vec))
        with psycopg.connect(cfg.storage.postgres.dsn) as conn:
            register_vector(conn)
            with conn.cursor() as cur:
                with cur.copy("COPY memory_notes (note_id, tenant_id, project_id, agent_id, scope, type, text, importance, "
                              "confidence, status, created_at, updated_at, embedding_version, source_ref) "
                              "FROM STDIN WITH (FORMAT BINARY)") as cp:
                    cp.set_types(["uuid", "text", "text", "text", "text", "text", "text", "real", "real", "text",
                                  "timestamptz", "timestamptz", "text", "jsonb"])
                    for note_id, _, text, _ in rows:
                        cp.write_row((note_id, self.tenant, "bench", "agent-0", "agent_private", "fact", text, 0.5, 0.9,
                                      "active", now, now, ev, psycopg.types.json.Jsonb({})))
                with cur.copy("COPY memory_note_chunks (chunk_id, note_id, chunk_index, start_offset, end_offset, text, "
                              "embedding_version) FROM STDIN WITH (FORMAT BINARY)") as cp:
                    cp.set_types(["uuid", "uuid", "int4", "int4", "int4", "text", "text"])
                    for note_id, chunk_id, text, _ in rows:
                        cp.write_row((chunk_id, note_id, 0, 0, len(text.encode()), text, ev))
                for table, key in (("note_chunk_embeddings", "chunk_id"), ("note_embeddings", "note_id")):
                    with cur.copy(f"COPY {table} ({key}, embedding_version, embedding_dim, vec) "
                                  "FROM STDIN WITH (FORMAT BINARY)") as cp:
                        cp.set_types(["uuid", "text", "int4", "vector"])
                        for note_id, chunk_id, _, vec in rows:
                            cp.write_row((chunk_id if key == "chunk_id" else note_id, ev, dim, vec))
        for b in range(0, len(rows), UPSERT_BATCH):
            points = [chunk_point(chunk_id=c, note_id=n, chunk_index=0, start_offset=0, end_offset=len(t.encode()),
                                  tenant_id=self.tenant, project_id="bench", agent_id="agent-0", scope="agent_private",
                                  note_type="fact", key=None, status="active", updated_at=now, expires_at=None,
                                  importance=0.5, confidence=0.9, embedding_version=ev, dense=v,
                                  bm25=bm25.embed_document(t))
                      for n, c, t, v in rows[b : b + UPSERT_BATCH]]
            self.qdrant.upsert(cfg.storage.qdrant.collection, points=points, wait=True)
        self.loaded = total
        return time.perf_counter() - t0

    def wait_green(self, timeout: float = 900) -> float:
        t0 = time.perf_counter()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            info = self.qdrant.get_collection(self.cfg.storage.qdrant.collection)
            if str(info.status).lower().endswith("green"):
                break
            time.sleep(1)
        return time.perf_counter() - t0


def run_queries(base: str, tenant: str, qs: list[str], mode: str) -> tuple[list[float], list[float]]:
    session = requests.Session()
    hdr = {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "bench", "X-ELF-Agent-Id": "agent-0",
           "X-ELF-Read-Profile": "private_only"}
    server, client = [], []
    for q in qs:
        t0 = time.perf_counter()
        r = session.post(f"{base}/v2/searches", json={"query": q, "mode": mode}, headers=hdr, timeout=120)
        client.append((time.perf_counter() - t0) * 1000)
        r.raise_for_status()
        server.append(float(r.headers["Server-Timing"].split("dur=")[1]))
    return server, client


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench search", description=__doc__)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = loopback_base_url(cfg.service.http_bind)
    requests.get(base + "/health", timeout=10).raise_for_status()
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    loader = Loader(cfg, tenant)
    qs = questions(args.queries)
    run_queries(base, tenant, qs[:5], "quick_find")  # warm-up: models loaded in the API workers
    for size in (int(s) for s in args.sizes.split(",")):
        load_s = loader.load_to(size)
        green_s = loader.wait_green()
        print(f"loaded {size} notes ({load_s:.1f} s load, {green_s:.1f} s until the index was optimized)", flush=True)
        for mode in ("quick_find", "planned_search"):
            server, client = run_queries(base, tenant, qs, mode)
            print(f"search {mode} @ {size} notes (n={len(qs)}): server p50={statistics.median(server):.1f} ms "
                  f"p95={_pct(server, 0.95):.1f} ms; client p50={statistics.median(client):.1f} ms "
                  f"p95={_pct(client, 0.95):.1f} ms", flush=True)
    return 0
