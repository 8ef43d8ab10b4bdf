"""Enqueue doc indexing work in the same transaction as the document change (Doc Extension v1, "Indexing
consistency: transactional outbox").

The row is the guarantee: after commit a Celery task is sent for it (best effort, so a broker hiccup never
fails a write), and the beat sweep picks up any due PENDING/FAILED row the task did not finish.
"""

from __future__ import annotations

import logging
import uuid

from elf_domain.vocabulary import OutboxOp, OutboxStatus
from elf_infra.index.dispatch import dispatch_on_commit

from ..models import DocIndexingOutbox
from .lease import LEASER

log = logging.getLogger("elf.docs.indexing")
PROCESS_TASK = "docs_ext.process_outbox_row"


def enqueue(*, doc_id: uuid.UUID, op: str, embedding_version: str) -> DocIndexingOutbox:
    """Insert a PENDING whole-document row in the current transaction; dispatch its task once that commits."""
    if op not in set(OutboxOp):
        raise ValueError(f"unknown outbox op {op!r}")
    row = DocIndexingOutbox.objects.create(
        doc_id=doc_id, op=op, embedding_version=embedding_version, status=OutboxStatus.PENDING
    )
    dispatch_on_commit(PROCESS_TASK, row.outbox_id, log=log)
    return row


def retry_now(outbox_ids) -> int:
    """Make PENDING/FAILED rows due immediately and dispatch them (operator action); DONE rows are left."""
    return LEASER.retry_now(outbox_ids, PROCESS_TASK, log=log)
