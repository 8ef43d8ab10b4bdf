"""Claiming and settling indexing_outbox rows (spec v2 section 12; supplement section 4).

A worker claims a due row (status PENDING or FAILED, ``available_at <= now()``) with
``FOR UPDATE SKIP LOCKED`` and, in the same statement, pushes ``available_at`` forward by the lease
(30 s). Other workers then see the row as not due, so a row is processed by one worker at a time; a worker
that dies mid-job simply lets the lease run out and the next sweep claims the row again. Status and
attempts are untouched by a claim: only a failure counts as an attempt.

The new ``available_at`` is the lease's token. Settling a row (done, failed, released) only applies while
the token still matches, so a worker whose lease ran out and was re-claimed by another cannot overwrite
the newer claim's outcome.

Failure: status FAILED, attempts + 1, ``last_error`` (secrets scrubbed, at most 1024 characters) and
``available_at = now() + backoff(attempts)`` with backoff = 500 ms * 2^(attempts - 1), capped at 30 s.
The row is never deleted: if even recording the failure fails (database down), the row keeps its lease and
is claimed again once the lease runs out.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction

from elf_project.config import ElfConfig

from ..models import OutboxStatus

LEASE_SECONDS = 30.0
BACKOFF_BASE_SECONDS = 0.5
BACKOFF_CAP_SECONDS = 30.0
LAST_ERROR_MAX_CHARS = 1024

_DUE = f"status IN ('{OutboxStatus.PENDING}', '{OutboxStatus.FAILED}') AND available_at <= now()"
_CLAIM = f"""
UPDATE indexing_outbox o
   SET available_at = now() + make_interval(secs => %(lease)s), updated_at = now()
  FROM (SELECT outbox_id FROM indexing_outbox
         WHERE {_DUE} {{extra}}
         ORDER BY available_at, created_at
         LIMIT %(limit)s
         FOR UPDATE SKIP LOCKED) due
 WHERE o.outbox_id = due.outbox_id
RETURNING o.outbox_id, o.note_id, o.op, o.embedding_version, o.attempts, o.available_at, o.created_at
"""


@dataclass(frozen=True)
class Lease:
    """A claimed outbox row. ``leased_until`` is the row's new available_at and the lease's token."""

    outbox_id: uuid.UUID
    note_id: uuid.UUID
    op: str
    embedding_version: str
    attempts: int
    leased_until: datetime
    created_at: datetime


def _claim(extra_sql: str, params: dict) -> list[Lease]:
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(_CLAIM.format(extra=extra_sql), {"lease": LEASE_SECONDS, **params})
        leases = [Lease(*row) for row in cur.fetchall()]
    return sorted(leases, key=lambda lease: lease.created_at)


def lease_due(limit: int) -> list[Lease]:
    """Claim up to ``limit`` due rows (oldest first); rows another transaction holds are skipped."""
    return _claim("", {"limit": limit})


def lease_one(outbox_id: uuid.UUID | str) -> Lease | None:
    """Claim one row if it is due; None when it is done, not due yet, or held by another worker."""
    leases = _claim("AND outbox_id = %(outbox_id)s", {"limit": 1, "outbox_id": str(outbox_id)})
    return leases[0] if leases else None


def backoff_seconds(attempts: int) -> float:
    """Delay before retry number ``attempts`` (1-based): 0.5 s, 1 s, 2 s, ... capped at 30 s."""
    return min(BACKOFF_BASE_SECONDS * 2 ** max(attempts - 1, 0), BACKOFF_CAP_SECONDS)


def _secrets(cfg: ElfConfig) -> list[str]:
    p = cfg.providers
    values = [p.embedding.api_key, p.rerank.api_key, p.llm_extractor.api_key]
    dsn_password = connection.settings_dict.get("PASSWORD")
    if dsn_password:
        values.append(dsn_password)
    return [v for v in values if len(v) >= 4]


def error_text(exc: BaseException, cfg: ElfConfig) -> str:
    """``Type: message`` with configured secrets replaced, at most LAST_ERROR_MAX_CHARS characters.

    Provider errors never carry an api_key already; scrubbing again covers every other exception text.
    """
    text = f"{type(exc).__name__}: {exc}"
    for secret in _secrets(cfg):
        text = text.replace(secret, "[redacted]")
    return text[:LAST_ERROR_MAX_CHARS]


def _settle(lease: Lease, set_sql: str, params: dict) -> bool:
    with connection.cursor() as cur:
        cur.execute(
            f"UPDATE indexing_outbox SET {set_sql}, updated_at = now() "
            "WHERE outbox_id = %(outbox_id)s AND available_at = %(token)s AND status <> %(done)s",
            {**params, "outbox_id": lease.outbox_id, "token": lease.leased_until, "done": OutboxStatus.DONE},
        )
        return cur.rowcount == 1


def mark_done(lease: Lease) -> bool:
    """DONE; False when the lease was lost (another worker holds or finished the row)."""
    return _settle(lease, "status = %(status)s", {"status": OutboxStatus.DONE})


def mark_failed(lease: Lease, exc: BaseException, cfg: ElfConfig) -> bool:
    """FAILED with attempts + 1, last_error and the backoff; False when the lease was lost."""
    attempts = lease.attempts + 1
    return _settle(
        lease,
        "status = %(status)s, attempts = attempts + 1, last_error = %(error)s, "
        "available_at = now() + make_interval(secs => %(delay)s)",
        {"status": OutboxStatus.FAILED, "error": error_text(exc, cfg), "delay": backoff_seconds(attempts)},
    )


def release(lease: Lease) -> bool:
    """Give a claimed row back unprocessed: due again at once, nothing counted."""
    return _settle(lease, "available_at = now()", {})
