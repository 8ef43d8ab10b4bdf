"""Celery tasks of the Doc Extension: thin wrappers over the doc indexing processor.

Both are idempotent and acknowledged late. Correctness never depends on a task message: the outbox rows are
the state, and the beat sweep (every 2 s) claims whatever is due, including rows whose task was lost.
"""

from __future__ import annotations

from celery import shared_task

from elf_kernel.runtime import get_config

from .indexing.outbox import PROCESS_TASK
from .indexing.processor import process_due, process_row

SWEEP_TASK = "docs_ext.sweep_outbox"


@shared_task(name=PROCESS_TASK, acks_late=True, ignore_result=True)
def process_outbox_row(outbox_id: str) -> bool:
    """Index one doc outbox row right after its transaction committed (skipped quietly if not due)."""
    return process_row(cfg=get_config(), outbox_id=outbox_id)


@shared_task(name=SWEEP_TASK, acks_late=True, ignore_result=True)
def sweep_outbox() -> int:
    """Claim due PENDING/FAILED doc outbox rows (retries, lost tasks, expired leases) and process them."""
    return process_due(cfg=get_config())
