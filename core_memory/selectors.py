"""Core memory reads, always inside one workspace: the caller's tenant and project (POLICY.md: the tenant's),
and one run for SESSION.md. No read crosses tenants; no public read returns policy beyond resolved values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db import connection
from django.db.models import QuerySet

from elf_kernel.context import RequestContext

from .domain.vocabulary import MemoryScope
from .models import CoreMemoryAudit, CoreMemoryDocument, CoreMemoryPending, PendingStatus


@dataclass(frozen=True)
class Workspace:
    """Where one document lives: (tenant, project) for PROFILE.md, plus a run for SESSION.md, the tenant alone
    (project '') for POLICY.md."""

    tenant_id: str
    project_id: str
    scope: MemoryScope
    run_id: str

    @classmethod
    def of(cls, ctx: RequestContext, scope: MemoryScope, run_id: str | None = None) -> Workspace:
        if scope is MemoryScope.POLICY:
            return cls(ctx.tenant_id, "", scope, "")
        return cls(ctx.tenant_id, ctx.project_id, scope, (run_id or "") if scope is MemoryScope.SESSION else "")

    def filter(self) -> dict:
        return {"tenant_id": self.tenant_id, "project_id": self.project_id, "scope": self.scope,
                "run_id": self.run_id}


def document(ws: Workspace) -> CoreMemoryDocument | None:
    return CoreMemoryDocument.objects.filter(**ws.filter()).first()


def run_audit(ctx: RequestContext, run_id: str) -> QuerySet[CoreMemoryAudit]:
    """A run's audit rows in order, policy rows left out (they are the admin's)."""
    return CoreMemoryAudit.objects.filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, run_id=run_id).exclude(
        scope=MemoryScope.POLICY).order_by("audit_id")


def pending_entries(ctx: RequestContext, run_id: str) -> QuerySet[CoreMemoryPending]:
    return CoreMemoryPending.objects.filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, run_id=run_id,
                                            status=PendingStatus.PENDING).order_by("created_at", "entry_id")


def pending_entry(ctx: RequestContext, run_id: str, entry_id) -> CoreMemoryPending | None:
    return CoreMemoryPending.objects.filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, run_id=run_id,
                                            entry_id=entry_id).first()


class Winner(NamedTuple):
    """The entry that decides a key, its times already in the API's ISO form (UTC, "Z")."""

    scope: str
    key: str
    kind: str
    value: str
    priority: int
    ttl: str
    source: str
    updated_at: str
    expires_at: str | None


def _iso(column: str) -> str:
    # UTC with microseconds and "Z"; api_time() drops zero microseconds (formatting here is cheaper than parsing
    # timestamps into Python and formatting them again; a regexp per row in SQL cost more still).
    return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"


def api_time(text: str | None) -> str | None:
    """The API's date-time form, as DRF renders it: microseconds only when there are any."""
    if text is not None and text.endswith(".000000Z"):
        return text[:-8] + "Z"
    return text


# The winning live entry of each key among the three documents a workspace's run sees: the tenant's policy, the
# workspace's profile and, with a run, that run's session. Expired entries (a passed expires_at, or session_end
# on an ended run) never come back. The ORDER BY is domain.precedence.rank in SQL (Policy > Profile > Session,
# then priority, updated_at, the later line); tests/core_memory/test_core_memory_resolve_rule.py holds the two equal.
_WINNERS = f"""
SELECT DISTINCT ON (e.key) e.scope, e.key, e.kind, e.value, e.priority, e.ttl, e.source,
       {_iso("e.updated_at")}, {_iso("e.expires_at")}
  FROM core_memory_entries e
  JOIN core_memory_documents d ON d.doc_id = e.doc_id
 WHERE e.tenant_id = %(tenant)s
   AND ((e.scope = 'policy' AND e.project_id = '' AND e.run_id = '')
     OR (e.scope = 'profile' AND e.project_id = %(project)s AND e.run_id = '')
     OR (e.scope = 'session' AND e.project_id = %(project)s AND e.run_id = %(run)s AND %(run)s <> ''))
   AND (e.expires_at IS NULL OR e.expires_at > %(now)s)
   AND NOT (e.until_session_end AND d.run_ended_at IS NOT NULL)
   {{keys}}
 ORDER BY e.key, CASE e.scope WHEN 'policy' THEN 0 WHEN 'profile' THEN 1 ELSE 2 END, e.priority DESC,
          e.updated_at DESC, e.line_no DESC
"""


# The keys a workspace's run has written itself: live lines of its PROFILE.md and, with a run, its SESSION.md
# (the same liveness as _WINNERS). memory_resolve without keys lists these and only these: a key only POLICY.md
# has is never enumerated (core-memory-markdown: "No ordinary API route reads raw policy").
_OWN_KEYS = """
SELECT DISTINCT e.key
  FROM core_memory_entries e
  JOIN core_memory_documents d ON d.doc_id = e.doc_id
 WHERE e.tenant_id = %(tenant)s
   AND ((e.scope = 'profile' AND e.project_id = %(project)s AND e.run_id = '')
     OR (e.scope = 'session' AND e.project_id = %(project)s AND e.run_id = %(run)s AND %(run)s <> ''))
   AND (e.expires_at IS NULL OR e.expires_at > %(now)s)
   AND NOT (e.until_session_end AND d.run_ended_at IS NOT NULL)
 ORDER BY e.key
"""


def own_keys(ctx: RequestContext, *, run_id: str | None, now: datetime) -> list[str]:
    """The keys with a live line in the caller's PROFILE.md or this run's SESSION.md, sorted."""
    params = {"tenant": ctx.tenant_id, "project": ctx.project_id, "run": run_id or "", "now": now}
    with connection.cursor() as cur:
        cur.execute(_OWN_KEYS, params)
        return [row[0] for row in cur.fetchall()]


def winners(ctx: RequestContext, *, run_id: str | None, keys: list[str] | None, now: datetime) -> list[Winner]:
    """The deciding entry of each live key (of ``keys`` when given), sorted by key."""
    params = {"tenant": ctx.tenant_id, "project": ctx.project_id, "run": run_id or "", "now": now}
    if keys is not None:
        params["keys"] = keys
    sql = _WINNERS.replace("{keys}", "AND e.key = ANY(%(keys)s)" if keys is not None else "")
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return [Winner(*row[:7], api_time(row[7]), api_time(row[8])) for row in cur.fetchall()]
