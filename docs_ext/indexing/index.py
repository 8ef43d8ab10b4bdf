"""The doc chunks' collection as this process uses it (Doc Extension v1, "Derived index: Qdrant"): a hybrid
collection (`dense` + `bm25`) named by ``storage.qdrant.docs_collection``, one point per chunk with
point id = chunk_id and a payload without text (Postgres is authoritative; Qdrant may be stale).

The handle is ensured once per process and again after Qdrant answers 404 (elf_infra.index.collection).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from qdrant_client import models

from elf_config import ElfConfig
from elf_infra.index import bm25
from elf_infra.index.collection import CollectionHandle, collection_handle
from elf_infra.index.hybrid import DENSE_VECTOR, SPARSE_VECTOR, ensure_hybrid_collection
from elf_infra.index.scope_filter import LEXICAL_SCOPE, lexical_scope

from ..models import DocChunk, DocDocument

KEYWORD_INDEXES = ("tenant_id", "project_id", "agent_id", "scope", "status", "doc_id", LEXICAL_SCOPE)


def doc_filter(doc_id: uuid.UUID | str) -> models.Filter:
    """The filter selecting every chunk point of one document."""
    return models.Filter(must=[models.FieldCondition(key="doc_id", match=models.MatchValue(value=str(doc_id)))])


class DocsIndex:
    def __init__(self, handle: CollectionHandle):
        self.handle = handle

    def upsert(self, points: Sequence[models.PointStruct]) -> None:
        self.handle.upsert(list(points))

    def replace_doc_points(self, doc_id: uuid.UUID, points: Sequence[models.PointStruct]) -> None:
        """Make ``points`` the document's only points (upserted before the others go; none deletes them all)."""
        self.handle.replace_points(doc_filter(doc_id), list(points))

    def delete_doc(self, doc_id: uuid.UUID) -> None:
        """Delete every point of a document; a missing collection has none to delete."""
        self.handle.delete(doc_filter(doc_id))

    def delete_chunk(self, doc_id: uuid.UUID, chunk_id: uuid.UUID) -> None:
        """Delete one chunk's point (only if it belongs to ``doc_id``)."""
        self.handle.delete(models.Filter(
            must=[*doc_filter(doc_id).must, models.HasIdCondition(has_id=[str(chunk_id)])]
        ))


def docs_index(cfg: ElfConfig) -> DocsIndex:
    """This process's doc index for the configured Qdrant url, docs collection and vector size."""
    q = cfg.storage.qdrant
    dim, quant = q.vector_dim, q.dense_quantization
    return DocsIndex(collection_handle(
        q.url, q.docs_collection,
        lambda client, name: ensure_hybrid_collection(client, name, dim, KEYWORD_INDEXES, quantization=quant),
        shape=(dim,),
    ))


def chunk_point(
    doc: DocDocument, chunk: DocChunk, *, dense: Sequence[float], embedding_version: str
) -> models.PointStruct:
    """One chunk as a Qdrant point: id chunk_id, the `dense` vector, a local BM25 vector of the chunk text
    and the design's payload (no text)."""
    chunk_id = str(chunk.chunk_id)
    payload: dict[str, Any] = {
        "doc_id": str(doc.doc_id),
        "chunk_id": chunk_id,
        "chunk_index": chunk.chunk_index,
        "start_offset": chunk.start_offset,
        "end_offset": chunk.end_offset,
        "tenant_id": doc.tenant_id,
        "project_id": doc.project_id,
        "agent_id": doc.agent_id,
        "scope": doc.scope,
        "status": doc.status,
        "updated_at": doc.updated_at.isoformat(),
        "embedding_version": embedding_version,
        "content_hash": doc.content_hash,
        "chunk_hash": chunk.chunk_hash,
        LEXICAL_SCOPE: lexical_scope(doc.tenant_id, doc.project_id),  # BM25's IDF corpus (hybrid.scoped_idf)
    }
    return models.PointStruct(
        id=chunk_id,
        vector={DENSE_VECTOR: [float(x) for x in dense], SPARSE_VECTOR: bm25.embed_document(chunk.chunk_text)},
        payload=payload,
    )
