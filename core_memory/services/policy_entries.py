"""Upsert and delete of POLICY.md entries, the admin bind's routes (core-memory-markdown section 8), each the one
entry point its route calls: the tenant's POLICY.md, written as the admin, a given reason through the English
gate."""

from __future__ import annotations

from elf_kernel.context import RequestContext

from ..domain.vocabulary import MemoryScope, Source
from .documents import WriteResult
from .entries import EntryInput, delete_entry, upsert_entry
from .gate import gated_reason
from .public_entries import Written


def policy_upsert(*, ctx: RequestContext, entry: EntryInput, reason: str | None) -> Written:
    reason = gated_reason(reason, "policy upsert on the admin bind")
    result = upsert_entry(ctx=ctx, scope=MemoryScope.POLICY, entry=entry, run_id=None, reason=reason)
    return Written.of(result, MemoryScope.POLICY, entry)


def policy_delete(*, ctx: RequestContext, key: str) -> WriteResult:
    return delete_entry(ctx=ctx, scope=MemoryScope.POLICY, key=key, run_id=None, actor=Source.ADMIN,
                        reason="policy delete on the admin bind")
