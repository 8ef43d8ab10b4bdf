"""memory_upsert, memory_delete and memory_compact (core-memory-markdown section 7), PUT of a whole document, and
the end of a run: each one call of the write path (services.documents.write) with its audit rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from elf_kernel.context import RequestContext
from elf_kernel.errors import InvalidRequest, NotFound

from ..domain import markdown
from ..domain.markdown import Document, Entry
from ..domain.precedence import effective, tie_breaks
from ..domain.ttl import SESSION_END, TtlError, is_expired, parse_ttl
from ..domain.vocabulary import MemoryScope
from ..selectors import Workspace, document
from .documents import AuditSpec, Edit, WriteResult, candidates, parse_or_422, write
from .gate import entry_fields, require_clean


@dataclass(frozen=True)
class EntryInput:
    kind: str
    key: str
    value: str
    priority: int
    ttl: str
    source: str


def workspace(ctx: RequestContext, scope: MemoryScope, run_id: str | None) -> Workspace:
    if scope is MemoryScope.SESSION and not run_id:
        raise InvalidRequest("A session entry belongs to a run: give run_id.", ["$.run_id"])
    return Workspace.of(ctx, scope, run_id)


def check_entry(scope: MemoryScope, e: EntryInput, path: str = "$") -> None:
    try:
        parse_ttl(e.ttl)
    except TtlError as exc:
        raise InvalidRequest(str(exc), [f"{path}.ttl"]) from None
    if e.ttl == SESSION_END and scope is not MemoryScope.SESSION:
        raise InvalidRequest("session_end is a TTL of session entries only.", [f"{path}.ttl"])
    require_clean(entry_fields(e.key, e.value, f"{path}.key", f"{path}.value"))


def upsert_entry(*, ctx: RequestContext, scope: MemoryScope, entry: EntryInput, run_id: str | None, reason: str,
                 op: str = "upsert") -> WriteResult:
    """Write ``entry`` as the only line of its key in the scope's document."""
    ws = workspace(ctx, scope, run_id)
    check_entry(scope, entry)

    def edit(doc: Document, now: datetime) -> Edit:
        new = Entry(key=entry.key, value=entry.value, kind=entry.kind, priority=entry.priority, ttl=entry.ttl,
                    source=entry.source, updated_at=now)
        after, _ = markdown.upsert(doc, new)
        old = _effective_value(doc, scope, entry.key, now)
        return Edit(after, [AuditSpec(op, entry.key, old, entry.value, reason)])

    return write(ws, edit, actor=entry.source, reason=reason, audit_run_id=run_id or None)


def _effective_value(doc: Document, scope: MemoryScope, key: str, now: datetime) -> str | None:
    best = effective(c for c in candidates(doc, scope, now) if c.key == key)
    return best[key].value if key in best else None


def delete_entry(*, ctx: RequestContext, scope: MemoryScope, key: str, run_id: str | None, actor: str,
                 reason: str) -> WriteResult:
    """Remove every line of ``key``; 404 when the document has none."""
    ws = workspace(ctx, scope, run_id)

    def edit(doc: Document, now: datetime) -> Edit:
        old = _effective_value(doc, scope, key, now)
        after, removed = markdown.remove_key(doc, key)
        if not removed:
            raise NotFound(f"No entry {key!r} in this {scope} document.", ["$.path.key"])
        return Edit(after, [AuditSpec("delete", key, old, None, reason)])

    return write(ws, edit, actor=actor, reason=reason, audit_run_id=run_id or None)


def has_key(ctx: RequestContext, scope: MemoryScope, key: str, run_id: str | None) -> bool:
    row = document(Workspace.of(ctx, scope, run_id))
    return row is not None and row.entries.filter(key=key).exists()


def compact(*, ctx: RequestContext, scope: MemoryScope, run_id: str | None, actor: str) -> tuple[WriteResult | None,
                                                                                              list[dict]]:
    """Remove expired lines and the losing lines of duplicate keys; (result or None, removed lines)."""
    ws = workspace(ctx, scope, run_id)
    row = document(ws)
    if row is None:
        return None, []
    ended = row.run_ended_at is not None
    stored = {r.line_no: r.updated_at for r in row.entries.all()}
    removed: list[dict] = []

    def edit(doc: Document, now: datetime) -> Edit:
        gone: dict[int, AuditSpec] = {}
        for n, e in doc.entries():
            written = e.updated_at or stored.get(n) or now
            if is_expired(parse_ttl(e.ttl), written, now, run_ended=ended):
                gone[n] = AuditSpec("compact", e.key, e.value, None, f"expired (ttl {e.ttl})")
        live = [c for c in candidates(doc, scope, now) if c.order not in gone]
        for t in tie_breaks(live):
            gone[t.loser.order] = AuditSpec("compact", t.key, t.loser.value, None, t.reason())
        removed[:] = [{"line": n, "key": a.key, "reason": a.reason} for n, a in sorted(gone.items())]
        return Edit(markdown.remove_lines(doc, set(gone)), [gone[n] for n in sorted(gone)])

    result = write(ws, edit, actor=actor, reason="compact", audit_run_id=run_id or None, allow_ended=True)
    return (result if result.changed else None), removed


def put_document(*, ctx: RequestContext, scope: MemoryScope, run_id: str | None, text: str, actor: str,
                 reason: str, if_version: int | None) -> WriteResult:
    """Replace a whole document with ``text`` (stored exactly); audit each key whose effective value changed."""
    ws = workspace(ctx, scope, run_id)
    new = parse_or_422(text, scope)
    fields = []
    for n, e in new.entries():
        fields += entry_fields(e.key, e.value, f"$.line[{n}].key", f"$.line[{n}].value")
    require_clean(fields)

    def edit(doc: Document, now: datetime) -> Edit:
        old = {k: c.value for k, c in effective(candidates(doc, scope, now)).items()}
        cur = {k: c.value for k, c in effective(candidates(new, scope, now)).items()}
        audits = [AuditSpec("upsert" if k in cur else "delete", k, old.get(k), cur.get(k), reason)
                  for k in sorted(set(old) | set(cur)) if old.get(k) != cur.get(k)]
        return Edit(new, audits)

    return write(ws, edit, actor=actor, reason=reason, audit_run_id=run_id or None, if_version=if_version)


@transaction.atomic
def end_run(*, ctx: RequestContext, run_id: str, actor: str) -> tuple[WriteResult | None, int]:
    """Close a run: its session_end entries expire at once. (result or None when already ended, expired count)."""
    ws = workspace(ctx, MemoryScope.SESSION, run_id)
    row = document(ws)
    if row is not None and row.run_ended_at is not None:
        return None, 0
    expired: list[AuditSpec] = []

    def edit(doc: Document, now: datetime) -> Edit:
        expired.extend(AuditSpec("expire", e.key, e.value, None, "ttl session_end: the run was ended")
                       for _, e in doc.entries() if e.ttl == SESSION_END)
        return Edit(doc, [AuditSpec("end_run", None, None, None, f"run {run_id} ended"), *expired])

    result = write(ws, edit, actor=actor, reason="end run", audit_run_id=run_id)
    result.doc.run_ended_at = result.doc.updated_at if result.changed else timezone.now()
    result.doc.save(update_fields=["run_ended_at"])
    return result, len(expired)
