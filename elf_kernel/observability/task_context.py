"""The request id (and tenant/project/agent) travels from the request that enqueued a Celery task to the worker's
log lines for that task, in one message header.

A task published while a request (or another task) is running carries its fields; the worker binds them for the
task's run and logs one line when it ends: at INFO for a task a request enqueued, at DEBUG for the beat's own
(the outbox sweeps run every few seconds).
"""

from __future__ import annotations

import logging
import time

from celery import signals

from . import log_context
from .json_logging import EXTRA_ATTR

HEADER = "elf_log_context"
MAX_ARGS_CHARS = 200

log = logging.getLogger("elf.task")
_running: dict[str, tuple[object, float]] = {}


def _publishing(headers=None, **_kw) -> None:
    fields = log_context.current_fields()
    if fields and headers is not None:
        headers[HEADER] = fields


def _starting(task_id=None, task=None, **_kw) -> None:
    fields = task.request.get(HEADER) if task is not None else None
    # No header (a beat task, or a task run eagerly in-process): keep whatever this thread already has.
    token = log_context.bind(fields if isinstance(fields, dict) else log_context.current_fields())
    _running[task_id] = (token, time.perf_counter())


def _finished(task_id=None, task=None, args=None, state=None, **_kw) -> None:
    token, start = _running.pop(task_id, (None, None))
    if token is None:
        return
    try:
        fields = log_context.current_fields()
        log.log(
            logging.INFO if fields.get("request_id") else logging.DEBUG,
            "task %s[%s] %s", task.name, task_id, state,
            extra={EXTRA_ATTR: {"task": task.name, "task_id": task_id, "task_args": repr(args)[:MAX_ARGS_CHARS],
                                "state": state, "duration_ms": round((time.perf_counter() - start) * 1000, 1)}},
        )
    finally:
        log_context.unbind(token)


def _no_celery_logging_setup(**_kw) -> None:
    """Django's LOGGING (JSON lines) already configured the process: Celery must not add its own handlers."""


def connect() -> None:
    """Connect the hooks (idempotent): publishing in every process, the rest in elf-worker."""
    signals.before_task_publish.connect(_publishing, dispatch_uid="elf.log_context.publish", weak=False)
    signals.task_prerun.connect(_starting, dispatch_uid="elf.log_context.prerun", weak=False)
    signals.task_postrun.connect(_finished, dispatch_uid="elf.log_context.postrun", weak=False)
    signals.setup_logging.connect(_no_celery_logging_setup, dispatch_uid="elf.log_context.logging", weak=False)
