"""Catch-up priority: indexing that fell behind runs at the API's CPU priority until it caught up.

elf-worker runs at ``worker.nice`` (10 by default) so that requests win the cores while a write burst is indexed.
Under a load that keeps the cores busy, that is starvation: with 32 agents sending 60 % writes in a closed loop
the worker got 0.02 cores, the oldest pending outbox row grew to 31 s and 695 rows were pending when the load
stopped (docs/benchmarks.md, the mixed-load section). Lag then has no bound but the end of the load.

So once a batch of indexing rows has its oldest row written ``worker.catch_up_after_seconds`` ago or more (5 s
by default), every thread of the pool process runs at ``worker.catch_up_nice`` (0 by default: the API's), and
stays there while the task drains due rows (the claims between batches too: at nice 10 on a busy machine a claim
alone waited seconds for a core) until a batch is no longer behind or nothing is due; then it goes back to
``worker.nice``. Only indexing that is already late competes with requests; the usual trickle of writes is
indexed at the low priority within a second or two.

Raising a priority back (a lower niceness) is a privilege on Linux: root, CAP_SYS_NICE, or an RLIMIT_NICE that
allows it (systemd: ``LimitNICE=+0``; a container: ``--ulimit nice=20`` or the capability). Without it the
first attempt logs a warning once and the worker stays at ``worker.nice`` (the behaviour before), so lag is only
bounded where the privilege is given. When the worker leads a session of its own (tests, setsid) the session's
autogroup is raised and lowered with the threads, as ``elf_infra.cpu_priority.lower_priority`` lowered it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from datetime import UTC, datetime

from elf_config import ElfConfig
from elf_infra.cpu_priority import AUTOGROUP, autogroup_nice, leads_session, lower_priority

log = logging.getLogger("elf.indexing")
_refused: list[bool] = []  # this process was refused a raise once: it does not try again


def behind(created: Iterable[datetime], cfg: ElfConfig, now: datetime | None = None) -> bool:
    """Whether the oldest of these rows waited at least worker.catch_up_after_seconds, and catching up would
    change anything (catch_up_nice below nice)."""
    w = cfg.worker
    oldest = min(created, default=None)
    if oldest is None or w.catch_up_nice >= w.nice:
        return False
    return ((now or datetime.now(UTC)) - oldest).total_seconds() >= w.catch_up_after_seconds


def _raise_to(nice: int) -> bool:
    """Every thread of this process (and its session's autogroup, when it leads one) at ``nice``; False when
    the system refuses (nothing changed that matters: a thread it did raise is lowered again by the caller)."""
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:  # pragma: no cover - not Linux
        tids = [0]
    try:
        for tid in tids:
            try:
                if os.getpriority(os.PRIO_PROCESS, tid) > nice:
                    os.setpriority(os.PRIO_PROCESS, tid, nice)
            except ProcessLookupError:  # the thread ended meanwhile
                continue
        if leads_session() and (current := autogroup_nice()) is not None and current > nice:
            AUTOGROUP.write_text(str(nice))
    except PermissionError:
        return False
    return True


class CatchUp:
    """The pool process's catch-up state across the batches of one task: ``update`` before each batch raises
    the priority when its rows are ``behind`` and lowers it again when they are not; leaving the block lowers
    it. Between batches (claiming the next rows) it stays as the last batch left it, so a task draining a
    backlog keeps the priority until it caught up."""

    def __init__(self, cfg: ElfConfig):
        self.cfg = cfg
        self.base: int | None = None  # the niceness to go back to, while raised

    @property
    def raised(self) -> bool:
        return self.base is not None

    def update(self, created: Iterable[datetime]) -> bool:
        """Raise or lower for a batch of rows written at ``created``; returns whether it runs raised."""
        if behind(created, self.cfg) and not _refused:
            if not self.raised:
                self._raise()
        elif self.raised:
            self._lower()
        return self.raised

    def _raise(self) -> None:
        base = os.getpriority(os.PRIO_PROCESS, 0)
        if _raise_to(self.cfg.worker.catch_up_nice):
            self.base = base
            return
        lower_priority(base)  # whatever was raised before the refusal
        _refused.append(True)
        log.warning("indexing is %s s or more behind but this process may not raise its CPU priority from nice %d "
                    "to %d (needs root, CAP_SYS_NICE or RLIMIT_NICE: docs/configuration.md, worker.catch_up_nice); "
                    "it stays at nice %d", self.cfg.worker.catch_up_after_seconds, base, self.cfg.worker.catch_up_nice,
                    base)

    def _lower(self) -> None:
        base, self.base = self.base, None
        if base is not None:
            lower_priority(base)  # every thread, including any started meanwhile, back to at least the base

    def __enter__(self) -> CatchUp:
        return self

    def __exit__(self, *_) -> None:
        self._lower()
