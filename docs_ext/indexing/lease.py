"""Claiming and settling doc_indexing_outbox rows: the shared outbox lease protocol
(elf_kernel.outbox_lease) applied to this table."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from elf_kernel.outbox_lease import OutboxLeaser


@dataclass(frozen=True)
class DocLease:
    """A claimed doc outbox row. ``leased_until`` is the row's new available_at and the lease's token."""

    outbox_id: uuid.UUID
    doc_id: uuid.UUID
    chunk_id: uuid.UUID | None
    op: str
    embedding_version: str
    attempts: int
    leased_until: datetime
    created_at: datetime


LEASER = OutboxLeaser("doc_indexing_outbox", ("doc_id", "chunk_id", "op", "embedding_version"), DocLease)
lease_due = LEASER.lease_due
lease_one = LEASER.lease_one
mark_done = LEASER.mark_done
mark_failed = LEASER.mark_failed
release = LEASER.release
run = LEASER.run
sweep = LEASER.sweep
