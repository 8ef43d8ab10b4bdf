"""Celery tasks of the traces app: thin, idempotent wrappers over the trace services.

The outbox rows are the state: the beat sweep (every second) claims whatever is due, including rows whose
task message was lost.
"""

from __future__ import annotations

from celery import shared_task

from elf_kernel.runtime import get_config

from .services.enqueue import PROCESS_TRACE_TASK
from .services.outbox import process_due, process_row
from .services.retention import run_retention

SWEEP_TRACE_TASK = "traces.sweep_trace_outbox"
RETENTION_TASK = "traces.retention_cleanup"


@shared_task(name=PROCESS_TRACE_TASK, acks_late=True, ignore_result=True)
def process_trace_outbox_row(outbox_id: str) -> bool:
    """Persist one trace right after the search committed its outbox row (skipped if not due)."""
    return process_row(cfg=get_config(), outbox_id=outbox_id)


@shared_task(name=SWEEP_TRACE_TASK, acks_late=True, ignore_result=True)
def sweep_trace_outbox() -> int:
    """Claim due PENDING/FAILED trace rows (retries, lost tasks, expired leases) and persist them."""
    return process_due(cfg=get_config())


@shared_task(name=RETENTION_TASK, acks_late=True, ignore_result=True)
def retention_cleanup() -> dict[str, int]:
    """Delete expired traces and candidates, and settled outbox rows."""
    return run_retention(cfg=get_config()).as_dict()
