"""The one write path of core memory: lock the document, apply an edit to its parsed markdown, store the new
exact text as the next version, re-derive its entries, and append the audit rows, all in one transaction.

Concurrent writers of one document queue on its row lock (``SELECT ... FOR UPDATE``), so each sees the other's
result: two upserts of one key leave one consistent document, two versions and two audit rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from ..domain.markdown import Document, ParseError, empty_document, parse, render
from ..domain.precedence import Candidate, tie_breaks
from ..domain.ttl import parse_ttl
from ..domain.vocabulary import MAX_DOCUMENT_BYTES, MAX_ENTRIES, MemoryScope, Source
from ..models import CoreMemoryAudit, CoreMemoryDocument, CoreMemoryEntry, CoreMemoryVersion
from ..selectors import Workspace, document
from .errors import DocumentTooLarge, MarkdownInvalid, RunEnded, VersionConflict


@dataclass(frozen=True)
class AuditSpec:
    op: str
    key: str | None
    old: str | None
    new: str | None
    reason: str


@dataclass
class Edit:
    """What an edit returns: the new document and the audit rows it owes."""

    doc: Document
    audits: list[AuditSpec] = field(default_factory=list)


@dataclass(frozen=True)
class WriteResult:
    doc: CoreMemoryDocument
    audit_ids: list[int]
    changed: bool


def now_ms() -> datetime:
    t = timezone.now()
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def parsed(row: CoreMemoryDocument | None, scope: MemoryScope) -> Document:
    if row is None or not row.content:
        return empty_document(scope)
    return parse(row.content, scope)


def current_text(ws: Workspace) -> tuple[str, int, bool]:
    """(text, version, run ended) of a document; an unwritten one is its empty form at version 0."""
    row = document(ws)
    if row is None or not row.content:
        return render(empty_document(ws.scope)), (row.version if row else 0), bool(row and row.run_ended_at)
    return row.content, row.version, row.run_ended_at is not None


def _locked(ws: Workspace) -> CoreMemoryDocument:
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO core_memory_documents (doc_id, tenant_id, project_id, scope, run_id, version, content) "
            "VALUES (%s, %s, %s, %s, %s, 0, '') ON CONFLICT (tenant_id, project_id, scope, run_id) DO NOTHING",
            [uuid.uuid4(), ws.tenant_id, ws.project_id, str(ws.scope), ws.run_id])
    return CoreMemoryDocument.objects.select_for_update().get(**ws.filter())


def default_source(scope: MemoryScope) -> str:
    return Source.ADMIN if scope is MemoryScope.POLICY else Source.USER_EXPLICIT


def _entry_rows(row: CoreMemoryDocument, doc: Document, previous: dict[str, datetime], now: datetime):
    """The derived rows of ``doc``: a line without updated_at keeps the time it had when the same line was in
    the previous version, else it counts as written now."""
    out = []
    for n, e in doc.entries():
        line = doc.lines[n - 1].rendered()
        updated = e.updated_at or previous.get(line) or now
        ttl = parse_ttl(e.ttl)
        out.append(CoreMemoryEntry(
            doc=row, line_no=n, tenant_id=row.tenant_id, project_id=row.project_id, scope=row.scope,
            run_id=row.run_id, key=e.key, kind=str(e.kind), value=e.value, priority=e.priority, ttl=e.ttl,
            source=e.source or default_source(MemoryScope(row.scope)), updated_at=updated,
            expires_at=ttl.expires_at(updated), until_session_end=ttl.session_end))
    return out


def candidates(doc: Document, scope: MemoryScope, now: datetime) -> list[Candidate]:
    return [Candidate(scope, e.key, e.value, str(e.kind), e.priority, e.updated_at or now,
                      e.source or default_source(scope), e.ttl, n) for n, e in doc.entries()]


@transaction.atomic
def write(ws: Workspace, edit: Callable[[Document, datetime], Edit], *, actor: str, reason: str,
          audit_run_id: str | None, if_version: int | None = None, allow_ended: bool = False) -> WriteResult:
    """Apply ``edit`` to the workspace's document under its row lock; store and audit the result."""
    row = _locked(ws)
    if if_version is not None and if_version != row.version:
        raise VersionConflict(f"The document is at version {row.version}, not {if_version} (If-Match).",
                              ["$.headers.If-Match"])
    try:
        before = parsed(row, ws.scope)
    except ParseError as exc:  # a stored document always parses; this is a bug, not the caller's fault
        raise RuntimeError(f"stored {ws.scope} document {row.doc_id} does not parse: {exc}") from exc
    now = now_ms()
    result = edit(before, now)
    text = render(result.doc)
    if len(text.encode("utf-8")) > MAX_DOCUMENT_BYTES:
        raise DocumentTooLarge(f"The document would be {len(text.encode())} bytes; the limit is {MAX_DOCUMENT_BYTES}.",
                               ["$"])
    if len(result.doc.entries()) > MAX_ENTRIES:
        raise DocumentTooLarge(f"The document would hold {len(result.doc.entries())} entries; the limit is "
                               f"{MAX_ENTRIES}.", ["$"])
    changed = text != (row.content or render(empty_document(ws.scope))) or row.version == 0
    if not changed and not result.audits:
        return WriteResult(row, [], False)
    if row.run_ended_at is not None and not allow_ended:
        raise RunEnded(f"Run {ws.run_id} was ended at {row.run_ended_at.isoformat()}; its SESSION.md is closed.",
                       ["$.run_id"])
    audits = list(result.audits)
    audits += [AuditSpec("tie_break", t.key, t.loser.value, t.winner.value, t.reason())
               for t in tie_breaks(candidates(result.doc, ws.scope, now))
               if (t.key, t.winner.value, t.loser.value) not in _tie_breaks_before(before, ws.scope, now)]
    previous = {before.lines[r.line_no - 1].rendered(): r.updated_at
                for r in CoreMemoryEntry.objects.filter(doc=row) if r.line_no <= len(before.lines)}
    if changed:
        row.version += 1
        row.content = text
        row.updated_at = now
        row.save(update_fields=["version", "content", "updated_at"])
        CoreMemoryVersion.objects.create(doc=row, version=row.version, content=text, actor=actor, reason=reason,
                                         created_at=now)
        CoreMemoryEntry.objects.filter(doc=row).delete()
        CoreMemoryEntry.objects.bulk_create(_entry_rows(row, result.doc, previous, now))
    created = CoreMemoryAudit.objects.bulk_create([
        CoreMemoryAudit(tenant_id=ws.tenant_id, project_id=ws.project_id, scope=str(ws.scope), run_id=audit_run_id,
                        op=a.op, key=a.key, old_value=a.old, new_value=a.new, actor=actor, reason=a.reason,
                        doc_version=row.version)
        for a in audits or [AuditSpec("edit", None, None, None, reason + "; no entry changed")]])
    return WriteResult(row, [a.audit_id for a in created], changed)


def _tie_breaks_before(doc: Document, scope: MemoryScope, now: datetime) -> set[tuple[str, str, str]]:
    """Tie-breaks already decided (and audited) in the previous version: key, winning and losing value."""
    return {(t.key, t.winner.value, t.loser.value) for t in tie_breaks(candidates(doc, scope, now))}


def parse_or_422(text: str, scope: MemoryScope) -> Document:
    try:
        return parse(text, scope)
    except ParseError as exc:
        raise MarkdownInvalid.of(exc) from None
