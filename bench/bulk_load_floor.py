"""The floors of elf-bench bulk-load (bench/bulk_load_bench.py): the same rows with COPY alone, and the same
points with the Qdrant upsert alone, each prepared beforehand a block at a time so only the COPY statements and
the upserts are timed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import psycopg
from qdrant_client import QdrantClient

from elf_domain.speakers import speaker_label
from elf_infra.index import bm25
from elf_infra.index.notes_collection import chunk_point, ensure_notes_collection

FLOOR_BLOCK = 20000  # rows of COPY text prepared, then copied (timed), at a time
POINT_BLOCK = 512


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


def upsert_floor(cfg, conn: psycopg.Connection, tenant: str) -> tuple[float, int]:
    """Upsert the tenant's points (built beforehand from the Postgres rows, a block at a time) into a scratch
    collection of the notes' shape; only the upserts are timed. (seconds, points)."""
    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=300)
    name = f"{cfg.storage.qdrant.collection}_bulkfloor"
    if client.collection_exists(name):
        client.delete_collection(name)
    q = cfg.storage.qdrant
    ensure_notes_collection(client, name, q.vector_dim, quantization=q.dense_quantization)
    spent, points = 0.0, 0
    try:
        with conn.cursor(name="floor_points") as cur:
            cur.itersize = POINT_BLOCK
            cur.execute(
                "SELECT c.chunk_id, n.note_id, c.chunk_index, c.start_offset, c.end_offset, c.text, n.project_id, "
                "n.agent_id, n.scope, n.type, n.key, n.status, n.updated_at, n.expires_at, n.importance, "
                "n.confidence, e.vec::text, n.text FROM memory_note_chunks c JOIN memory_notes n USING (note_id) "
                "JOIN note_chunk_embeddings e ON e.chunk_id = c.chunk_id AND e.embedding_version = %s "
                "WHERE n.tenant_id = %s ORDER BY c.chunk_id", (cfg.embedding_version, tenant))
            while batch := cur.fetchmany(POINT_BLOCK):
                block = [
                    chunk_point(chunk_id=r[0], note_id=r[1], chunk_index=r[2], start_offset=r[3], end_offset=r[4],
                                tenant_id=tenant, project_id=r[6], agent_id=r[7], scope=r[8], note_type=r[9],
                                key=r[10], status=r[11], updated_at=r[12], expires_at=r[13], importance=r[14],
                                confidence=r[15], embedding_version=cfg.embedding_version,
                                dense=json.loads(r[16]), bm25=bm25.embed_document(r[5]),
                                speaker=speaker_label(r[17]))  # the note's label on every chunk, as the worker
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
