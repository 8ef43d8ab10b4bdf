"""Inferred memory (core-memory-markdown section 6, rules 2 and 4): staged as pending, written into its document
only when confirmed, dropped when rejected; every step audited."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from ..domain.vocabulary import MemoryScope, Source
from ..models import CoreMemoryAudit, CoreMemoryPending, PendingStatus
from .documents import WriteResult
from .entries import EntryInput, check_entry, upsert_entry, workspace
from .errors import AlreadyDecided


@transaction.atomic
def stage(*, ctx: RequestContext, scope: MemoryScope, entry: EntryInput, run_id: str, confidence: float | None,
          reason: str) -> tuple[CoreMemoryPending, int]:
    """Stage an inferred entry for the run; (pending row, audit id)."""
    ws = workspace(ctx, scope, run_id)
    check_entry(scope, entry)
    row = CoreMemoryPending.objects.create(
        entry_id=uuid.uuid4(), tenant_id=ws.tenant_id, project_id=ctx.project_id, run_id=run_id, scope=str(scope),
        kind=entry.kind, key=entry.key, value=entry.value, priority=entry.priority, ttl=entry.ttl,
        source=Source.USER_INFERRED, confidence=confidence, reason=reason, status=PendingStatus.PENDING,
        created_at=timezone.now())
    audit = CoreMemoryAudit.objects.create(
        tenant_id=ws.tenant_id, project_id=ctx.project_id, scope=str(scope), run_id=run_id, op="stage",
        key=entry.key, old_value=None, new_value=entry.value, actor=Source.USER_INFERRED,
        reason=f"pending {row.entry_id}: {reason}")
    return row, audit.audit_id


def _locked(ctx: RequestContext, run_id: str, entry_id: uuid.UUID) -> CoreMemoryPending:
    row = CoreMemoryPending.objects.select_for_update().filter(
        tenant_id=ctx.tenant_id, project_id=ctx.project_id, run_id=run_id, entry_id=entry_id).first()
    if row is None:
        raise NotFound("No such pending entry in this run.", ["$.path.entry_id"])
    if row.status != PendingStatus.PENDING:
        raise AlreadyDecided(f"The entry was already {row.status}.", ["$.path.entry_id"])
    return row


@transaction.atomic
def confirm(*, ctx: RequestContext, run_id: str, entry_id: uuid.UUID) -> tuple[CoreMemoryPending, WriteResult]:
    row = _locked(ctx, run_id, entry_id)
    entry = EntryInput(kind=row.kind, key=row.key, value=row.value, priority=row.priority, ttl=row.ttl,
                       source=row.source)
    result = upsert_entry(ctx=ctx, scope=MemoryScope(row.scope), entry=entry, run_id=run_id, op="confirm",
                          reason=f"pending {row.entry_id} confirmed: {row.reason}")
    row.status, row.decided_at = PendingStatus.CONFIRMED, timezone.now()
    row.save(update_fields=["status", "decided_at"])
    return row, result


@transaction.atomic
def reject(*, ctx: RequestContext, run_id: str, entry_id: uuid.UUID) -> tuple[CoreMemoryPending, int]:
    row = _locked(ctx, run_id, entry_id)
    row.status, row.decided_at = PendingStatus.REJECTED, timezone.now()
    row.save(update_fields=["status", "decided_at"])
    audit = CoreMemoryAudit.objects.create(
        tenant_id=row.tenant_id, project_id=row.project_id, scope=row.scope, run_id=run_id, op="reject", key=row.key,
        old_value=row.value, new_value=None, actor=Source.USER_EXPLICIT, reason=f"pending {row.entry_id} rejected")
    return row, audit.audit_id
