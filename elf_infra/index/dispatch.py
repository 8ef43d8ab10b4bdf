"""Dispatch of outbox work: after an outbox row commits, send the Celery task that processes it.

Every outbox (note indexing, traces, and the doc indexing to come) works the same way: the row is the
guarantee, the task is a best-effort nudge. A broker that is down costs nothing but latency: the failure is
logged and the beat sweep of that outbox claims the row when it is due.

The send itself (a Redis round trip, seconds when the broker is down) is not made on the committing thread:
``dispatch_on_commit`` hands it to this process's publisher thread (``OutboxPublisher``), so a request
never waits on the broker. The hand-off carries the caller's context variables (the request id of the log
lines reaches the task). The queue is bounded: when it is full, or when the process exits before the send,
the task is not sent and the sweep takes the row.
"""

from __future__ import annotations

import contextvars
import logging
import os
import queue
import threading

from celery import current_app

PUBLISH_QUEUE_MAX = 1000  # sends waiting per process; beyond this the sweep takes the rows


def send_outbox_task(task_name: str, row_id, *, log: logging.Logger) -> bool:
    """Send ``task_name(row_id)`` to the configured broker; False (logged) when it could not be sent."""
    try:
        current_app.send_task(task_name, args=[str(row_id)])
    except Exception as exc:  # broker down: the row stays due and the sweep will lease it
        log.warning("could not dispatch %s for outbox row %s (the sweep will pick it up): %s", task_name, row_id, exc)
        return False
    return True


class OutboxPublisher:
    """One daemon thread per process sending queued outbox tasks in order. Started on first use, and again in
    a forked child (a thread does not survive ``fork``: gunicorn and Celery children each get their own)."""

    def __init__(self, maxsize: int = PUBLISH_QUEUE_MAX):
        self.maxsize = maxsize
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._queue: queue.Queue = queue.Queue(maxsize)

    def submit(self, task_name: str, row_id, *, log: logging.Logger) -> bool:
        """Queue the send (never blocks); False, logged, when the queue is full."""
        self._start_once()
        try:
            self._queue.put_nowait((contextvars.copy_context(), task_name, row_id, log))
        except queue.Full:
            log.warning("dispatch queue full: %s for outbox row %s not sent (the sweep will pick it up)",
                        task_name, row_id)
            return False
        return True

    def join(self) -> None:
        """Wait until every queued send was attempted (tests)."""
        self._queue.join()

    def _start_once(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid != os.getpid():
                self._queue = queue.Queue(self.maxsize)  # a forked child's copy may hold its parent's items
                threading.Thread(target=self._run, args=(self._queue,), name="elf-outbox-publisher",
                                 daemon=True).start()
                self._pid = os.getpid()

    @staticmethod
    def _run(q: queue.Queue) -> None:
        while True:
            ctx, task_name, row_id, log = q.get()
            try:
                ctx.run(send_outbox_task, task_name, row_id, log=log)
            finally:
                q.task_done()


PUBLISHER = OutboxPublisher()


def dispatch_on_commit(task_name: str, row_id, *, log: logging.Logger) -> None:
    """Once the current transaction commits (at once outside a transaction), queue the row's task for the
    publisher thread."""
    from django.db import transaction

    transaction.on_commit(lambda: PUBLISHER.submit(task_name, row_id, log=log))
