"""memory_resolve (core-memory-markdown sections 3 and 7): the effective value of each key over the tenant's
policy, the workspace's profile and the run's session, with its provenance. A policy-decided key reports its
value and provenance scope ``policy`` only: nothing else of POLICY.md leaves the admin bind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from elf_kernel.context import RequestContext

from ..domain.precedence import Candidate, effective
from ..domain.vocabulary import MemoryScope
from ..selectors import live_entries


@dataclass(frozen=True)
class Resolved:
    key: str
    value: str | None
    provenance: dict | None


def provenance(c: Candidate, expires_at: datetime | None) -> dict:
    if c.scope is MemoryScope.POLICY:
        return {"scope": "policy", "kind": None, "priority": None, "updated_at": None, "source": None, "ttl": None,
                "expires_at": None}
    return {"scope": str(c.scope), "kind": c.kind, "priority": c.priority, "updated_at": c.updated_at,
            "source": c.source, "ttl": c.ttl, "expires_at": expires_at}


def resolve(*, ctx: RequestContext, keys: list[str] | None, run_id: str | None,
            now: datetime | None = None) -> list[Resolved]:
    """One item per key asked (in order; value null when no live entry has it), or, without keys, every key that
    has a live entry, sorted by key."""
    rows = live_entries(ctx, run_id=run_id, keys=keys, now=now or timezone.now())
    expiry = {(r.scope, r.key, r.line_no): r.expires_at for r in rows}
    best = effective(Candidate(MemoryScope(r.scope), r.key, r.value, r.kind, r.priority, r.updated_at, r.source,
                               r.ttl, r.line_no) for r in rows)
    out = []
    for key in keys if keys is not None else sorted(best):
        c = best.get(key)
        out.append(Resolved(key, None, None) if c is None else
                   Resolved(key, c.value, provenance(c, expiry[(str(c.scope), key, c.order)])))
    return out
