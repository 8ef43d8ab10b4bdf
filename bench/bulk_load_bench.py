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
from elf_config import load_config
from elf_infra.index import bm25
from elf_infra.index.notes_collection import chunk_point, ensure_notes_collection
from elf_infra.providers.local_embedder import LocalEmbedder

ROOT = Path(__file__).resolve().parents[1]
DISTINCT = 20000
FLOOR_BLOCK = 20000  # rows of COPY text prepared, then copied (timed), at a time
POINT_BLOCK = 512
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


# --- the floor: COPY alone -------------------------------------------------------------------------------


def _copy_field(value) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, (dict, list)):
        value = json.dumps(value)
    elif not isinstance(value, str):
        return str(value)
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def copy_floor(conn: psycopg.Connection, path: Path, *, tenant: str, floor_tenant: str) -> tuple[float, int]:
    """COPY the file's rows under ``floor_tenant`` into their tables, COPY text prepared a block at a time
    and only the COPY statements timed; returns (seconds, rows)."""
    copied, rows = 0.0, 0
    block: list[str] = []
    columns: list[str] = []
    kind = ""

    def flush() -> None:
        nonlocal copied, block
        if not block:
            return
        data = "\n".join(block) + "\n"
        t0 = time.perf_counter()
        with conn.cursor() as cur, cur.copy(f"COPY {kind} ({', '.join(columns)}) FROM STDIN") as cp:
            cp.write(data)
        conn.commit()
        copied += time.perf_counter() - t0
        block = []

    with path.open(encoding="utf-8") as lines:
        next(lines)
        for line in lines:
            record = json.loads(line)
            if record["kind"] == "elf_export_end":
                break
            if record["kind"] != kind:
                flush()
                kind, columns = record["kind"], list(record["row"])
            row = record["row"]
            if "tenant_id" in row:
                row["tenant_id"] = floor_tenant
            if isinstance(row.get("new_snapshot"), dict):
                row["new_snapshot"]["tenant_id"] = floor_tenant
            block.append("\t".join(_copy_field(row[c]) for c in columns))
            rows += 1
            if len(block) >= FLOOR_BLOCK:
                flush()
    flush()
    assert tenant != floor_tenant
    return copied, rows


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


def pending(conn: psycopg.Connection, tenant: str) -> tuple[int, int]:
    """(PENDING or FAILED, DONE) outbox rows of the tenant's notes."""
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE o.status <> 'DONE'), count(*) FILTER (WHERE o.status = 'DONE') "
        "FROM indexing_outbox o JOIN memory_notes n USING (note_id) WHERE n.tenant_id = %s", (tenant,)).fetchone()
    conn.commit()
    return row[0], row[1]


def watch_drain(conn: psycopg.Connection, tenant: str, total: int, seconds: float) -> tuple[float, int]:
    """Poll the outbox until the tenant's rows are DONE or ``seconds`` passed; (elapsed, rows done)."""
    t0 = time.perf_counter()
    done = 0
    while time.perf_counter() - t0 < seconds:
        left, done = pending(conn, tenant)
        if left == 0:
            break
        time.sleep(2)
    return time.perf_counter() - t0, done


