"""docs_publish and docs_unpublish: the owner moves a document into a shared space or back to agent_private,
each the one entry point its route calls (the switch, the space, the write rule and the owner)."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from elf_config import ElfConfig
from elf_domain.spaces import AGENT_PRIVATE, home_project, scope_of_space
from elf_domain.vocabulary import OutboxOp
from elf_kernel.context import RequestContext
from elf_kernel.errors import InvalidRequest, NotFound

from ..indexing.outbox import enqueue
from ..models import DocDocument
from ..selectors import owned_doc, readable_docs
from .docs_enabled import require_enabled
from .documents import check_writable


def publish_doc(*, cfg: ElfConfig, ctx: RequestContext, doc_id: uuid.UUID, space: str) -> DocDocument:
    """Publish an owned document to ``space`` (team_shared or org_shared)."""
    require_enabled(cfg)
    return _move(cfg=cfg, ctx=ctx, doc_id=doc_id, scope=scope_of_space(space))


@transaction.atomic
def unpublish_doc(*, cfg: ElfConfig, ctx: RequestContext, doc_id: uuid.UUID, space: str) -> DocDocument:
    """Bring an owned document in ``space`` back to agent_private; a readable document in another scope is 400
    naming $.space."""
    require_enabled(cfg)
    current = readable_docs(ctx).filter(doc_id=doc_id).values_list("scope", flat=True).first()
    if current is not None and current != scope_of_space(space):
        raise InvalidRequest(f"The document is in {current}, not in {space}.", ["$.space"])
    return _move(cfg=cfg, ctx=ctx, doc_id=doc_id, scope=AGENT_PRIVATE)


@transaction.atomic
def _move(*, cfg: ElfConfig, ctx: RequestContext, doc_id: uuid.UUID, scope: str) -> DocDocument:
    """Move an owned document into a shared scope, or back to agent_private in the caller's project; its points
    follow (an UPSERT re-writes their payload). Who may read it in a shared space is the space's grants' business
    (``/v2/spaces/{space}/grants``): publishing grants nothing by itself."""
    doc = owned_doc(ctx, doc_id)
    if doc is None:
        raise NotFound("No such document of yours.", ["$.path.doc_id"])
    check_writable(cfg, scope, "$.space")
    doc.scope, doc.project_id, doc.updated_at = scope, home_project(ctx.project_id, scope), timezone.now()
    doc.save(update_fields=["scope", "project_id", "updated_at"])
    enqueue(doc_id=doc.doc_id, op=OutboxOp.UPSERT, embedding_version=cfg.embedding_version)
    return doc
