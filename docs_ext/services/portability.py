"""The documents' part of a tenant export (mechanics in elf_kernel.portability): documents and their chunks
(written with the document, so always exported) and, with vectors, the chunk vectors. After an import every
active document gets a doc indexing outbox row; the worker embeds only chunks without a vector of the current
embedding version."""

from __future__ import annotations

import logging

from elf_domain.vocabulary import OutboxOp, OutboxStatus
from elf_kernel.portability import TableSpec, dispatch_after_commit, enqueue_imported, owned_by_tenant

from ..indexing.outbox import PROCESS_TASK
from ..models import DocStatus

log = logging.getLogger("elf.docs.indexing")

DOCS = f"(SELECT d.doc_id FROM doc_documents d WHERE {owned_by_tenant('d')})"

TABLES = (
    TableSpec("doc_documents", owned_by_tenant()),
    TableSpec("doc_chunks", f"t.doc_id IN {DOCS}"),
    TableSpec("doc_chunk_embeddings", f"t.chunk_id IN (SELECT c.chunk_id FROM doc_chunks c WHERE c.doc_id IN {DOCS})",
              vectors=True),
)


def reindex_imported(*, tenant_id: str, project_id: str | None, embedding_version: str) -> int:
    """Queue an UPSERT for every active document of the imported tenant (in the import's transaction): one
    INSERT ... SELECT, then once the import commits one task per document."""
    ids = enqueue_imported(
        f"INSERT INTO doc_indexing_outbox (outbox_id, doc_id, op, embedding_version, status) "
        f"SELECT gen_random_uuid(), d.doc_id, %(op)s, %(version)s, %(status)s FROM doc_documents d "
        f"WHERE {owned_by_tenant('d')} AND d.status = %(active)s ORDER BY d.doc_id RETURNING outbox_id",
        {"tenant": tenant_id, "project": project_id, "op": OutboxOp.UPSERT.value, "version": embedding_version,
         "status": OutboxStatus.PENDING.value, "active": DocStatus.ACTIVE.value},
    )
    dispatch_after_commit(PROCESS_TASK, ids, every=1, log=log)
    return len(ids)