def upsert_floor(cfg, conn: psycopg.Connection, tenant: str) -> tuple[float, int]:
    """Upsert the tenant's points (built beforehand from the Postgres rows, a block at a time) into a scratch
    collection of the notes' shape; only the upserts are timed. (seconds, points)."""
    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=300)
    name = f"{cfg.storage.qdrant.collection}_bulkfloor"
    if client.collection_exists(name):
        client.delete_collection(name)
    ensure_notes_collection(client, name, cfg.storage.qdrant.vector_dim)
    spent, points = 0.0, 0
    try:
        with conn.cursor(name="floor_points") as cur:
            cur.itersize = POINT_BLOCK
            cur.execute(
                "SELECT c.chunk_id, n.note_id, c.chunk_index, c.start_offset, c.end_offset, c.text, n.project_id, "
                "n.agent_id, n.scope, n.type, n.key, n.status, n.updated_at, n.expires_at, n.importance, "
                "n.confidence, e.vec::text FROM memory_note_chunks c JOIN memory_notes n USING (note_id) "
                "JOIN note_chunk_embeddings e ON e.chunk_id = c.chunk_id AND e.embedding_version = %s "
                "WHERE n.tenant_id = %s ORDER BY c.chunk_id", (cfg.embedding_version, tenant))
            while batch := cur.fetchmany(POINT_BLOCK):
                block = [
                    chunk_point(chunk_id=r[0], note_id=r[1], chunk_index=r[2], start_offset=r[3], end_offset=r[4],
                                tenant_id=tenant, project_id=r[6], agent_id=r[7], scope=r[8], note_type=r[9],
                                key=r[10], status=r[11], updated_at=r[12], expires_at=r[13], importance=r[14],
                                confidence=r[15], embedding_version=cfg.embedding_version,
                                dense=json.loads(r[16]), bm25=bm25.embed_document(r[5]))
                    for r in batch
                ]
                t0 = time.perf_counter()
                client.upsert(name, points=block, wait=True)
                spent += time.perf_counter() - t0
                points += len(block)
        conn.commit()
    finally:
        client.delete_collection(name)
    return spent, points


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-bench bulk-load", description=__doc__.split("\n")[0])
    parser.add_argument("-c", "--config", default="elf.toml")
    parser.add_argument("--notes", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help="leave the imported tenant and the export file")
    parser.add_argument("--drain-seconds", type=float, default=300,
                        help="how long to watch the worker drain the import's outbox rows (default 300)")
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="folder for the export file (default: /tmp)")
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    n = args.notes
    stamp = uuid.uuid4().hex[:8]
    tenant, floor_tenant = f"bulk-{stamp}", f"bulkfloor-{stamp}"
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"bulk-{stamp}.jsonl"
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
        import_s, done = manage(args.config, "import_tenant", "--in", str(path))
        import_load = load_average()
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return 1
        report = json.loads(done.stdout)
        assert report["counts"] == dict.fromkeys(KINDS, n) and report["reindex"]["notes"] == n, report
        print()
        print(f"| load ({n:,} notes, {rows:,} rows) | seconds | rows/s | notes/s | load average |")
        print("|---|---|---|---|---|")
        print(f"| manage.py import_tenant (COPY) | {import_s:.1f} | {rate(rows, import_s)} | "
              f"{n / import_s:,.0f} | {import_load} |")
        print(f"| floor: COPY alone, same rows | {floor_s:.1f} | {rate(rows, floor_s)} | {n / floor_s:,.0f} | "
              f"{floor_load} |")
        print(f"| ratio import / floor | {import_s / floor_s:.2f}x | | | |")
        print(flush=True)

        drain_s, drained = watch_drain(conn, tenant, n, args.drain_seconds)
        drain_load = load_average()
        finished = drained >= n
        if not finished:
            left = conn.execute("UPDATE indexing_outbox o SET status = 'DONE', updated_at = now() FROM memory_notes n "
                                "WHERE o.note_id = n.note_id AND n.tenant_id = %s AND o.status <> 'DONE'",
                                (tenant,)).rowcount
            conn.commit()
            print(f"worker: {drained} of {n} outbox rows DONE after {drain_s:.0f} s; the bench settled the other "
                  f"{left} (rebuild_qdrant indexes them below)", flush=True)
        rebuild_s, rebuilt = manage(args.config, "rebuild_qdrant")
        rebuild_load = load_average()
        if rebuilt.returncode != 0:
            print(rebuilt.stdout, rebuilt.stderr, file=sys.stderr)
            return 1
        rebuild_report = json.loads(rebuilt.stdout)
        points = rebuild_report["rebuilt_count"]
        upsert_s, upserted = upsert_floor(cfg, conn, tenant)
        upsert_load = load_average()
        worker_rate = drained / drain_s if drain_s > 0 else 0
        print()
        print(f"| searchable ({n:,} notes) | seconds | notes/s | load average |")
        print("|---|---|---|---|")
        worker_label = "outbox drained" if finished else f"{drained:,} rows in {drain_s:.0f} s, all at that rate"
        worker_total = drain_s if finished else (n / worker_rate if worker_rate else float("inf"))
        print(f"| worker ({worker_label}) | {worker_total:.0f} | {worker_rate:,.0f} | {drain_load} |")
        print(f"| manage.py rebuild_qdrant ({points:,} points, all tenants) | {rebuild_s:.1f} | "
              f"{points / rebuild_s:,.0f} | {rebuild_load} |")
        print(f"| floor: Qdrant upsert of the same {upserted:,} points alone | {upsert_s:.1f} | "
              f"{upserted / upsert_s:,.0f} | {upsert_load} |")
        print(f"| ratio rebuild_qdrant / floor | {rebuild_s / upsert_s:.2f}x | | |")
        print(f"| import + rebuild_qdrant | {import_s + rebuild_s:.1f} | {n / (import_s + rebuild_s):,.0f} | |")
        print(flush=True)
        return 0
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
