"""Processing one claimed doc_indexing_outbox row (Doc Extension v1, "Indexing consistency").

UPSERT (of a whole document; a row naming one chunk re-indexes its whole document too): fetch the document.
A missing or non-active document is not indexed: its points are deleted and the row is DONE. Otherwise:
1. read its chunks (written by the docs API with their text and byte offsets, in the document's transaction);
2. embed, outside any transaction and in batches of EMBED_BATCH, the chunks with no stored vector of the
   configured embedding version, so re-processing an unchanged document costs no embedding;
3. in one transaction: store the fresh vectors in doc_chunk_embeddings and drop the document's vectors of
   other embedding versions;
4. upsert one Qdrant point per chunk (BM25 computed locally from chunk_text), then delete the document's
   other points (chunks that no longer exist).
Running it twice gives the same rows and points.

DELETE: delete the document's points by doc_id filter, or the one chunk's point when the row names a chunk
(a missing collection or no points is fine).

The worker always indexes with the configured ``cfg.embedding_version``, the only provider it can call; a
row written under another version simply re-embeds with the current one.

All processing of one document is serialised by a session advisory lock on its doc_id (a lock class of its
own, so doc and note ids never contend), so an UPSERT and a later DELETE never interleave.
"""

from __future__ import annotations

import logging
import uuid
from contextlib import AbstractContextManager

from django.db import connection, transaction
from pgvector import Vector

from elf_config import ElfConfig
from elf_domain.vocabulary import OutboxOp
from elf_infra.providers.factory import build_embedding
from elf_kernel.locks import advisory_lock, lock_class

from ..models import DocChunk, DocChunkEmbedding, DocDocument, DocStatus
from .index import chunk_point, docs_index
from .lease import DocLease, lease_one, run, sweep

log = logging.getLogger("elf.docs.indexing")

# First key of the two-key advisory lock space for documents: the ASCII bytes "ELFD" as a signed int4.
DOC_LOCK_CLASS = lock_class(b"ELFD")
EMBED_BATCH = 64
SWEEP_BATCH = 16
SWEEP_BUDGET_S = 20.0


def doc_lock(doc_id: uuid.UUID) -> AbstractContextManager[None]:
    """Hold the document's session advisory lock (waits for another worker processing the same document)."""
    return advisory_lock(DOC_LOCK_CLASS, str(doc_id))


def process(lease: DocLease, *, cfg: ElfConfig) -> bool:
    """Process a claimed row and settle it: DONE (True) or FAILED with backoff (False)."""

    def work() -> None:
        with doc_lock(lease.doc_id):
            if lease.op == OutboxOp.UPSERT:
                index_doc(cfg=cfg, doc_id=lease.doc_id)
            elif lease.chunk_id is not None:
                docs_index(cfg).delete_chunk(lease.doc_id, lease.chunk_id)
            else:
                docs_index(cfg).delete_doc(lease.doc_id)

    return run(lease, work, cfg, what=f"doc outbox {lease.outbox_id} ({lease.op} doc {lease.doc_id})", log=log)


def process_row(*, cfg: ElfConfig, outbox_id: uuid.UUID | str) -> bool:
    """Process one row if it is due (the task sent on commit); False when another worker holds it, it is
    already done, or it is waiting for its backoff (the sweep takes it then)."""
    lease = lease_one(outbox_id)
    return lease is not None and process(lease, cfg=cfg)


def process_due(*, cfg: ElfConfig) -> int:
    """The sweep: claim up to SWEEP_BATCH due rows and process them oldest first; returns how many are DONE."""
    return sweep(lambda lease: process(lease, cfg=cfg), batch=SWEEP_BATCH, budget_s=SWEEP_BUDGET_S)


def index_doc(*, cfg: ElfConfig, doc_id: uuid.UUID) -> None:
    """Bring the document's chunk vectors and points up to date, or remove its points when it is missing or
    not active."""
    index = docs_index(cfg)
    doc = DocDocument.objects.filter(doc_id=doc_id).defer("content").first()
    if doc is None or doc.status != DocStatus.ACTIVE:
        index.delete_doc(doc_id)
        return
    version = cfg.embedding_version
    chunks = list(DocChunk.objects.filter(doc_id=doc_id).order_by("chunk_index"))
    vectors = _stored_vectors([c.chunk_id for c in chunks], version)
    fresh = _embed_missing(cfg, [c for c in chunks if c.chunk_id not in vectors])
    with transaction.atomic():
        _store_vectors(doc_id, version, fresh)
    vectors.update(fresh)
    index.replace_doc_points(
        doc_id, [chunk_point(doc, c, dense=vectors[c.chunk_id], embedding_version=version) for c in chunks]
    )


def _stored_vectors(chunk_ids: list[uuid.UUID], version: str) -> dict[uuid.UUID, list[float]]:
    rows = DocChunkEmbedding.objects.filter(chunk_id__in=chunk_ids, embedding_version=version)
    return {chunk_id: [float(x) for x in vec] for chunk_id, vec in rows.values_list("chunk_id", "vec")}


def _embed_missing(cfg: ElfConfig, chunks: list[DocChunk]) -> dict[uuid.UUID, list[float]]:
    """Embed the chunks in batches of EMBED_BATCH (no call at all when there are none)."""
    out: dict[uuid.UUID, list[float]] = {}
    if not chunks:
        return out
    embedder = build_embedding(cfg)
    for start in range(0, len(chunks), EMBED_BATCH):
        batch = chunks[start:start + EMBED_BATCH]
        for chunk, vec in zip(batch, embedder.embed([c.chunk_text for c in batch]), strict=True):
            out[chunk.chunk_id] = [float(x) for x in vec]
    return out


def _store_vectors(doc_id: uuid.UUID, version: str, fresh: dict[uuid.UUID, list[float]]) -> None:
    """Upsert the fresh chunk vectors; drop the document's vectors of other embedding versions."""
    with connection.cursor() as cur:
        for chunk_id, vec in fresh.items():
            cur.execute(
                """
                INSERT INTO doc_chunk_embeddings (chunk_id, embedding_version, embedding_dim, vec)
                VALUES (%s, %s, %s, %s::vector)
                ON CONFLICT (chunk_id, embedding_version) DO UPDATE
                   SET embedding_dim = EXCLUDED.embedding_dim, vec = EXCLUDED.vec, created_at = now()
                """,
                [chunk_id, version, len(vec), Vector(vec).to_text()],
            )
        cur.execute(
            "DELETE FROM doc_chunk_embeddings e USING doc_chunks c "
            "WHERE e.chunk_id = c.chunk_id AND c.doc_id = %s AND e.embedding_version <> %s",
            [doc_id, version],
        )
