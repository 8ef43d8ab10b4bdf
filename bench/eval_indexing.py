"""Waiting until ingested notes are searchable, by reading indexing_outbox in Postgres.

The public API has no indexing-status endpoint, so elf-eval (which runs next to the service) reads the
outbox with the config's DSN: a note is indexed once it has a DONE UPSERT job and no PENDING or FAILED one.
FAILED jobs are retried by the worker's sweep with backoff, so they are waited on too, up to the timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import psycopg

_STATUS_SQL = """
SELECT count(*) FILTER (WHERE done AND NOT open), count(*) FILTER (WHERE failed), max(last_error)
FROM (
    SELECT note_id, bool_or(status = 'DONE') AS done, bool_or(status IN ('PENDING', 'FAILED')) AS open,
           bool_or(status = 'FAILED') AS failed, max(last_error) AS last_error
    FROM indexing_outbox WHERE note_id = ANY(%s::uuid[]) AND op = 'UPSERT' GROUP BY note_id
) per_note
"""


class IndexingTimeout(RuntimeError):
    pass


@dataclass(frozen=True)
class IndexStatus:
    indexed: int
    failed: int
    last_error: str | None


def index_status(dsn: str, note_ids: list[str]) -> IndexStatus:
    with psycopg.connect(dsn, connect_timeout=10) as conn:
        indexed, failed, last_error = conn.execute(_STATUS_SQL, [note_ids]).fetchone()
    return IndexStatus(indexed=indexed or 0, failed=failed or 0, last_error=last_error)


def wait_indexed(dsn: str, note_ids: list[str], *, timeout_s: float, on_progress: Callable[[int], None],
                 poll_s: float = 0.5) -> float:
    """Block until every note in ``note_ids`` is indexed; returns the seconds waited.

    ``on_progress(indexed)`` is called after each poll. Raises IndexingTimeout after ``timeout_s``."""
    t0 = time.monotonic()
    total = len(set(note_ids))
    while True:
        status = index_status(dsn, note_ids)
        on_progress(status.indexed)
        if status.indexed >= total:
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout_s:
            raise IndexingTimeout(
                f"{total - status.indexed} of {total} notes not indexed after {timeout_s:g} s "
                f"({status.failed} with a FAILED job; last error: {status.last_error or 'none'}); "
                "is elf-worker running?"
            )
        time.sleep(poll_s)
