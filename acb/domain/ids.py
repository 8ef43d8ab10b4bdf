"""Time-ordered ids with a type prefix (evt_, chk_, dec_, tsk_, art_, acb_), as the PRD's examples show: 48 bits
of milliseconds then 80 random bits, in Crockford base32 (a ULID), so ids sort by creation time."""

from __future__ import annotations

import os
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid(now_ms: int | None = None) -> str:
    value = ((now_ms if now_ms is not None else time.time_ns() // 1_000_000) << 80) | int.from_bytes(
        os.urandom(10), "big")
    return "".join(_ALPHABET[(value >> shift) & 31] for shift in range(125, -1, -5))


def new_id(prefix: str) -> str:
    return f"{prefix}_{ulid()}"
