"""Dispatch of outbox work: after an outbox row commits, send the Celery task that processes it.

Every outbox (note indexing, traces, and the doc indexing to come) works the same way: the row is the
guarantee, the task is a best-effort nudge. A broker that is down costs nothing but latency: the failure is
logged and the beat sweep of that outbox claims the row when it is due.

Sends of an outbox whose task claims other due rows with its own (note indexing) may be coalesced: the first
row after a quiet spell is sent at once, and rows submitted within COALESCE_S of the last send wait for the
end of that window and go as one task per ``coalesce`` rows (the id of the newest of them; its task claims
it and the older due rows). A single add_note on an idle service is sent at once; a stream of them costs the
worker one task per window instead of one per note (each task has a fixed cost: the broker message, the
claim, the note locks, two Qdrant calls, the settling), at most COALESCE_S later.

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
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from celery import current_app

PUBLISH_QUEUE_MAX = 1000  # sends waiting per process; beyond this the sweep takes the rows
COALESCE_S = 0.05  # rows of a coalescing outbox submitted within this long of its last send go together


class _Send(NamedTuple):
    """One submitted send, with the context variables of the code that submitted it."""

    ctx: contextvars.Context
    task_name: str
    row_id: Any
    log: logging.Logger
    coalesce: int


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
    a forked child (a thread does not survive ``fork``: gunicorn and Celery children each get their own).
    ``send`` is the broker call (``send_outbox_task``)."""

    def __init__(self, maxsize: int = PUBLISH_QUEUE_MAX, *, window_s: float = COALESCE_S,
                 send: Callable[..., bool] = send_outbox_task):
        self.maxsize, self.window_s, self._send = maxsize, window_s, send
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._queue: queue.Queue = queue.Queue(maxsize)

    def submit(self, task_name: str, row_id, *, log: logging.Logger, coalesce: int = 1) -> bool:
        """Queue the send (never blocks); False, logged, when the queue is full. ``coalesce`` > 1: this task
        claims up to that many due rows, so the row may go with others of ``task_name`` (module docstring)."""
        self._start_once()
        try:
            self._queue.put_nowait(_Send(contextvars.copy_context(), task_name, row_id, log, coalesce))
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

    def _run(self, q: queue.Queue) -> None:
        held: dict[str, list[_Send]] = {}  # coalescing rows waiting for the end of their task's window
        last_sent: dict[str, float] = {}
        while True:
            due = min((last_sent[name] + self.window_s for name in held), default=None)
            try:
                item = q.get(timeout=None if due is None else max(due - time.monotonic(), 0))
            except queue.Empty:
                item = None
            if item is not None:
                name = item.task_name
                if item.coalesce > 1 and (name in held or time.monotonic() - last_sent.get(name, -1e9) < self.window_s):
                    held.setdefault(name, []).append(item)
                else:
                    self._send_one(item)
                    last_sent[name] = time.monotonic()
                    q.task_done()
            for name in [n for n in held if time.monotonic() - last_sent[n] >= self.window_s]:
                items = held.pop(name)
                limit = items[0].coalesce
                for start in range(0, len(items), limit):
                    self._send_one(items[min(start + limit, len(items)) - 1])  # the newest of these rows
                last_sent[name] = time.monotonic()
                for _ in items:
                    q.task_done()

    def _send_one(self, item: _Send) -> None:
        try:
            item.ctx.run(self._send, item.task_name, item.row_id, log=item.log)
        except Exception:  # the thread must outlive any one send; the sweep takes the row
            item.log.exception("dispatching %s for outbox row %s failed (the sweep will pick it up)", item.task_name,
                               item.row_id)


PUBLISHER = OutboxPublisher()


def dispatch_on_commit(task_name: str, row_id, *, log: logging.Logger, coalesce: int = 1) -> None:
    """Once the current transaction commits (at once outside a transaction), queue the row's task for the
    publisher thread; ``coalesce`` as in ``OutboxPublisher.submit``."""
    from django.db import transaction

    transaction.on_commit(lambda: PUBLISHER.submit(task_name, row_id, log=log, coalesce=coalesce))
