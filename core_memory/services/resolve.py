"""memory_resolve (core-memory-markdown sections 3 and 7): the effective value of each key over the tenant's
policy, the workspace's profile and the run's session, with its provenance. A policy-decided key reports its
value and provenance scope ``policy`` only: nothing else of POLICY.md leaves the admin bind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from elf_kernel.context import RequestContext

from ..selectors import Winner, winners

POLICY_ONLY = {"scope": "policy", "kind": None, "priority": None, "updated_at": None, "source": None, "ttl": None,
               "expires_at": None}


@dataclass(frozen=True)
class Resolved:
    key: str
    value: str | None
    provenance: dict | None


def provenance(w: Winner) -> dict:
    if w.scope == "policy":
        return POLICY_ONLY
    return {"scope": w.scope, "kind": w.kind, "priority": w.priority, "updated_at": w.updated_at,
            "source": w.source, "ttl": w.ttl, "expires_at": w.expires_at}


def resolve(*, ctx: RequestContext, keys: list[str] | None, run_id: str | None,
            now: datetime | None = None) -> list[Resolved]:
    """One item per key asked (in order; value null when no live entry has it), or, without keys, every key that
    has a live entry, sorted by key."""
    best = {w.key: w for w in winners(ctx, run_id=run_id, keys=keys, now=now or timezone.now())}
    out = []
    for key in keys if keys is not None else best:
        w = best.get(key)
        out.append(Resolved(key, None, None) if w is None else Resolved(key, w.value, provenance(w)))
    return out
