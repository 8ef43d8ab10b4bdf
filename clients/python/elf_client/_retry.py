"""When and how long the client waits before it sends a request again."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from ._errors import ElfError


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of one call, bounded by ``max_attempts`` (the first try included; 1 turns retries off).

    A call is sent again after an answer whose status is in ``statuses`` (429 RATE_LIMITED and 503, which the
    service documents as safe to repeat as they are: a keyed write replays as NONE), and after a connection that
    could not be opened (the request never reached the service). The wait is the answer's ``Retry-After``
    (seconds or an HTTP date) when it has one, else ``backoff * 2**(retry - 1)`` seconds with jitter, at most
    ``max_backoff``. A ``Retry-After`` longer than ``max_retry_after`` is not waited out: the call raises at once
    (its :class:`ElfError` carries ``retry_after``). ``on_retry(attempt, delay, error)`` is called before each
    wait, e.g. to log it.
    """

    max_attempts: int = 4
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    statuses: frozenset[int] = field(default_factory=lambda: frozenset({429, 503}))
    retry_connect_errors: bool = True
    on_retry: Callable[[int, float, ElfError], None] | None = None

    def __post_init__(self):
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    def delay(self, attempt: int, error: ElfError) -> float | None:
        """Seconds to wait before attempt ``attempt + 1`` after ``error``, or None: raise ``error``."""
        if attempt >= self.max_attempts:
            return None
        if error.status is None:
            if not (self.retry_connect_errors and error.error_code == "CONNECTION_ERROR"):
                return None
        elif error.status not in self.statuses:
            return None
        if error.retry_after is not None:
            return None if error.retry_after > self.max_retry_after else error.retry_after
        base = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return base * (0.5 + random.random() / 2)


NO_RETRY = RetryPolicy(max_attempts=1)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date), None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
