"""elf-bench bulk-load -c elf.toml [--notes N] [--keep]: the bulk load path of issue 35, each figure beside its
floor, against a running ELF (`make run`: its Postgres, Qdrant and worker).

1. An export file (manage.py export_tenant's format, with vectors) of N synthetic notes of a fresh tenant:
   per note its memory_notes row, its ADD version, its ingest decision, one chunk, the chunk's vector and the
   note's vector. Texts are LoCoMo dialogue sentences; only the distinct sentences (at most 20k) are embedded
   with the local model, and a note repeating a sentence gets that vector plus small Gaussian noise and a
   distinct suffix (as bench.search_bench loads its notes).
2. The floor: the same rows under another tenant id, COPY alone (COPY text prepared beforehand, only the COPY
   statements timed) into the same tables, then deleted again (and the tables vacuumed).
3. ``manage.py import_tenant --in FILE``: its wall time, rows/s and the ratio to the floor.
4. Searchable: the worker drains the import's outbox rows (reusing the exported vectors: no embedding call);
   the bench watches it for --drain-seconds and reports its rate (and, when it has not finished, the time it
   would take at that rate). Then the rows still PENDING are settled by the bench and ``manage.py
   rebuild_qdrant`` (Qdrant rebuilt from the Postgres vectors) is timed, beside its floor: the upsert of the
   same points alone into a scratch collection (points built beforehand, only the upserts timed).
   With --index-now, step 3 is ``import_tenant --index-now`` (the rows, then the points from this process) and
   its floor the COPY floor plus the upsert floor; step 4 is left out.

The load average is printed beside the figures: other processes share the CPU. Without --keep the imported
tenant is deleted at the end (its rows, outbox rows and points).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import psycopg
from qdrant_client import QdrantClient, models

from bench.add_note_bench import load_average, sentences
from bench.bulk_load_floor import copy_floor, upsert_floor
from elf_config import load_config
from elf_infra.providers.local_embedder import LocalEmbedder

ROOT = Path(__file__).resolve().parents[1]
DISTINCT = 20000
POLL_S = 5
# The kinds the file holds, in the export's order (the import wants each kind's records together).
KINDS = ("memory_notes", "memory_note_versions", "memory_ingest_decisions", "memory_note_chunks",
         "note_chunk_embeddings", "note_embeddings")
PER_NOTE = len(KINDS)
NOISE = 0.02  # as bench.search_bench: a repeated sentence's vector plus this Gaussian noise, re-normalised
PROJECT, AGENT = "bench", "agent-0"


class Corpus:
    """The notes: text and unit vector of note ``i``, the same on every call."""

    def __init__(self, model: str, notes: int):
        self.base = sentences(min(DISTINCT, notes))
        t0 = time.perf_counter()
        self.base_vecs = np.asarray(LocalEmbedder(model).embed(self.base), dtype=np.float32)
        print(f"embedded {len(self.base)} distinct sentences in {time.perf_counter() - t0:.1f} s", flush=True)

    def notes(self, n: int) -> Iterator[tuple[str, str]]:
        """(text, vector as pgvector text) of notes 0..n-1."""
        rng = np.random.default_rng(7)
        dim = self.base_vecs.shape[1]
        spelled = "[" + ",".join(["%.8g"] * dim) + "]"  # pgvector reads it as the float4 nearest
        for i in range(n):
            j, rep = i % len(self.base), i // len(self.base)
            if rep == 0:
                text, v = self.base[j], self.base_vecs[j]
            else:
                v = self.base_vecs[j] + rng.normal(0, NOISE, dim).astype(np.float32)
                text, v = f"{self.base[j]} (copy {rep})", v / np.linalg.norm(v)
            yield text, spelled % tuple(v.tolist())


def note_rows(i: int, text: str, vec: str, *, tenant: str, version: str, dim: int, now: datetime) -> dict[str, dict]:
    """The rows of one note, as export_tenant writes them (to_jsonb's spelling)."""
    base = uuid.uuid4().hex
    note_id, chunk_id, version_id, decision_id = (str(uuid.UUID(base[:-1] + c)) for c in "0123")
    ts = (now - timedelta(seconds=i)).isoformat()
    note = {"key": None, "text": text, "type": "fact", "scope": "agent_private", "status": "active", "context": "",
            "note_id": note_id, "agent_id": AGENT, "hit_count": 0, "tenant_id": tenant, "confidence": 0.9,
            "created_at": ts, "expires_at": None, "importance": 0.5, "project_id": PROJECT, "source_ref": {},
            "updated_at": ts, "last_hit_at": None, "observed_at": None, "embedding_version": version}
    snapshot = {k: v for k, v in note.items() if k not in ("hit_count", "last_hit_at", "created_at")}
    return {
        "memory_notes": note,
        "memory_note_versions": {"op": "ADD", "ts": ts, "actor": f"agent:{AGENT}", "reason": "add_note",
                                 "note_id": note_id, "version_id": version_id, "new_snapshot": snapshot,
                                 "prev_snapshot": None},
        "memory_ingest_decisions": {
            "ts": ts, "scope": "agent_private", "note_id": note_id, "note_op": "ADD", "agent_id": AGENT,
            "note_key": None, "pipeline": "add_note", "note_type": "fact", "tenant_id": tenant,
            "project_id": PROJECT, "decision_id": decision_id, "reason_code": None, "base_decision": "remember",
            "policy_decision": "remember",
            "details": {"key_match": False, "confidence": 0.9, "importance": 0.5, "matched_dup": False,
                        "policy_rule": None, "similarity_best": None, "dup_sim_threshold": 0.92,
                        "update_sim_threshold": 0.85}},
        "memory_note_chunks": {"text": text, "note_id": note_id, "chunk_id": chunk_id, "created_at": ts,
                               "end_offset": len(text.encode()), "chunk_index": 0, "start_offset": 0,
                               "embedding_version": version},
        "note_chunk_embeddings": {"vec": vec, "chunk_id": chunk_id, "created_at": ts, "embedding_dim": dim,
                                  "embedding_version": version},
        "note_embeddings": {"vec": vec, "note_id": note_id, "created_at": ts, "embedding_dim": dim,
                            "embedding_version": version},
    }


def write_export(path: Path, corpus: Corpus, n: int, *, tenant: str, cfg, schema_version: int) -> int:
    """Write the export file (one pass: each kind to a file of its own, then joined in order); its size."""
    now = datetime.now(UTC)
    version, dim = cfg.embedding_version, cfg.storage.qdrant.vector_dim
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        parts = {kind: open(Path(tmp) / kind, "w", encoding="utf-8") for kind in KINDS}  # noqa: SIM115
        prefix = {kind: '{"kind":' + json.dumps(kind) + ',"row":' for kind in KINDS}
        for i, (text, vec) in enumerate(corpus.notes(n)):
            for kind, row in note_rows(i, text, vec, tenant=tenant, version=version, dim=dim, now=now).items():
                parts[kind].write(prefix[kind] + json.dumps(row) + "}\n")
        header = {"kind": "elf_export", "format": "elf_export/v1", "tenant_id": tenant, "project_id": None,
                  "with_vectors": True, "schema_version": schema_version, "embedding_version": version,
                  "vector_dim": dim, "exported_at": now.isoformat()}
        with path.open("w", encoding="utf-8") as out:
            out.write(json.dumps(header) + "\n")
            for kind in KINDS:
                parts[kind].close()
                with (Path(tmp) / kind).open(encoding="utf-8") as part:
                    shutil.copyfileobj(part, out, 1 << 20)
            out.write(json.dumps({"kind": "elf_export_end", "counts": dict.fromkeys(KINDS, n)}) + "\n")
    print(f"export file: {n} notes, {n * PER_NOTE} rows, {path.stat().st_size / 2**30:.2f} GiB "
          f"written in {time.perf_counter() - t0:.0f} s", flush=True)
    return path.stat().st_size


def delete_tenant(conn: psycopg.Connection, tenant: str) -> None:
    """Remove the bench tenant's rows (notes cascade to chunks and vectors) and vacuum the tables."""
    with conn.cursor() as cur:
        cur.execute("DELETE FROM indexing_outbox o USING memory_notes n WHERE o.note_id = n.note_id "
                    "AND n.tenant_id = %s", (tenant,))
        cur.execute("DELETE FROM memory_note_versions WHERE new_snapshot ->> 'tenant_id' = %s", (tenant,))
        cur.execute("DELETE FROM memory_ingest_decisions WHERE tenant_id = %s", (tenant,))
        cur.execute("DELETE FROM memory_notes WHERE tenant_id = %s", (tenant,))
    conn.commit()
    conn.autocommit = True
    for table in ("memory_notes", "memory_note_versions", "memory_ingest_decisions", "memory_note_chunks",
                  "note_chunk_embeddings", "note_embeddings", "indexing_outbox"):
        conn.execute(f"VACUUM ANALYZE {table}")
    conn.autocommit = False


# --- searchable ------------------------------------------------------------------------------------------


def pending(conn: psycopg.Connection, since) -> int:
    """Outbox rows written since ``since`` (the import's) that are not DONE: one scan of the outbox alone (a
    join with a million notes every poll would take a core from the worker it watches)."""
    (left,) = conn.execute("SELECT count(*) FROM indexing_outbox WHERE created_at >= %s AND status <> 'DONE'",
                           (since,)).fetchone()
    conn.commit()
    return left


def watch_drain(conn: psycopg.Connection, since, total: int, seconds: float) -> tuple[float, int]:
    """Poll the outbox every POLL_S until the import's rows are DONE or ``seconds`` passed; (elapsed, rows
    done)."""
    t0 = time.perf_counter()
    done = 0
    while time.perf_counter() - t0 < seconds:
        done = total - pending(conn, since)
        if done >= total:
            break
        time.sleep(POLL_S)
    return time.perf_counter() - t0, done


def delete_points(cfg, tenant: str) -> None:
    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=300)
    client.delete(cfg.storage.qdrant.collection, points_selector=models.FilterSelector(filter=models.Filter(
        must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant))])), wait=True)


