"""PROFILE.md, a run's SESSION.md and the tenant's POLICY.md as whole texts, and the end of a run: the routes'
entry points (POLICY.md's on the admin bind only). A PUT is recorded as its scope's writer (the user for PROFILE
and SESSION, the admin for POLICY) with the agent that sent it; ending a run is the system's act."""

from __future__ import annotations

from dataclasses import dataclass

from elf_kernel.context import RequestContext

from ..domain.vocabulary import FILE_NAMES, MemoryScope, Source
from ..selectors import Workspace
from .documents import WriteResult, current_text, default_source
from .entries import end_run, put_document


@dataclass(frozen=True)
class DocumentText:
    text: str
    version: int  # 0 for a document never written (its empty form)
    run_ended: bool


def read_document(*, ctx: RequestContext, scope: MemoryScope, run_id: str | None) -> DocumentText:
    return DocumentText(*current_text(Workspace.of(ctx, scope, run_id)))


def replace_document(*, ctx: RequestContext, scope: MemoryScope, run_id: str | None, text: str,
                     if_version: int | None) -> WriteResult:
    """Store ``text`` as the whole document, exactly; ``if_version`` (when given) must be its current version."""
    return put_document(ctx=ctx, scope=scope, run_id=run_id, text=text, actor=default_source(scope),
                        reason=f"{FILE_NAMES[scope]} edited (PUT) by agent {ctx.agent_id}", if_version=if_version)


def end_session_run(*, ctx: RequestContext, run_id: str) -> tuple[WriteResult | None, int]:
    """End a run: its session_end entries expire, its SESSION.md closes to writes. (None when already ended,
    the number expired)."""
    return end_run(ctx=ctx, run_id=run_id, actor=Source.SYSTEM)
