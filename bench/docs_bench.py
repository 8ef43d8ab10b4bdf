"""elf-bench docs -c elf.toml: the Doc Extension against a running ELF (`make run`: API and worker).

Writes N documents of 20-200 KiB (or all of --size-kb KiB) built from LoCoMo dialogue sentences (each
document a run of consecutive sentences, so every one reads like a transcript) under a fresh tenant through
POST /v2/docs, one client one after another (or --clients at once), then reports: put throughput; the time
until every document is searchable (its doc outbox rows DONE, read with the config's DSN); docs_search_l0
p50/p95 for LoCoMo questions; docs_excerpts_get p50/p95 (L1, by the hit's pointer). Each figure is printed
beside its floor, the same work done in-process in the same run: for a put, the same documents through the
English gate, chunked, hashed and written (one transaction each, chunks by COPY: bench.docs_floor) right
after the puts, while the worker indexes as it did during them; for L0, embedding the query and one hybrid
query on the doc collection; for an excerpt, reading the document from Postgres, slicing it and hashing the
slice.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg
import requests
from blake3 import blake3
from qdrant_client import QdrantClient

from bench import docs_floor
from bench.add_note_bench import sentences
from bench.search_bench import _pct, questions
from bench.target import loopback_base_url
from elf_config import load_config
from elf_infra.index import bm25
from elf_infra.index.hybrid import hybrid_query
from elf_infra.index.scope_filter import idf_corpus, scope_filter
from elf_infra.providers.local_embedder import LocalEmbedder

KIB = 1024


def documents(n: int, rng: random.Random, size_kib: int | None = None) -> list[str]:
    """``n`` documents of 20-200 KiB each, or of ``size_kib`` KiB (whole sentences: up to a line longer)."""
    pool = sentences(20000)
    docs = []
    for _ in range(n):
        size = size_kib * KIB if size_kib else rng.randint(20 * KIB, 200 * KIB)
        start = rng.randrange(len(pool))
        parts, total, i = [], 0, start
        while total < size:
            line = pool[i % len(pool)]
            parts.append(line)
            total += len(line) + 1
            i += 1
        docs.append("\n".join(parts))
    return docs


def put_all(base: str, hdr: dict[str, str], docs: list[str], clients: int) -> list[str]:
    """POST /v2/docs every document, ``clients`` at a time (each client one after another on its own
    connection); the doc ids in order."""
    local = threading.local()

    def put(content: str) -> str:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        r = local.session.post(f"{base}/v2/docs", json={"scope": "agent_private", "content": content}, headers=hdr,
                                timeout=120)
        r.raise_for_status()
        return r.json()["doc_id"]

    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(put, docs))


def _stats(values: list[float]) -> str:
    return f"p50={statistics.median(values):.1f} ms p95={_pct(values, 0.95):.1f} ms"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench docs", description=__doc__)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--size-kb", type=int, help="every document this many KiB (default: 20-200 KiB at random)")
    ap.add_argument("--clients", type=int, default=1, help="clients putting at once (default 1: one after another)")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=1800, help="seconds to wait until every document is indexed")
    ap.add_argument("--tenant", help="measure search and excerpts on the documents an earlier run put (no put)")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = loopback_base_url(cfg.service.http_bind)
    requests.get(base + "/health", timeout=10).raise_for_status()
    tenant = args.tenant or f"bench-docs-{uuid.uuid4().hex[:8]}"
    hdr = {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "bench", "X-ELF-Agent-Id": "agent-0"}
    session = requests.Session()
    docs = documents(args.docs, random.Random(7), args.size_kb)
    total_bytes = sum(len(d.encode()) for d in docs)

    t0 = time.perf_counter()
    ids = [] if args.tenant else put_all(base, hdr, docs, args.clients)
    put_s = time.perf_counter() - t0
    if not args.tenant:
        who = "one client, one after another" if args.clients == 1 else f"{args.clients} clients at once"
        print(f"put {len(docs)} documents ({total_bytes / KIB / KIB:.1f} MiB, {who}) in {put_s:.1f} s: "
              f"{len(docs) / put_s:.1f} docs/s, {total_bytes / KIB / KIB / put_s:.2f} MiB/s "
              f"(load average {os.getloadavg()[0]:.2f})", flush=True)
        print(f"  | {docs_floor.measure(cfg, docs).describe()} (load average {os.getloadavg()[0]:.2f})", flush=True)

    with psycopg.connect(cfg.storage.postgres.dsn) as conn:
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            pending = conn.execute(
                "SELECT count(*) FROM doc_indexing_outbox WHERE doc_id = ANY(%s) AND status <> 'DONE'", (ids,)
            ).fetchone()[0]
            if pending == 0:
                break
            time.sleep(1)
        searchable_s = time.perf_counter() - t0
        if not args.tenant:
            print(
                f"all searchable {searchable_s:.1f} s after the first put ({searchable_s - put_s:.1f} s after the last)"
                + ("" if pending == 0 else f"; {pending} outbox rows still pending at the timeout"),
                flush=True,
            )

        qs = questions(args.queries)
        l0_client, pointers = [], []
        for q in qs:
            t = time.perf_counter()
            r = session.post(f"{base}/v2/docs/search/l0", json={"query": q, "top_k": 10}, headers=hdr, timeout=60)
            l0_client.append((time.perf_counter() - t) * 1000)
            r.raise_for_status()
            pointers += [i["source_ref"] for i in r.json()["items"][:1]]
        embedder = LocalEmbedder(cfg.providers.embedding.model)
        qdrant = QdrantClient(url=cfg.storage.qdrant.url, timeout=60)
        flt = scope_filter(tenant_id=tenant, project_id="bench", agent_id="agent-0", scopes=["agent_private"])
        l0_floor = []
        for q in qs:
            t = time.perf_counter()
            hybrid_query(
                qdrant,
                cfg.storage.qdrant.docs_collection,
                embedder.embed([q])[0],
                bm25.embed_query(q),
                flt,
                64,
                with_payload=["doc_id"],
                idf_corpus=idf_corpus(tenant, "bench"),
            )
            l0_floor.append((time.perf_counter() - t) * 1000)
        print(
            f"docs_search_l0 (n={len(qs)}): {_stats(l0_client)} | floor, in-process embed + hybrid query: "
            f"{_stats(l0_floor)}",
            flush=True,
        )

        ex_client, ex_floor, verified = [], [], 0
        for p in pointers:
            body = {
                "doc_id": p["ref"]["doc_id"],
                "chunk_id": p["ref"]["chunk_id"],
                "level": "L1",
                "position": p["locator"]["position"],
                "state": p["state"],
            }
            t = time.perf_counter()
            r = session.post(f"{base}/v2/docs/excerpts", json=body, headers=hdr, timeout=60)
            ex_client.append((time.perf_counter() - t) * 1000)
            r.raise_for_status()
            verified += r.json()["verified"]
            t = time.perf_counter()
            content = conn.execute("SELECT content FROM doc_documents WHERE doc_id = %s", (body["doc_id"],)).fetchone()[
                0
            ]
            pos = body["position"]
            blake3(content.encode()[pos["start"] : pos["start"] + 8 * KIB]).hexdigest()
            ex_floor.append((time.perf_counter() - t) * 1000)
        print(
            f"docs_excerpts_get L1 (n={len(pointers)}, {verified} verified): {_stats(ex_client)} | floor, "
            f"in-process read + slice + hash: {_stats(ex_floor)}",
            flush=True,
        )
        print(json.dumps({"tenant": tenant, "docs": len(docs)}), flush=True)
    return 0