def manage(config: str, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "manage.py"), "-c", config, *args], capture_output=True,
                          text=True)
    return time.perf_counter() - t0, done


def rate(rows: int, seconds: float) -> str:
    return f"{rows / seconds:,.0f} rows/s" if seconds > 0 else "-"


def load_table(n: int, rows: int, entries: list[tuple[str, float, str]]) -> None:
    """The load table: (label, seconds, load average) per entry, then the ratio of the first to the second."""
    print()
    print(f"| load ({n:,} notes, {rows:,} rows) | seconds | rows/s | notes/s | load average |")
    print("|---|---|---|---|---|")
    for label, seconds, load in entries:
        print(f"| {label} | {seconds:.2f} | {rate(rows, seconds)} | {n / seconds:,.0f} | {load} |")
    print(f"| ratio import / floor | {entries[0][1] / entries[1][1]:.2f}x | | | |")
    print(flush=True)


def searchable_by_worker_then_rebuild(args, cfg, conn, n: int, since, tenant: str) -> int:
    """Watch the worker drain the import's outbox rows, settle the rest, time rebuild_qdrant beside the upsert
    floor."""
    drain_s, drained = watch_drain(conn, since, n, args.drain_seconds)
    drain_load = load_average()
    finished = drained >= n
    if not finished:
        left = conn.execute("UPDATE indexing_outbox SET status = 'DONE', updated_at = now() "
                            "WHERE created_at >= %s AND status <> 'DONE'", (since,)).rowcount
        conn.commit()
        print(f"worker: {drained} of {n} outbox rows DONE after {drain_s:.0f} s; the bench settled the other "
              f"{left} (rebuild_qdrant indexes them below)", flush=True)
    rebuild_s, rebuilt = manage(args.config, "rebuild_qdrant")
    rebuild_load = load_average()
    if not rebuilt.stdout.strip():
        print(rebuilt.stderr, file=sys.stderr)
        return 1
    rebuild_report = json.loads(rebuilt.stdout)
    points, errors = rebuild_report["rebuilt_count"], rebuild_report["error_count"]
    upsert_s, upserted = upsert_floor(cfg, conn, tenant)
    upsert_load = load_average()
    worker_rate = drained / drain_s if drain_s > 0 else 0
    print()
    print(f"| searchable ({n:,} notes) | seconds | notes/s | load average |")
    print("|---|---|---|---|")
    worker_label = "outbox drained" if finished else f"{drained:,} rows in {drain_s:.0f} s, all at that rate"
    worker_total = drain_s if finished else (n / worker_rate if worker_rate else float("inf"))
    print(f"| worker ({worker_label}) | {worker_total:.0f} | {worker_rate:,.0f} | {drain_load} |")
    refused = f", {errors:,} refused by Qdrant" if errors else ""
    print(f"| manage.py rebuild_qdrant ({points:,} points, all tenants{refused}) | {rebuild_s:.1f} | "
          f"{points / rebuild_s:,.0f} | {rebuild_load} |")
    print(f"| floor: Qdrant upsert of the same {upserted:,} points alone | {upsert_s:.1f} | "
          f"{upserted / upsert_s:,.0f} | {upsert_load} |")
    print(f"| ratio rebuild_qdrant / floor | {rebuild_s / upsert_s:.2f}x | | |")
    print(flush=True)
    return 1 if errors else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-bench bulk-load", description=__doc__.split("\n")[0])
    parser.add_argument("-c", "--config", default="elf.toml")
    parser.add_argument("--notes", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help="leave the imported tenant and the export file")
    parser.add_argument("--index-now", action="store_true",
                        help="import with --index-now (rows and points in one command) instead of measuring the "
                             "worker and rebuild_qdrant after a plain import")
    parser.add_argument("--drain-seconds", type=float, default=300,
                        help="how long to watch the worker drain the import's outbox rows (default 300)")
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="folder for the export file (default: /tmp)")
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    n = args.notes
    stamp = uuid.uuid4().hex[:8]
    tenant, floor_tenant = f"bulk-{stamp}", f"bulkfloor-{stamp}"
    path = Path(args.dir) / f"bulk-{stamp}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"elf-bench bulk-load: {n} notes, tenant {tenant}, load average {load_average()}", flush=True)
    conn = psycopg.connect(cfg.storage.postgres.dsn)
    try:
        schema = conn.execute("SELECT COALESCE(max(version), 0) FROM schema_version").fetchone()[0]
        conn.commit()
        write_export(path, Corpus(cfg.providers.embedding.model, n), n, tenant=tenant, cfg=cfg, schema_version=schema)
        rows = n * PER_NOTE

        print(f"floor: COPY alone under {floor_tenant} ...", flush=True)
        floor_s, floor_rows = copy_floor(conn, path, tenant=tenant, floor_tenant=floor_tenant)
        assert floor_rows == rows, (floor_rows, rows)
        floor_load = load_average()
        t0 = time.perf_counter()
        delete_tenant(conn, floor_tenant)
        print(f"floor rows deleted and vacuumed in {time.perf_counter() - t0:.0f} s", flush=True)

        print("import_tenant ...", flush=True)
        (since,) = conn.execute("SELECT now()").fetchone()
        conn.commit()
        import_s, done = manage(args.config, "import_tenant", "--in", str(path),
                                *(["--index-now"] if args.index_now else []))
        import_load = load_average()
        if not done.stdout.strip():  # refused (with --index-now, refused points exit 1 after the report)
            print(done.stdout, done.stderr, file=sys.stderr)
            return 1
        report = json.loads(done.stdout)
        assert report["counts"] == dict.fromkeys(KINDS, n), report
        if not args.index_now:
            assert report["reindex"]["notes"] == n, report
            load_table(n, rows, [("manage.py import_tenant (COPY)", import_s, import_load),
                                 ("floor: COPY alone, same rows", floor_s, floor_load)])
            return searchable_by_worker_then_rebuild(args, cfg, conn, n, since, tenant)
        indexed = report["indexed"]
        assert indexed["rebuilt_count"] + indexed["error_count"] == n, report
        upsert_s, upserted = upsert_floor(cfg, conn, tenant)
        refused = f"; {indexed['error_count']:,} points refused by Qdrant" if indexed["error_count"] else ""
        load_table(n, rows, [(f"manage.py import_tenant --index-now (COPY, then the points{refused})", import_s,
                              import_load),
                             (f"floor: COPY alone ({floor_s:.1f} s) + Qdrant upsert of the {upserted:,} points "
                              f"alone ({upsert_s:.1f} s)", floor_s + upsert_s, floor_load)])
        return 1 if indexed["error_count"] else 0
    finally:
        if not args.keep:
            with_rows = conn.execute("SELECT EXISTS (SELECT 1 FROM memory_notes WHERE tenant_id = %s)",
                                     (tenant,)).fetchone()[0]
            conn.commit()
            if with_rows:
                delete_tenant(conn, tenant)
                delete_points(cfg, tenant)
            path.unlink(missing_ok=True)
        conn.close()


if __name__ == "__main__":
    raise SystemExit(main())
