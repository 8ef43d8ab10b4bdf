"""Postgres advisory locks in the two-key form (class, hashtext(key)): one lock class per kind of thing
(the ASCII of a short tag as a signed int4), the thing's identity as the key."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection


def lock_class(tag: bytes) -> int:
    """The first key of a lock space: four ASCII bytes (e.g. b"ELFN") read as a signed int4."""
    return int.from_bytes(tag, "big", signed=True)


@contextmanager
def advisory_lock(cls: int, key: str) -> Iterator[None]:
    """Hold a session advisory lock for the block (waits while another session holds it)."""
    params = [cls, key]
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", params)
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", params)


def advisory_xact_lock(cls: int, key: str) -> None:
    """Take a transaction advisory lock, released at commit or rollback."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [cls, key])
