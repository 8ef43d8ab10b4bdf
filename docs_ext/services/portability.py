"""The documents' part of a tenant export (mechanics in elf_kernel.portability): documents and their chunks
(written with the document, so always exported) and, with vectors, the chunk vectors. After an import every
active document gets a doc indexing outbox row; the worker embeds only chunks without a vector of the current
embedding version."""

from __future__ import annotations

from elf_domain.vocabulary import OutboxOp
from elf_kernel.portability import TableSpec, owned_by_tenant

from ..indexing.outbox import enqueue
from ..models import DocDocument, DocStatus

DOCS = f"(SELECT d.doc_id FROM doc_documents d WHERE {owned_by_tenant('d')})"

TABLES = (
    TableSpec("doc_documents", owned_by_tenant()),
    TableSpec("doc_chunks", f"t.doc_id IN {DOCS}"),
    TableSpec("doc_chunk_embeddings", f"t.chunk_id IN (SELECT c.chunk_id FROM doc_chunks c WHERE c.doc_id IN {DOCS})",
              vectors=True),
)


def reindex_imported(*, tenant_id: str, project_id: str | None, embedding_version: str) -> int:
    """Queue an UPSERT for every active document of the imported tenant (in the import's transaction)."""
    docs = DocDocument.objects.filter(tenant_id=tenant_id, status=DocStatus.ACTIVE)
    if project_id is not None:
        docs = docs.filter(project_id=project_id)
    doc_ids = list(docs.order_by("doc_id").values_list("doc_id", flat=True))
    for doc_id in doc_ids:
        enqueue(doc_id=doc_id, op=OutboxOp.UPSERT, embedding_version=embedding_version)
    return len(doc_ids)
