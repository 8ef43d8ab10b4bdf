"""Celery tasks of the memory app: thin wrappers over the indexing and lifecycle services.

All are idempotent and acknowledged late. Correctness never depends on a task message: the outbox rows are
the state, and the beat sweep (every 2 s) claims whatever is due, including rows whose task was lost.
"""

from __future__ import annotations

from celery import shared_task

from elf_kernel.runtime import get_config

from .indexing.outbox import PROCESS_TASK
from .indexing.processor import process_due, process_row
from .services.lifecycle import run_gc

SWEEP_TASK = "memory.sweep_outbox"
LIFECYCLE_TASK = "memory.lifecycle_gc"


@shared_task(name=PROCESS_TASK, acks_late=True, ignore_result=True)
def process_outbox_row(outbox_id: str) -> bool:
    """Index one outbox row right after its transaction committed, with up to ROWS_PER_TASK - 1 other due
    rows (skipped quietly if the row is not due)."""
    return process_row(cfg=get_config(), outbox_id=outbox_id)


@shared_task(name=SWEEP_TASK, acks_late=True, ignore_result=True)
def sweep_outbox() -> int:
    """Claim due PENDING/FAILED rows (retries, lost tasks, expired leases) and process them."""
    return process_due(cfg=get_config())


@shared_task(name=LIFECYCLE_TASK, acks_late=True, ignore_result=True)
def lifecycle_gc() -> dict[str, int]:
    """Expire notes past their TTL and purge old deleted/deprecated notes."""
    return run_gc(cfg=get_config()).as_dict()
