"""The floor of add_note: the same notes' unavoidable work done in-process, so a rate is read as a ratio.

Per note, add_note must embed the text once and write its rows in Postgres. The floor does both here, with
nothing else around them:
- embedding: the configured embedding provider (``build_embedding``: the in-process local model with local
  providers), one text per call for single-note requests, ``batch`` texts per call for batched ones;
- Postgres: over one psycopg connection to the service's database, the rows add_note writes for a new note
  (the note, its chunk, chunk vector and pooled vector, a version row, a decision row and an outbox row), one
  transaction (one commit) per request. The rows belong to a floor tenant of their own and are deleted
  afterwards (``remove``; elf-bench add-note only once its measured writes are done: deleting 2,000 notes'
  rows right before them slowed the service's next single-note writes from 64-68 to 52 notes/s); the outbox
  rows are written DONE, so the worker never takes them.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass

import psycopg
from pgvector import Vector

from elf_config import ElfConfig
from elf_infra.providers.factory import build_embedding


@dataclass(frozen=True)
class Floor:
    embed_s: float
    postgres_s: float
    notes: int
    embed_cpu_s: float = 0.0  # this process's CPU time while embedding (every onnxruntime thread)
    tenant: str = ""  # the floor tenant its rows were written under

    @property
    def rate(self) -> float:
        """Notes per second when only the floor's work is done."""
        return self.notes / (self.embed_s + self.postgres_s)

    def describe(self, per_call: int) -> str:
        ms = lambda s: s / self.notes * 1000  # noqa: E731
        return (f"floor {self.rate:.1f} notes/s (embedding, {per_call} per call, {ms(self.embed_s):.2f} ms/note + "
                f"Postgres, {per_call} per transaction, {ms(self.postgres_s):.2f} ms/note)")


def measure(cfg: ElfConfig, texts: list[str], per_request: int, *, keep_rows: bool = False) -> Floor:
    """The floor of ingesting ``texts`` ``per_request`` at a time; its rows are deleted unless ``keep_rows``
    (then ``remove`` them later)."""
    groups = [texts[i : i + per_request] for i in range(0, len(texts), per_request)]
    embedder = build_embedding(cfg)
    embedder.embed(texts[:1])  # a loaded model, as the service's is
    t0, c0 = time.perf_counter(), time.process_time()
    vectors = [v for group in groups for v in embedder.embed(group)]
    embed_s, embed_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    tenant = f"floor-{uuid.uuid4().hex[:8]}"
    floor = Floor(embed_s, _postgres(cfg, tenant, groups, vectors), len(texts), embed_cpu_s, tenant)
    if not keep_rows:
        remove(cfg, [floor])
    return floor


_NOTE = """INSERT INTO memory_notes (note_id, tenant_id, project_id, agent_id, scope, type, text, importance,
    confidence, status, expires_at, embedding_version, source_ref)
VALUES (%(n)s, %(t)s, 'floor', 'floor', 'agent_private', 'fact', %(text)s, 0.5, 0.9, 'active',
    now() + interval '180 days', %(v)s, '{}')"""
_ROWS = [
    "INSERT INTO memory_note_chunks (chunk_id, note_id, chunk_index, start_offset, end_offset, text, "
    "embedding_version) VALUES (%(c)s, %(n)s, 0, 0, %(len)s, %(text)s, %(v)s)",
    "INSERT INTO note_chunk_embeddings (chunk_id, embedding_version, embedding_dim, vec) "
    "VALUES (%(c)s, %(v)s, %(dim)s, %(vec)s::vector)",
    "INSERT INTO note_embeddings (note_id, embedding_version, embedding_dim, vec) VALUES (%(n)s, %(v)s, %(dim)s, "
    "%(vec)s::vector)",
    "INSERT INTO memory_note_versions (version_id, note_id, op, new_snapshot, reason, actor) "
    "VALUES (gen_random_uuid(), %(n)s, 'ADD', %(snap)s, 'add_note', 'agent:floor')",
    "INSERT INTO memory_ingest_decisions (decision_id, tenant_id, project_id, agent_id, scope, pipeline, note_type, "
    "note_id, base_decision, policy_decision, note_op, details) VALUES (gen_random_uuid(), %(t)s, 'floor', 'floor', "
    "'agent_private', 'add_note', 'fact', %(n)s, 'remember', 'remember', 'ADD', %(snap)s)",
    "INSERT INTO indexing_outbox (outbox_id, note_id, op, embedding_version, status) "
    "VALUES (gen_random_uuid(), %(n)s, 'UPSERT', %(v)s, 'DONE')",
]


def _postgres(cfg: ElfConfig, tenant: str, groups: list[list[str]], vectors: list[list[float]]) -> float:
    version = cfg.embedding_version
    vec_iter = iter(vectors)
    with psycopg.connect(cfg.storage.postgres.dsn) as conn:
        t0 = time.perf_counter()
        for group in groups:
            with conn.transaction():
                for text in group:
                    vec = next(vec_iter)
                    row = {
                        "n": uuid.uuid4(),
                        "c": uuid.uuid4(),
                        "t": tenant,
                        "text": text,
                        "v": version,
                        "len": len(text.encode()),
                        "dim": len(vec),
                        "vec": Vector(vec).to_text(),
                        "snap": json.dumps({"text": text}),
                    }
                    conn.execute(_NOTE, row)
                    for sql in _ROWS:
                        conn.execute(sql, row)
        return time.perf_counter() - t0


def remove(cfg: ElfConfig, floors: list[Floor]) -> None:
    """Delete the rows the floors wrote (their notes' chunks and vectors cascade)."""
    tenants = [f.tenant for f in floors if f.tenant]
    with psycopg.connect(cfg.storage.postgres.dsn) as conn, conn.transaction():
        notes = "SELECT note_id FROM memory_notes WHERE tenant_id = ANY(%s)"
        for table in ("memory_note_versions", "memory_ingest_decisions", "indexing_outbox"):
            conn.execute(f"DELETE FROM {table} WHERE note_id IN ({notes})", [tenants])
        conn.execute("DELETE FROM memory_notes WHERE tenant_id = ANY(%s)", [tenants])
