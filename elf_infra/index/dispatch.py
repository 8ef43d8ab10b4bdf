"""Dispatch of outbox work: after an outbox row commits, send the Celery task that processes it.

Every outbox (note indexing, traces, and the doc indexing to come) works the same way: the row is the
guarantee, the task is a best-effort nudge. A broker that is down costs nothing but latency: the failure is
logged and the beat sweep of that outbox claims the row when it is due.
"""

from __future__ import annotations

import logging

from celery import current_app


def send_outbox_task(task_name: str, row_id, *, log: logging.Logger) -> bool:
    """Send ``task_name(row_id)`` to the configured broker; False (logged) when it could not be sent."""
    try:
        current_app.send_task(task_name, args=[str(row_id)])
    except Exception as exc:  # broker down: the row stays due and the sweep will lease it
        log.warning("could not dispatch %s for outbox row %s (the sweep will pick it up): %s", task_name, row_id, exc)
        return False
    return True


def dispatch_on_commit(task_name: str, row_id, *, log: logging.Logger) -> None:
    """Send the row's task once the current transaction commits (at once outside a transaction)."""
    from django.db import transaction

    transaction.on_commit(lambda: send_outbox_task(task_name, row_id, log=log))
