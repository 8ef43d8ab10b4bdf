"""Processing one claimed indexing_outbox row (spec v2 section 12).

UPSERT: fetch the note. A missing, non-active or expired note is not indexed: its points are deleted (so a
status change can never leave it searchable) and the row is DONE. Otherwise:
1. chunk the text with the embedding model's tokenizer (``elf_domain.chunking``);
2. embed the chunks that need it, outside any transaction. A chunk whose stored row at the same index has
   the same text and a vector of the current embedding version keeps that vector (no provider call), so
   re-processing an unchanged note, or a metadata-only change, costs no embedding;
3. in one transaction: upsert memory_note_chunks by (note_id, chunk_index), which keeps the existing
   chunk_id of an index, so re-processing yields the same Qdrant point ids; delete chunk rows past the new
   count (their vectors cascade); upsert the new chunk vectors; store the pooled note vector (the plain
   mean of the chunk vectors, as the spec says, not re-normalised: cosine similarity, the only use of it,
   ignores the length); drop vectors of other embedding versions for the note, since they may describe
   text that has changed;
4. upsert one Qdrant point per chunk, then delete the note's other points (stale chunk ids).
Running it twice gives the same rows and points.

DELETE: delete the note's points by note_id filter (a missing collection or no points is fine).

Embedding version: the worker always indexes with the configured ``cfg.embedding_version``, the only
provider it can call. The row's embedding_version records the version current when the change was
written; when it differs (the config changed since), the note is simply re-embedded with the current one,
which is what a re-index after a model change needs.

All processing of one note is serialised by a session advisory lock on its note_id, so two rows of the
same note (an UPSERT and a later DELETE, say) never interleave: the one processed last reads the note's
final state. A worker killed mid-job drops its connection and with it the lock.
"""

from __future__ import annotations

import logging
import uuid
from contextlib import AbstractContextManager

import numpy as np
from django.db import connection, transaction
from django.utils import timezone
from pgvector import Vector

from elf_infra.providers.factory import build_embedding
from elf_infra.providers.tokenizer import get_tokenizer
from elf_config import ElfConfig
from elf_kernel.locks import advisory_lock, lock_class

from elf_domain.chunking import Chunk, chunk_text
from ..models import MemoryNote, MemoryNoteChunk, NoteChunkEmbedding, NoteStatus, OutboxOp
from .index import chunk_to_point, notes_index
from .lease import Lease, lease_one, run, sweep

log = logging.getLogger("elf.indexing")

# First key of the two-key advisory lock space for notes: the ASCII bytes "ELFN" as a signed int4.
NOTE_LOCK_CLASS = lock_class(b"ELFN")
# A sweep claims this many rows at once and starts none after the budget (well inside the 30 s lease);
# the rows it did not start are released, due again for the next sweep.
SWEEP_BATCH = 16
SWEEP_BUDGET_S = 20.0


def note_lock(note_id: uuid.UUID) -> AbstractContextManager[None]:
    """Hold the note's session advisory lock (waits for another worker processing the same note)."""
    return advisory_lock(NOTE_LOCK_CLASS, str(note_id))


def process(lease: Lease, *, cfg: ElfConfig) -> bool:
    """Process a claimed row and settle it: DONE (True) or FAILED with backoff (False)."""

    def work() -> None:
        with note_lock(lease.note_id):
            if lease.op == OutboxOp.UPSERT:
                index_note(cfg=cfg, note_id=lease.note_id)
            else:
                notes_index(cfg).delete_note(lease.note_id)

    return run(lease, work, cfg, what=f"outbox {lease.outbox_id} ({lease.op} note {lease.note_id})", log=log)


def process_row(*, cfg: ElfConfig, outbox_id: uuid.UUID | str) -> bool:
    """Process one row if it is due (the task sent on commit); False when another worker holds it, it is
    already done, or it is waiting for its backoff (the sweep takes it then)."""
    lease = lease_one(outbox_id)
    return lease is not None and process(lease, cfg=cfg)


def process_due(*, cfg: ElfConfig) -> int:
    """The sweep: claim up to SWEEP_BATCH due rows and process them oldest first; returns how many are DONE."""
    return sweep(lambda lease: process(lease, cfg=cfg), batch=SWEEP_BATCH, budget_s=SWEEP_BUDGET_S)


def is_indexable(note: MemoryNote | None) -> bool:
    """Active and not expired (the same rule search re-validates with)."""
    if note is None or note.status != NoteStatus.ACTIVE:
        return False
    return note.expires_at is None or note.expires_at > timezone.now()


