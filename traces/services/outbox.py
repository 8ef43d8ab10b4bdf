"""The trace outbox worker: lease due search_trace_outbox rows, persist their payloads, settle them.

The lease protocol is the one shared with the indexing outbox (elf_kernel.outbox_lease).
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import DatabaseError

from elf_config import ElfConfig
from elf_kernel.outbox_lease import OutboxLeaser

from ..models import SearchTraceOutbox
from .persist import persist_trace
from .persist_batch import persist_claimed

log = logging.getLogger("elf.traces")

# Persisting a trace is a handful of inserts: a sweep takes a larger batch than indexing does, and starts
# none after the budget (well inside the lease); unstarted rows are released for the next sweep.
SWEEP_BATCH = 64
SWEEP_BUDGET_S = 20.0

@dataclass(frozen=True)
class TraceLease:
    """A claimed trace outbox row; ``leased_until`` is its new available_at and the lease's token."""

    outbox_id: uuid.UUID
    trace_id: uuid.UUID
    attempts: int
    leased_until: datetime
    created_at: datetime


_LEASER = OutboxLeaser("search_trace_outbox", ("trace_id",), TraceLease)
lease_due = _LEASER.lease_due
lease_one = _LEASER.lease_one
release = _LEASER.release


def process(lease: TraceLease, *, cfg: ElfConfig) -> bool:
    """Persist the claimed row's payload and settle the row: DONE (True) or FAILED with backoff (False)."""

    def work() -> None:
        persist_trace(SearchTraceOutbox.objects.values_list("payload", flat=True).get(outbox_id=lease.outbox_id))

    return _LEASER.run(lease, work, cfg, what=f"trace outbox {lease.outbox_id} (trace {lease.trace_id})", log=log)


def process_row(*, cfg: ElfConfig, outbox_id: uuid.UUID | str) -> bool:
    """Process one row if it is due (the task sent on commit)."""
    lease = lease_one(outbox_id)
    return lease is not None and process(lease, cfg=cfg)


def process_due(*, cfg: ElfConfig) -> int:
    """The sweep (every second; searches send no task of their own): claim SWEEP_BATCH due rows at a time,
    oldest first, and persist them in one statement (``persist_batch``); rows it leaves (another schema, a
    naive timestamp) or a batch it cannot write (a payload breaking a cast or a constraint) are processed one
    by one, so a bad payload fails alone (FAILED, with the reason) and never holds the others back. Again
    while every row of the last batch was DONE and the budget lasts; returns how many are DONE."""
    started, done = time.monotonic(), 0
    while (budget := SWEEP_BUDGET_S - (time.monotonic() - started)) > 0:
        batch_done = _LEASER.sweep(lambda lease: process(lease, cfg=cfg), batch=SWEEP_BATCH, budget_s=budget,
                                   together=_persist_together)
        done += batch_done
        if batch_done < SWEEP_BATCH:
            break
    return done


def _persist_together(leases: list) -> set:
    """The claimed rows persisted in one statement; none (the caller goes one by one) when it fails."""
    try:
        return persist_claimed(leases)
    except DatabaseError as exc:
        log.warning("trace sweep: a batch of %d could not be written in one statement, one by one: %s",
                    len(leases), exc)
        return set()
