"""The LLM response cache of search (spec v2 section 5.13 ``llm_cache``; section 13 steps 4 and 14).

Cache failures never fail a search (section 13, cache notes): a read that raises is a miss and a write that
raises is skipped, both logged. Each statement runs in its own savepoint, so a failed cache statement inside
a caller's transaction rolls back alone and leaves that transaction usable.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from elf_domain.cache_keys import payload_fits

from ..models import LlmCache

log = logging.getLogger(__name__)

CACHE_KIND_EXPANSION = "expansion"
CACHE_KIND_RERANK = "rerank"


def cache_get(kind: str, key: str, *, now: datetime | None = None) -> dict[str, Any] | None:
    """The payload cached under (``kind``, ``key``) when it has not expired at ``now`` (default: the current
    time), else None. A hit increments ``hit_count`` and sets ``last_accessed_at`` to ``now``. Any database
    error is logged and answered as a miss."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            row = (
                LlmCache.objects.filter(cache_kind=kind, cache_key=key, expires_at__gt=now)
                .values_list("cache_id", "payload")
                .first()
            )
            if row is None:
                return None
            cache_id, payload = row
            LlmCache.objects.filter(cache_id=cache_id).update(hit_count=F("hit_count") + 1, last_accessed_at=now)
            return payload
    except Exception:
        log.warning("llm_cache: read of %s entry %s failed; treating it as a miss", kind, key, exc_info=True)
        return None


def cache_put(kind: str, key: str, payload: dict[str, Any], *, ttl_days: int, max_payload_bytes: int | None) -> bool:
    """Store ``payload`` under (``kind``, ``key``) for ``ttl_days``, replacing any entry with that key (an
    expired one, or one a concurrent request stored first). Skipped when the payload is larger than
    ``max_payload_bytes`` (None: no limit). True when stored; any error is logged and answered False."""
    try:
        if not payload_fits(payload, max_payload_bytes):
            log.info("llm_cache: %s payload for %s exceeds %s bytes; not cached", kind, key, max_payload_bytes)
            return False
        now = timezone.now()
        entry = LlmCache(
            cache_kind=kind,
            cache_key=key,
            payload=payload,
            created_at=now,
            last_accessed_at=now,
            expires_at=now + timedelta(days=ttl_days),
            hit_count=0,
        )
        with transaction.atomic():
            LlmCache.objects.bulk_create(
                [entry],
                update_conflicts=True,
                unique_fields=["cache_kind", "cache_key"],
                update_fields=["payload", "created_at", "last_accessed_at", "expires_at", "hit_count"],
            )
        return True
    except Exception:
        log.warning("llm_cache: write of %s entry %s failed; not cached", kind, key, exc_info=True)
        return False


def purge_expired(*, now: datetime | None = None) -> int:
    """Delete the entries that expired at ``now`` (default: the current time); returns how many."""
    return LlmCache.objects.filter(expires_at__lte=now or timezone.now()).delete()[0]
