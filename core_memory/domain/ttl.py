"""TTL forms of core memory (core-memory-markdown section 4): ``none``, a duration (``30m``, ``8h``, ``7d``; also
``s`` and ``w``), an absolute ISO-8601 time with a zone, or ``session_end`` (until the run is ended)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

NONE, SESSION_END = "none", "session_end"
_DURATION = re.compile(r"^([1-9][0-9]{0,6})([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
MAX_DURATION_SECONDS = 10 * 365 * 86400


class TtlError(ValueError):
    """Not a TTL this service understands; the message says what is accepted."""


@dataclass(frozen=True)
class Ttl:
    text: str  # as written
    seconds: int | None = None  # a duration
    at: datetime | None = None  # an absolute time
    session_end: bool = False

    def expires_at(self, updated_at: datetime) -> datetime | None:
        """When an entry written at ``updated_at`` expires; None for ``none`` and ``session_end``."""
        if self.seconds is not None:
            return updated_at + timedelta(seconds=self.seconds)
        return self.at


def parse_iso(text: str) -> datetime:
    """An ISO-8601 time that names its zone (``Z`` or an offset); ValueError otherwise."""
    value = datetime.fromisoformat(text.strip().replace("z", "Z").replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError("the time has no zone (write Z or an offset such as +07:00)")
    return value


def parse_ttl(text: str) -> Ttl:
    t = text.strip()
    if t == NONE:
        return Ttl(t)
    if t == SESSION_END:
        return Ttl(t, session_end=True)
    m = _DURATION.match(t)
    if m:
        seconds = int(m.group(1)) * _UNIT_SECONDS[m.group(2)]
        if seconds > MAX_DURATION_SECONDS:
            raise TtlError(f"ttl {t} is longer than ten years")
        return Ttl(t, seconds=seconds)
    if t[:1].isdigit() and "T" in t:
        try:
            return Ttl(t, at=parse_iso(t))
        except ValueError as exc:
            raise TtlError(f"ttl {t!r} is not a valid ISO-8601 time: {exc}") from None
    raise TtlError(f"ttl {t!r} is not none, session_end, a duration such as 30m, 8h or 7d, or an ISO-8601 time "
                   "with a zone")


def is_expired(ttl: Ttl, updated_at: datetime, now: datetime, *, run_ended: bool) -> bool:
    """Whether an entry with ``ttl`` written at ``updated_at`` is expired at ``now``."""
    if ttl.session_end:
        return run_ended
    at = ttl.expires_at(updated_at)
    return at is not None and at <= now
