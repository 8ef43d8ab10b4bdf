"""Enqueue indexing work in the same transaction as the note change (spec v2 section 12).

The row is the guarantee: after commit a Celery task is sent for it (best effort, so a broker hiccup never
fails a write), and the beat sweep picks up any due PENDING/FAILED row the task did not finish.
"""

from __future__ import annotations

import logging
import uuid

from django.db import transaction

from ..models import IndexingOutbox, OutboxOp, OutboxStatus

log = logging.getLogger("elf.indexing")
PROCESS_TASK = "memory.process_outbox_row"


def enqueue(*, note_id: uuid.UUID, op: str, embedding_version: str) -> IndexingOutbox:
    """Insert a PENDING outbox row in the current transaction; dispatch its task once that commits."""
    if op not in OutboxOp.values:
        raise ValueError(f"unknown outbox op {op!r}")
    row = IndexingOutbox.objects.create(
        note_id=note_id, op=op, embedding_version=embedding_version, status=OutboxStatus.PENDING
    )
    transaction.on_commit(lambda: dispatch(row.outbox_id))
    return row


def dispatch(outbox_id: uuid.UUID) -> None:
    """Send the processing task; failures are logged and left to the beat sweep."""
    from elf_project.celery_app import app

    try:
        app.send_task(PROCESS_TASK, args=[str(outbox_id)])
    except Exception as exc:  # broker down: the row stays PENDING and the sweep will lease it
        log.warning("could not dispatch outbox %s (the sweep will pick it up): %s", outbox_id, exc)


def retry_now(outbox_ids) -> int:
    """Make PENDING/FAILED rows due immediately and dispatch them (operator action); DONE rows are left."""
    from django.utils import timezone

    ids = list(
        IndexingOutbox.objects.filter(outbox_id__in=list(outbox_ids), status__in=[OutboxStatus.PENDING, OutboxStatus.FAILED])
        .values_list("outbox_id", flat=True)
    )
    IndexingOutbox.objects.filter(outbox_id__in=ids).update(available_at=timezone.now(), updated_at=timezone.now())
    for outbox_id in ids:
        dispatch(outbox_id)
    return len(ids)
