"""Rebuild the Qdrant notes index from Postgres vectors (spec v2 sections 0 I2 and 14).

Never calls the embedding provider: dense vectors come from note_chunk_embeddings of the configured
embedding_version, BM25 vectors are computed locally from the chunk text. The collection is created when
missing. Every chunk of every active, unexpired note is upserted (in batches); a chunk with no vector of
the current version is counted as missing (the next UPSERT of its note embeds it), and a batch Qdrant
rejects is counted as errors while the rebuild goes on.

Points that should not be there (notes deleted since) are not hunted down: the outbox DELETE jobs remove
them, and search re-validates every candidate in Postgres. Dropping the collection first gives a clean
slate.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass

from django.utils import timezone

from elf_project.config import ElfConfig

from ..models import MemoryNoteChunk, NoteChunkEmbedding, NoteStatus
from .index import chunk_to_point, notes_index

log = logging.getLogger("elf.indexing")
BATCH = 256

Progress = Callable[[int, int], None]  # (chunks handled so far, total chunks)


@dataclass(frozen=True)
class RebuildReport:
    rebuilt_count: int
    missing_vector_count: int
    error_count: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def rebuild_qdrant(*, cfg: ElfConfig, progress: Progress | None = None) -> RebuildReport:
    """Upsert a point for every chunk of every active, unexpired note from its stored vector."""
    index = notes_index(cfg)
    index.ensure()
    version = cfg.embedding_version
    chunks = (
        MemoryNoteChunk.objects.select_related("note")
        .filter(note__status=NoteStatus.ACTIVE)
        .exclude(note__expires_at__lte=timezone.now())
        .order_by("chunk_id")
    )
    total = chunks.count()
    rebuilt = missing = errors = 0
    if progress is not None:
        progress(0, total)
    after = None
    while True:
        page = chunks if after is None else chunks.filter(chunk_id__gt=after)
        batch = list(page[:BATCH])
        if not batch:
            break
        after = batch[-1].chunk_id
        vectors = dict(
            NoteChunkEmbedding.objects.filter(
                chunk_id__in=[c.chunk_id for c in batch], embedding_version=version
            ).values_list("chunk_id", "vec")
        )
        points = [
            chunk_to_point(c.note, chunk_id=c.chunk_id, chunk_index=c.chunk_index, start_offset=c.start_offset,
                           end_offset=c.end_offset, text=c.text, dense=vectors[c.chunk_id], embedding_version=version)
            for c in batch
            if c.chunk_id in vectors
        ]
        missing += len(batch) - len(points)
        try:
            index.upsert(points)
            rebuilt += len(points)
        except Exception as exc:
            log.warning("rebuild: a batch of %d points failed: %s", len(points), exc)
            errors += len(points)
        if progress is not None:
            progress(rebuilt + missing + errors, total)
    return RebuildReport(rebuilt, missing, errors)
