"""Background maintenance: periodic flushes and debounced shard optimization.

qdrant-edge never optimizes on its own; `EdgeShard.optimize()` must be called, and it holds the GIL for
its whole run. So optimization runs on a copy of the shard in a child process (`optimize_worker`), while
this process keeps serving reads and writes on the live shard and journals the writes; when the child
is done, the journal is replayed onto the optimized copy and the copy is swapped in (a short exclusive
section). One optimization runs at a time.

The journal is held in memory (the update operations, vectors included). A bulk load that goes on while a long
optimization runs grew it to 8 GB (issue 35), so an optimization is cancelled once more than
`journal_max_points` points were written meanwhile, and the collection then waits for writes to pause before it
is optimized again (not for `busy_changes`, which would start a copy that the same load cancels again).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import IO

from .collections import Collection
from .registry import CollectionRegistry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OptimizePolicy:
    """When a collection is worth optimizing."""

    idle_seconds: float = 5.0  # quiet time after the last write (debounce)
    min_changes: int = 1000  # points written or deleted since the last optimization
    busy_changes: int = 50_000  # optimize even while writes continue once this many are pending
    journal_max_points: int = 100_000  # points written during an optimization before it is cancelled
    retry_after_failure_s: float = 60.0


@dataclass
class _Job:
    collection: Collection
    proc: subprocess.Popen[str]
    stderr: IO[str]
    started: float


class Maintenance(threading.Thread):
    """Daemon thread: flushes collections on their flush interval and runs shadow optimizations."""

    def __init__(self, registry: CollectionRegistry, policy: OptimizePolicy, tick_s: float = 0.5) -> None:
        super().__init__(name="qdrant-maintenance", daemon=True)
        self._registry = registry
        self._policy = policy
        self._tick_s = tick_s
        self._stop_event = threading.Event()
        self._job: _Job | None = None
        self._retry_at: dict[str, float] = {}
        self._await_idle: set[str] = set()  # collections whose optimization a long journal cancelled

    def stop(self) -> None:
        """Ask the thread to finish (a running optimization is abandoned) and wait for it."""
        self._stop_event.set()
        self.join()

    def run(self) -> None:
        while not self._stop_event.is_set():
            try:
                now = time.monotonic()
                for coll in self._registry.all():
                    coll.flush_if_due(now)
                self._step()
            except Exception:
                log.exception("maintenance step failed")
            self._stop_event.wait(self._tick_s)
        if self._job is not None:
            self._cancel(self._job)

    def _due(self, coll: Collection, now: float) -> bool:
        p = self._policy
        return (
            not coll.closed
            and not coll.optimization_disabled
            and coll.pending_changes >= p.min_changes
            and (coll.idle_seconds >= p.idle_seconds
                 or (coll.pending_changes >= p.busy_changes and coll.name not in self._await_idle))
            and now >= self._retry_at.get(coll.name, 0.0)
        )

    def _step(self) -> None:
        job = self._job
        if job is None:
            now = time.monotonic()
            due = [c for c in self._registry.all() if self._due(c, now)]
            if due:
                self._start(max(due, key=lambda c: c.pending_changes))
        elif job.collection.closed:
            self._cancel(job)
        elif job.collection.journal_points > self._policy.journal_max_points:
            self._await_idle.add(job.collection.name)
            log.warning("collection %s: %d points written while it was being optimized (limit %d, held in memory): "
                        "cancelling; it is optimized again once writes pause for %.0f s", job.collection.name,
                        job.collection.journal_points, self._policy.journal_max_points, self._policy.idle_seconds)
            self._cancel(job)
        elif job.proc.poll() is not None:
            self._job = None
            self._finish(job)

    def _start(self, coll: Collection) -> None:
        shadow = coll.begin_shadow()
        if shadow is None:
            return
        self._await_idle.discard(coll.name)
        # kept with the job (closed when it is reaped), so no context manager
        stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - outlives this call
        proc = subprocess.Popen(
            [sys.executable, "-m", "elf_infra.qdrant_server.optimize_worker", str(shadow)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, text=True,
            start_new_session=True,  # its own autogroup, lowered by the worker (optimize_worker's docstring)
        )
        self._job = _Job(coll, proc, stderr, time.monotonic())
        log.info("collection %s: optimizing a copy (pid %d, %d pending changes)",
                 coll.name, proc.pid, coll.pending_changes)

    def _cancel(self, job: _Job) -> None:
        self._job = None
        job.proc.terminate()
        job.proc.wait()
        job.stderr.close()
        job.collection.abandon_shadow(nothing_to_optimize=False)
        log.info("collection %s: optimization cancelled", job.collection.name)

    def _finish(self, job: _Job) -> None:
        coll = job.collection
        out = job.proc.stdout.read() if job.proc.stdout else ""
        job.stderr.seek(0)
        err = job.stderr.read().strip()
        job.stderr.close()
        try:
            if job.proc.returncode != 0:
                raise RuntimeError(f"optimize worker exited {job.proc.returncode}: {err[-2000:]}")
            report = json.loads(out)
            optimized = bool(report["optimized"])
        except Exception as exc:
            coll.abandon_shadow(nothing_to_optimize=False)
            self._failed(coll, exc)
            return
        try:
            if optimized:
                coll.adopt_shadow()
            else:
                coll.abandon_shadow(nothing_to_optimize=True)
        except Exception as exc:
            self._failed(coll, exc)
            return
        coll.optimizer_error = None
        log.info("collection %s: optimization done in %.1f s (changed: %s; worker nice %s, own session %s, "
                 "autogroup nice %s)", coll.name, time.monotonic() - job.started, optimized, report.get("nice"),
                 report.get("own_session"), report.get("autogroup_nice"))

    def _failed(self, coll: Collection, exc: Exception) -> None:
        coll.optimizer_error = str(exc)
        self._retry_at[coll.name] = time.monotonic() + self._policy.retry_after_failure_s
        log.error("collection %s: optimization failed: %s", coll.name, exc)
