"""memory_upsert, memory_delete, memory_resolve and memory_compact on the public bind (core-memory-markdown
section 7), each the one entry point its route calls: the reason's English gate and its default, who a write is
recorded as, an inferred entry staged under its run, and resolve listing only the caller's own keys (no route
but the admin bind's reads raw policy); then the write path (services.entries, services.pending)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from elf_kernel.context import RequestContext
from elf_kernel.errors import InvalidRequest

from ..domain.vocabulary import MemoryScope, Source
from .documents import WriteResult
from .entries import EntryInput, compact, delete_entry, upsert_entry
from .gate import gated_reason
from .pending import stage
from .resolve import Resolved, resolve


@dataclass(frozen=True)
class Written:
    """An upsert's answer: the entry written into its document (doc_version set), or staged as pending."""

    scope: str
    key: str
    value: str
    doc_version: int | None
    audit_id: int
    pending_entry_id: uuid.UUID | None = None

    @property
    def status(self) -> str:
        return "pending" if self.pending_entry_id is not None else "written"

    @classmethod
    def of(cls, result: WriteResult, scope: str, entry: EntryInput) -> Written:
        return cls(scope, entry.key, entry.value, result.doc.version, result.audit_ids[0])


def memory_upsert(*, ctx: RequestContext, scope: MemoryScope, entry: EntryInput, run_id: str | None,
                  reason: str | None) -> Written:
    """Write ``entry`` into PROFILE.md or the run's SESSION.md; a user_inferred one is staged under the run
    (run_id required) until confirmed. A given reason meets the English gate; without one the audit row says
    which agent wrote."""
    reason = gated_reason(reason, f"memory_upsert by agent {ctx.agent_id}")
    if entry.source == Source.USER_INFERRED:
        if run_id is None:
            raise InvalidRequest("An inferred entry is staged under a run: give run_id.", ["$.run_id"])
        row, audit_id = stage(ctx=ctx, scope=scope, entry=entry, run_id=run_id, confidence=None, reason=reason)
        return Written(scope, entry.key, entry.value, None, audit_id, row.entry_id)
    return Written.of(upsert_entry(ctx=ctx, scope=scope, entry=entry, run_id=run_id, reason=reason), scope, entry)


def memory_delete(*, ctx: RequestContext, scope: MemoryScope, key: str, run_id: str | None) -> WriteResult:
    """Remove ``key`` from PROFILE.md or the run's SESSION.md, as the user's explicit act."""
    return delete_entry(ctx=ctx, scope=scope, key=key, run_id=run_id, actor=Source.USER_EXPLICIT,
                        reason=f"memory_delete by agent {ctx.agent_id}")


@dataclass(frozen=True)
class Resolution:
    resolved_at: datetime
    items: list[Resolved]


def memory_resolve(*, ctx: RequestContext, keys: list[str] | None, run_id: str | None) -> Resolution:
    """The effective value of each key asked (each once, in order), or, without keys, of the keys the caller's
    PROFILE.md or the run's SESSION.md has live: a key only POLICY.md sets is resolved when named, never
    listed."""
    now = timezone.now()
    keys = list(dict.fromkeys(keys)) if keys is not None else None
    return Resolution(now, resolve(ctx=ctx, keys=keys, run_id=run_id, now=now, enumerate_policy=False))


def memory_compact(*, ctx: RequestContext, scope: MemoryScope, run_id: str | None
                   ) -> tuple[WriteResult | None, list[dict]]:
    """Remove expired lines and the losing lines of duplicate keys, as the system's act."""
    return compact(ctx=ctx, scope=scope, run_id=run_id, actor=Source.SYSTEM)
