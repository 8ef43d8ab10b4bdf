"""The trace outbox worker: lease due search_trace_outbox rows, persist their payloads, settle them.

The same protocol as the indexing outbox (``memory.indexing.lease``; supplement section 4): a claim picks
PENDING/FAILED rows with ``available_at <= now()`` using ``FOR UPDATE SKIP LOCKED`` and pushes
``available_at`` forward by the lease (30 s); the new ``available_at`` is the lease's token, and a row is
settled (DONE, or FAILED with attempts + 1, scrubbed ``last_error`` and backoff) only while the token still
matches. Backoff and error text come from the indexing lease module.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction

from elf_project.config import ElfConfig
from memory.indexing.lease import LEASE_SECONDS, backoff_seconds, error_text
from memory.models import OutboxStatus

from ..models import SearchTraceOutbox
from .persist import persist_trace

log = logging.getLogger("elf.traces")

# Persisting a trace is a handful of inserts: a sweep takes a larger batch than indexing does, and starts
# none after the budget (well inside the lease); unstarted rows are released for the next sweep.
SWEEP_BATCH = 64
SWEEP_BUDGET_S = 20.0

_DUE = f"status IN ('{OutboxStatus.PENDING}', '{OutboxStatus.FAILED}') AND available_at <= now()"
_CLAIM = f"""
UPDATE search_trace_outbox o
   SET available_at = now() + make_interval(secs => %(lease)s), updated_at = now()
  FROM (SELECT outbox_id FROM search_trace_outbox
         WHERE {_DUE} {{extra}}
         ORDER BY available_at, created_at
         LIMIT %(limit)s
         FOR UPDATE SKIP LOCKED) due
 WHERE o.outbox_id = due.outbox_id
RETURNING o.outbox_id, o.trace_id, o.attempts, o.available_at, o.created_at
"""


@dataclass(frozen=True)
class TraceLease:
    """A claimed trace outbox row; ``leased_until`` is its new available_at and the lease's token."""

    outbox_id: uuid.UUID
    trace_id: uuid.UUID
    attempts: int
    leased_until: datetime
    created_at: datetime


def _claim(extra_sql: str, params: dict) -> list[TraceLease]:
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(_CLAIM.format(extra=extra_sql), {"lease": LEASE_SECONDS, **params})
        leases = [TraceLease(*row) for row in cur.fetchall()]
    return sorted(leases, key=lambda lease: lease.created_at)


def lease_due(limit: int) -> list[TraceLease]:
    """Claim up to ``limit`` due rows, oldest first; rows another transaction holds are skipped."""
    return _claim("", {"limit": limit})


def lease_one(outbox_id: uuid.UUID | str) -> TraceLease | None:
    """Claim one row if it is due; None when done, waiting for its backoff, or held by another worker."""
    leases = _claim("AND outbox_id = %(outbox_id)s", {"limit": 1, "outbox_id": str(outbox_id)})
    return leases[0] if leases else None


def _settle(lease: TraceLease, set_sql: str, params: dict) -> bool:
    with connection.cursor() as cur:
        cur.execute(
            f"UPDATE search_trace_outbox SET {set_sql}, updated_at = now() "
            "WHERE outbox_id = %(outbox_id)s AND available_at = %(token)s AND status <> %(done)s",
            {**params, "outbox_id": lease.outbox_id, "token": lease.leased_until, "done": OutboxStatus.DONE},
        )
        return cur.rowcount == 1


def mark_done(lease: TraceLease) -> bool:
    return _settle(lease, "status = %(status)s", {"status": OutboxStatus.DONE})


def mark_failed(lease: TraceLease, exc: BaseException, cfg: ElfConfig) -> bool:
    return _settle(
        lease,
        "status = %(status)s, attempts = attempts + 1, last_error = %(error)s, "
        "available_at = now() + make_interval(secs => %(delay)s)",
        {"status": OutboxStatus.FAILED, "error": error_text(exc, cfg), "delay": backoff_seconds(lease.attempts + 1)},
    )


def release(lease: TraceLease) -> bool:
    return _settle(lease, "available_at = now()", {})


def process(lease: TraceLease, *, cfg: ElfConfig) -> bool:
    """Persist the claimed row's payload and settle the row: DONE (True) or FAILED with backoff (False)."""
    try:
        payload = SearchTraceOutbox.objects.values_list("payload", flat=True).get(outbox_id=lease.outbox_id)
        persist_trace(payload)
    except Exception as exc:
        log.warning("trace outbox %s (trace %s) failed, attempt %d: %s", lease.outbox_id, lease.trace_id,
                    lease.attempts + 1, exc)
        mark_failed(lease, exc, cfg)
        return False
    if not mark_done(lease):
        log.info("trace outbox %s: lease lost before completion; the newer claim settles it", lease.outbox_id)
    return True


def process_row(*, cfg: ElfConfig, outbox_id: uuid.UUID | str) -> bool:
    """Process one row if it is due (the task sent on commit)."""
    lease = lease_one(outbox_id)
    return lease is not None and process(lease, cfg=cfg)


def process_due(*, cfg: ElfConfig) -> int:
    """The sweep: claim up to SWEEP_BATCH due rows and process them oldest first; returns how many are DONE."""
    started = time.monotonic()
    leases = lease_due(SWEEP_BATCH)
    done = 0
    for position, lease in enumerate(leases):
        if time.monotonic() - started > SWEEP_BUDGET_S:
            for unstarted in leases[position:]:
                release(unstarted)
            break
        done += process(lease, cfg=cfg)
    return done
