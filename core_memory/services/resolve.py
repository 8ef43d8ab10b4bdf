"""memory_resolve (core-memory-markdown sections 3 and 7): the effective value of each key over the tenant's
policy, the workspace's profile and the run's session, with its provenance. A policy-decided key reports its
value and provenance scope ``policy`` only: nothing else of POLICY.md leaves the admin bind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from elf_kernel.context import RequestContext

from ..selectors import Winner, own_keys, winners

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


def resolve(*, ctx: RequestContext, keys: list[str] | None, run_id: str | None, now: datetime | None = None,
            enumerate_policy: bool = True) -> list[Resolved]:
    """One item per key asked (in order; value null when no live entry has it), or, without keys, the live keys
    sorted by key.

    ``enumerate_policy`` says which keys "without keys" lists. True: every live key, POLICY.md's included (a
    bundle renders the tenant's rules into the agent's context). False, as the public memory_resolve route calls
    it: only keys the caller's PROFILE.md or the run's SESSION.md has live; such a key that policy overrides
    still reports the policy's value with provenance scope ``policy``, and a key named in ``keys`` resolves over
    all three documents either way (core-memory-markdown section 7, "No ordinary API route reads raw policy")."""
    now = now or timezone.now()
    if keys is None and not enumerate_policy:
        keys = own_keys(ctx, run_id=run_id, now=now)
        if not keys:
            return []
    best = {w.key: w for w in winners(ctx, run_id=run_id, keys=keys, now=now)}
    out = []
    for key in keys if keys is not None else best:
        w = best.get(key)
        out.append(Resolved(key, None, None) if w is None else Resolved(key, w.value, provenance(w)))
    return out
