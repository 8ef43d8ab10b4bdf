"""Claiming and settling indexing_outbox rows: the shared outbox lease protocol
(elf_kernel.outbox_lease) applied to this table."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from elf_kernel.outbox_lease import (  # noqa: F401  (re-exported for the indexing modules)
    LAST_ERROR_MAX_CHARS,
    OutboxLeaser,
    backoff_seconds,
    error_text,
)


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


LEASER = OutboxLeaser("indexing_outbox", ("note_id", "op", "embedding_version"), Lease)
lease_due = LEASER.lease_due
lease_one = LEASER.lease_one
mark_done = LEASER.mark_done
mark_all_done = LEASER.mark_all_done
mark_failed = LEASER.mark_failed
release = LEASER.release
run = LEASER.run
sweep = LEASER.sweep
