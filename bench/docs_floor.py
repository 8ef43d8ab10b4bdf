"""The floor of docs_put: the same documents' unavoidable work done in-process, so a put rate reads as a ratio.

Per document, docs_put must pass the content through the English gate (``check_document_body``, exactly as the
service does), cut it into chunks, hash the content and every chunk (blake3), and write the document, its
chunks and one outbox row in one transaction. The floor does exactly that with nothing around it (no HTTP, no
Django, no request context, scope rule or response): over one psycopg connection to the service's database,
one INSERT for the document, one COPY for its chunks and one INSERT for the outbox row (written DONE, so the
worker never takes it), one commit per document, documents one after another. Its rows belong to a floor
tenant of their own and are deleted afterwards.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

import psycopg

from docs_ext.domain.body_gate import check_document_body
from docs_ext.domain.chunking import MAX_CHUNKS, OVERLAP_BYTES, TARGET_BYTES, chunk_document
from docs_ext.domain.excerpts import blake3_hex
from elf_config import ElfConfig

_DOC = """INSERT INTO doc_documents (doc_id, tenant_id, project_id, agent_id, scope, content, content_hash,
    content_bytes, status) VALUES (%s, %s, 'floor', 'floor', 'agent_private', %s, %s, %s, 'active')"""
_CHUNKS = ("COPY doc_chunks (chunk_id, doc_id, chunk_index, start_offset, end_offset, chunk_text, chunk_hash) "
           "FROM STDIN")
_OUTBOX = """INSERT INTO doc_indexing_outbox (outbox_id, doc_id, op, embedding_version, status)
    VALUES (%s, %s, 'UPSERT', %s, 'DONE')"""


@dataclass(frozen=True)
class Floor:
    docs: int
    gate_s: float  # the English gate
    prepare_s: float  # chunking and hashing
    postgres_s: float  # the transactions

    @property
    def seconds(self) -> float:
        return self.gate_s + self.prepare_s + self.postgres_s

    @property
    def rate(self) -> float:
        return self.docs / self.seconds

    def describe(self) -> str:
        ms = lambda s: s / self.docs * 1000  # noqa: E731
        return (f"floor {self.rate:.1f} docs/s in-process, one after another (gate {ms(self.gate_s):.2f} + chunks "
                f"and blake3 {ms(self.prepare_s):.2f} + Postgres, one transaction with COPY, "
                f"{ms(self.postgres_s):.2f} ms/doc)")


def measure(cfg: ElfConfig, docs: list[str]) -> Floor:
    """The floor of putting ``docs`` one by one; its rows are deleted before it returns."""
    tenant = f"floor-{uuid.uuid4().hex[:8]}"
    check_document_body(docs[0] + " ")  # the language model loaded, as the service's is (a text of its own)
    gate_s = prepare_s = postgres_s = 0.0
    with psycopg.connect(cfg.storage.postgres.dsn) as conn:
        try:
            for content in docs:
                t0 = time.perf_counter()
                if check_document_body(content) is not None:
                    raise ValueError("a floor document failed the English gate")
                t1 = time.perf_counter()
                data = content.encode("utf-8")
                chunks = chunk_document(content, target_bytes=TARGET_BYTES, overlap_bytes=OVERLAP_BYTES,
                                        max_chunks=MAX_CHUNKS)
                doc_id = uuid.uuid4()
                rows = [(uuid.uuid4(), doc_id, c.index, c.start, c.end, c.text, blake3_hex(c.text)) for c in chunks]
                content_hash = blake3_hex(data)
                t2 = time.perf_counter()
                with conn.transaction(), conn.cursor() as cur:
                    cur.execute(_DOC, (doc_id, tenant, content, content_hash, len(data)))
                    with cur.copy(_CHUNKS) as copy:
                        for row in rows:
                            copy.write_row(row)
                    cur.execute(_OUTBOX, (uuid.uuid4(), doc_id, cfg.embedding_version))
                t3 = time.perf_counter()
                gate_s, prepare_s, postgres_s = gate_s + t1 - t0, prepare_s + t2 - t1, postgres_s + t3 - t2
        finally:
            with conn.transaction():
                docs_of = "SELECT doc_id FROM doc_documents WHERE tenant_id = %s"
                conn.execute(f"DELETE FROM doc_indexing_outbox WHERE doc_id IN ({docs_of})", (tenant,))
                conn.execute("DELETE FROM doc_documents WHERE tenant_id = %s", (tenant,))
    return Floor(len(docs), gate_s, prepare_s, postgres_s)
