"""Time-ordered UUIDs (RFC 9562 version 7) for rows written in time order: a 48-bit Unix millisecond timestamp,
then 74 random bits. A btree on such keys grows at its right edge, so an insert touches the few pages the
last inserts touched, where a random (version 4) key lands on any leaf of the index: once an index outgrows
Postgres's buffers, each insert then reads a page and, after each checkpoint, writes a full page image to the
WAL. Search traces are the heaviest such writes (about 150 rows per search, docs/benchmarks.md)."""

from __future__ import annotations

import os
import time
import uuid

TIMESTAMP_BYTES = 6


def uuid7(unix_ms: int | None = None) -> uuid.UUID:
    """A version 7 UUID for ``unix_ms`` (default: now). Two made in the same millisecond differ in their 74
    random bits, not in order."""
    ms = time.time_ns() // 1_000_000 if unix_ms is None else unix_ms
    return _with_random(ms.to_bytes(TIMESTAMP_BYTES, "big"))


def same_time_uuid(of: uuid.UUID) -> uuid.UUID:
    """A new random UUID with ``of``'s timestamp (its first 48 bits) and version 7's layout: the rows of one
    trace sort with it. ``of`` is normally a ``uuid7``; any UUID gives a valid, unique-with-high-probability
    one."""
    return _with_random(of.bytes[:TIMESTAMP_BYTES])


def _with_random(timestamp: bytes) -> uuid.UUID:
    b = bytearray(timestamp + os.urandom(10))
    b[6] = 0x70 | (b[6] & 0x0F)  # version 7
    b[8] = 0x80 | (b[8] & 0x3F)  # RFC 9562 variant
    return uuid.UUID(bytes=bytes(b))
