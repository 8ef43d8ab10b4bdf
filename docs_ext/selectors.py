"""Document reads, through the notes' one read rule (memory.selectors.readable_by): the caller's own documents
in any scope, and other agents' shared documents through an active grant from their owner."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from elf_domain.spaces import ORG_PROJECT_ID
from elf_kernel.context import RequestContext
from memory.selectors import readable_by

from .models import DocChunk, DocDocument, DocStatus


def readable_docs(ctx: RequestContext) -> QuerySet[DocDocument]:
    return readable_by(DocDocument.objects.all(), ctx).filter(status=DocStatus.ACTIVE)


def owned_doc(ctx: RequestContext, doc_id: uuid.UUID) -> DocDocument | None:
    """An active document the caller owns, in its project or in the org space."""
    return DocDocument.objects.filter(doc_id=doc_id, tenant_id=ctx.tenant_id, agent_id=ctx.agent_id,
                                      project_id__in=[ctx.project_id, ORG_PROJECT_ID],
                                      status=DocStatus.ACTIVE).first()


def doc_chunk(doc_id: uuid.UUID, chunk_id: uuid.UUID) -> DocChunk | None:
    return DocChunk.objects.filter(doc_id=doc_id, chunk_id=chunk_id).first()


def chunk_count(doc_id: uuid.UUID) -> int:
    return DocChunk.objects.filter(doc_id=doc_id).count()
