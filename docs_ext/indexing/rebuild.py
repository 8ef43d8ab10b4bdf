"""Rebuild the Qdrant doc collection from Postgres vectors (the doc counterpart of
memory.indexing.rebuild).

Never calls the embedding provider: dense vectors come from doc_chunk_embeddings of the configured
embedding_version, BM25 vectors are computed locally from chunk_text. The collection is created when
missing. Every chunk of every active document is upserted (in batches); a chunk with no vector of the
current version is counted as missing (the next UPSERT of its document embeds it), and a batch Qdrant
rejects is counted as errors while the rebuild goes on. Points of documents deleted since are left to the
outbox DELETE jobs; dropping the collection first gives a clean slate.
"""

from __future__ import annotations

from elf_config import ElfConfig
from elf_infra.index.rebuild import Progress, RebuildReport, run_rebuild
from elf_kernel.batches import keyset_batches

from ..models import DocChunk, DocChunkEmbedding, DocStatus
from .index import chunk_point, docs_index

BATCH = 256

__all__ = ["RebuildReport", "rebuild_docs"]


def rebuild_docs(*, cfg: ElfConfig, progress: Progress | None = None) -> RebuildReport:
    """Upsert a point for every chunk of every active document from its stored vector."""
    index = docs_index(cfg)
    index.handle.ensure()
    version = cfg.embedding_version
    chunks = (
        DocChunk.objects.select_related("doc")
        .defer("doc__content")
        .filter(doc__status=DocStatus.ACTIVE)
        .order_by("chunk_id")
    )

    def to_points(batch: list[DocChunk]) -> list:
        vectors = dict(
            DocChunkEmbedding.objects.filter(
                chunk_id__in=[c.chunk_id for c in batch], embedding_version=version
            ).values_list("chunk_id", "vec")
        )
        return [
            chunk_point(c.doc, c, dense=vectors[c.chunk_id], embedding_version=version)
            for c in batch
            if c.chunk_id in vectors
        ]

    return run_rebuild(pages=keyset_batches(chunks, "chunk_id", BATCH), total=chunks.count(), to_points=to_points,
                       upsert=index.upsert, progress=progress)
