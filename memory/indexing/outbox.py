"""Enqueue indexing work in the same transaction as the note change (spec v2 section 12).

The row is the guarantee: after commit a Celery task is sent for it (best effort, so a broker hiccup never
fails a write), and the beat sweep picks up any due PENDING/FAILED row the task did not finish.
"""

from __future__ import annotations

import logging
import uuid

from elf_infra.index.dispatch import dispatch_on_commit

from ..models import IndexingOutbox, OutboxOp, OutboxStatus
from .lease import LEASER

log = logging.getLogger("elf.indexing")
PROCESS_TASK = "memory.process_outbox_row"


def enqueue(*, note_id: uuid.UUID, op: str, embedding_version: str) -> IndexingOutbox:
    """Insert a PENDING outbox row in the current transaction; dispatch its task once that commits."""
    if op not in set(OutboxOp):
        raise ValueError(f"unknown outbox op {op!r}")
    row = IndexingOutbox.objects.create(
        note_id=note_id, op=op, embedding_version=embedding_version, status=OutboxStatus.PENDING
    )
    dispatch_on_commit(PROCESS_TASK, row.outbox_id, log=log)
    return row


def retry_now(outbox_ids) -> int:
    """Make PENDING/FAILED rows due immediately and dispatch them (operator action); DONE rows are left."""
    return LEASER.retry_now(outbox_ids, PROCESS_TASK, log=log)
