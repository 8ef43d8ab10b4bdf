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

from django.utils import timezone

from elf_config import ElfConfig
from elf_infra.index.rebuild import Progress, RebuildReport, run_rebuild
from elf_kernel.batches import keyset_batches

from ..models import MemoryNoteChunk, NoteChunkEmbedding, NoteStatus
from .index import chunk_to_point, notes_index

BATCH = 256

__all__ = ["RebuildReport", "rebuild_qdrant"]


def rebuild_qdrant(*, cfg: ElfConfig, progress: Progress | None = None) -> RebuildReport:
    """Upsert a point for every chunk of every active, unexpired note from its stored vector."""
    index = notes_index(cfg)
    index.handle.ensure()
    version = cfg.embedding_version
    chunks = (
        MemoryNoteChunk.objects.select_related("note")
        .filter(note__status=NoteStatus.ACTIVE)
        .exclude(note__expires_at__lte=timezone.now())
        .order_by("chunk_id")
    )

    def to_points(batch: list[MemoryNoteChunk]) -> list:
        vectors = dict(
            NoteChunkEmbedding.objects.filter(
                chunk_id__in=[c.chunk_id for c in batch], embedding_version=version
            ).values_list("chunk_id", "vec")
        )
        return [
            chunk_to_point(c.note, chunk_id=c.chunk_id, chunk_index=c.chunk_index, start_offset=c.start_offset,
                           end_offset=c.end_offset, text=c.text, dense=vectors[c.chunk_id], embedding_version=version)
            for c in batch
            if c.chunk_id in vectors
        ]

    return run_rebuild(pages=keyset_batches(chunks, "chunk_id", BATCH), total=chunks.count(), to_points=to_points,
                       upsert=index.upsert, progress=progress)