def index_note(*, cfg: ElfConfig, note_id: uuid.UUID) -> None:
    """Bring the note's chunks, vectors and points up to date, or remove its points when it is not
    indexable."""
    index = notes_index(cfg)
    note = MemoryNote.objects.filter(note_id=note_id).first()
    if not is_indexable(note):
        index.delete_note(note_id)
        return
    version = cfg.embedding_version
    chunks = chunk_text(
        note.text,
        get_tokenizer().token_byte_spans(note.text),
        max_tokens=cfg.chunking.max_tokens,
        overlap_tokens=cfg.chunking.overlap_tokens,
    )
    vectors, fresh = _chunk_vectors(cfg, note_id, version, chunks)
    with transaction.atomic():
        chunk_ids = [_upsert_chunk(note_id, chunk, version) for chunk in chunks]
        with connection.cursor() as cur:
            cur.execute("DELETE FROM memory_note_chunks WHERE note_id = %s AND chunk_index >= %s",
                        [note_id, len(chunks)])
        _store_vectors(note_id, version, chunk_ids, vectors, fresh)
    points = [
        chunk_to_point(note, chunk_id=chunk_id, chunk_index=c.index, start_offset=c.start_offset,
                       end_offset=c.end_offset, text=c.text, dense=vectors[c.index], embedding_version=version)
        for chunk_id, c in zip(chunk_ids, chunks)
    ]
    index.replace_note_points(note_id, points)


def _chunk_vectors(
    cfg: ElfConfig, note_id: uuid.UUID, version: str, chunks: list[Chunk]
) -> tuple[dict[int, list[float]], set[int]]:
    """A vector per chunk index, and the indexes embedded now (the others reuse their stored vector)."""
    stored = {c.chunk_index: c for c in MemoryNoteChunk.objects.filter(note_id=note_id).only("chunk_index", "text")}
    existing = dict(
        NoteChunkEmbedding.objects.filter(
            chunk_id__in=[c.chunk_id for c in stored.values()], embedding_version=version
        ).values_list("chunk_id", "vec")
    )
    vectors: dict[int, list[float]] = {}
    for chunk in chunks:
        old = stored.get(chunk.index)
        if old is not None and old.text == chunk.text and old.chunk_id in existing:
            vectors[chunk.index] = [float(x) for x in existing[old.chunk_id]]
    to_embed = [c for c in chunks if c.index not in vectors]
    if to_embed:
        for chunk, vec in zip(to_embed, build_embedding(cfg).embed([c.text for c in to_embed]), strict=True):
            vectors[chunk.index] = vec
    return vectors, {c.index for c in to_embed}


def _upsert_chunk(note_id: uuid.UUID, chunk: Chunk, version: str) -> uuid.UUID:
    """Insert or update the row of (note_id, chunk.index); an existing row keeps its chunk_id."""
    with connection.cursor() as cur:
        cur.execute(
            """
            INSERT INTO memory_note_chunks
                (chunk_id, note_id, chunk_index, start_offset, end_offset, text, embedding_version)
            VALUES (%s, %s, %s, %s, %s, %s, %s)
            ON CONFLICT (note_id, chunk_index) DO UPDATE
               SET start_offset = EXCLUDED.start_offset, end_offset = EXCLUDED.end_offset,
                   text = EXCLUDED.text, embedding_version = EXCLUDED.embedding_version
            RETURNING chunk_id
            """,
            [uuid.uuid4(), note_id, chunk.index, chunk.start_offset, chunk.end_offset, chunk.text, version],
        )
        return cur.fetchone()[0]


def _store_vectors(
    note_id: uuid.UUID, version: str, chunk_ids: list[uuid.UUID], vectors: dict[int, list[float]], fresh: set[int]
) -> None:
    """Upsert the fresh chunk vectors and the pooled note vector; drop vectors of other versions."""
    with connection.cursor() as cur:
        for index, chunk_id in enumerate(chunk_ids):
            if index in fresh:
                cur.execute(
                    """
                    INSERT INTO note_chunk_embeddings (chunk_id, embedding_version, embedding_dim, vec)
                    VALUES (%s, %s, %s, %s::vector)
                    ON CONFLICT (chunk_id, embedding_version) DO UPDATE
                       SET embedding_dim = EXCLUDED.embedding_dim, vec = EXCLUDED.vec, created_at = now()
                    """,
                    [chunk_id, version, len(vectors[index]), Vector(vectors[index]).to_text()],
                )
        cur.execute(
            "DELETE FROM note_chunk_embeddings e USING memory_note_chunks c "
            "WHERE e.chunk_id = c.chunk_id AND c.note_id = %s AND e.embedding_version <> %s",
            [note_id, version],
        )
        pooled = np.mean(np.asarray([vectors[i] for i in range(len(chunk_ids))], dtype=np.float64), axis=0)
        cur.execute(
            """
            INSERT INTO note_embeddings (note_id, embedding_version, embedding_dim, vec)
            VALUES (%s, %s, %s, %s::vector)
            ON CONFLICT (note_id, embedding_version) DO UPDATE
               SET embedding_dim = EXCLUDED.embedding_dim, vec = EXCLUDED.vec, created_at = now()
            """,
            [note_id, version, len(pooled), Vector(pooled.tolist()).to_text()],
        )
        cur.execute("DELETE FROM note_embeddings WHERE note_id = %s AND embedding_version <> %s", [note_id, version])
