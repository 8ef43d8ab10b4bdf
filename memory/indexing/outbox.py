"""Enqueue indexing work in the same transaction as the note change (spec v2 section 12).

The row is the guarantee: after commit a Celery task is sent for it (best effort, so a broker hiccup never
fails a write), and the beat sweep picks up any due PENDING/FAILED row the task did not finish. A task claims
its row and up to ROWS_PER_TASK - 1 other due rows, so rows written together (``enqueue_many``: an add_note
batch) send one task per ROWS_PER_TASK of them instead of one per row.
"""

from __future__ import annotations

import logging
import uuid

from elf_infra.index.dispatch import dispatch_on_commit

from ..models import IndexingOutbox, OutboxOp, OutboxStatus
from .lease import LEASER

log = logging.getLogger("elf.indexing")
PROCESS_TASK = "memory.process_outbox_row"
ROWS_PER_TASK = 32


def enqueue(*, note_id: uuid.UUID, op: str, embedding_version: str) -> IndexingOutbox:
    """Insert a PENDING outbox row in the current transaction; dispatch its task once that commits."""
    (row,) = enqueue_many(note_ids=[note_id], op=op, embedding_version=embedding_version)
    return row


def enqueue_many(*, note_ids: list[uuid.UUID], op: str, embedding_version: str) -> list[IndexingOutbox]:
    """Insert a PENDING outbox row per note in the current transaction (one statement); once that commits,
    send one task per ROWS_PER_TASK rows (each claims its row and up to ROWS_PER_TASK - 1 other due ones; the
    sweep takes any left over)."""
    rows = IndexingOutbox.objects.bulk_create(outbox_rows(note_ids=note_ids, op=op,
                                                          embedding_version=embedding_version))
    dispatch_rows(rows)
    return rows


def outbox_rows(*, note_ids: list[uuid.UUID], op: str, embedding_version: str) -> list[IndexingOutbox]:
    """``enqueue_many`` in two steps, for a caller that inserts the rows itself: the unsaved PENDING rows;
    insert them, then ``dispatch_rows``."""
    if op not in set(OutboxOp):
        raise ValueError(f"unknown outbox op {op!r}")
    return [IndexingOutbox(note_id=note_id, op=op, embedding_version=embedding_version, status=OutboxStatus.PENDING)
            for note_id in note_ids]


def dispatch_rows(rows: list[IndexingOutbox]) -> None:
    """Once the current transaction commits, send one task per ROWS_PER_TASK of the inserted ``rows``. A lone
    row's task may be coalesced with other lone rows' (``OutboxPublisher``): one task per ROWS_PER_TASK of
    them when they come quicker than the publisher's window."""
    if len(rows) == 1:
        dispatch_on_commit(PROCESS_TASK, rows[0].outbox_id, log=log, coalesce=ROWS_PER_TASK)
        return
    for row in rows[::ROWS_PER_TASK]:
        dispatch_on_commit(PROCESS_TASK, row.outbox_id, log=log)


def retry_now(outbox_ids) -> int:
    """Make PENDING/FAILED rows due immediately and dispatch them (operator action); DONE rows are left."""
    return LEASER.retry_now(outbox_ids, PROCESS_TASK, log=log)
