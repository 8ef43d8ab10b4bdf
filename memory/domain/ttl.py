"""TTL assignment on write (spec v2 section 11), pure."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta


def expires_at(
    *, now: datetime, note_type: str, request_ttl_days: int | None, ttl_days_by_type: Mapping[str, int]
) -> datetime | None:
    """When a note written at ``now`` expires: ``now + request_ttl_days`` when the request gives a positive
    value, else ``now + ttl_days_by_type[note_type]`` (``lifecycle.ttl_days``) when that is positive, else
    None (never). ``note_type`` must be a key of ``ttl_days_by_type`` (config rules require all six)."""
    if request_ttl_days is not None and request_ttl_days > 0:
        return now + timedelta(days=request_ttl_days)
    type_days = ttl_days_by_type[note_type]
    if type_days > 0:
        return now + timedelta(days=type_days)
    return None
