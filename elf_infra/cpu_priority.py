"""Lowering a process's CPU priority below the request path's: elf-worker (docs/operations.md, "Sizing") and the Qdrant
server's optimize worker, each for the whole process and every thread and child it starts later."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

AUTOGROUP = Path("/proc/self/autogroup")


def lower_priority(nice: int) -> int:
    """Make every thread of this process at least ``nice`` (threads and processes started later inherit it);
    returns the niceness of the calling thread.

    Linux keeps a niceness per thread, so each is set. With the kernel's autogroups (sched_autogroup_enabled,
    processes outside any cpu cgroup) the scheduler first shares the cores between sessions, and niceness only
    weighs threads of the same session: so when this process leads a session of its own (started with setsid,
    as the tests do), that session's autogroup gets the niceness too. A worker in the API's session (make run)
    needs nothing more; one in a cgroup of its own (a systemd unit, a container) needs the cgroup's CPU weight.
    """
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:  # pragma: no cover - not Linux: the process-wide call is all there is
        tids = [0]
    for tid in tids:
        try:
            if os.getpriority(os.PRIO_PROCESS, tid) < nice:
                os.setpriority(os.PRIO_PROCESS, tid, nice)
        except ProcessLookupError:  # the thread ended meanwhile
            continue
    if nice > 0 and leads_session():
        _lower_autogroup(nice)
    return os.getpriority(os.PRIO_PROCESS, 0)


def leads_session() -> bool:
    """Whether this process leads a session of its own (started with setsid): then the session's autogroup is
    this process's to lower."""
    return os.getsid(0) == os.getpid()


def autogroup_nice() -> int | None:
    """The niceness of this process's autogroup (its session's share against other sessions), or None
    without autogroups."""
    try:
        return int(AUTOGROUP.read_text().split("nice")[1])
    except (OSError, ValueError, IndexError):  # no autogroups (disabled, not Linux)
        return None


def _lower_autogroup(nice: int) -> None:
    current = autogroup_nice()
    if current is None or current >= nice:
        return
    with contextlib.suppress(OSError):  # not allowed here: per-thread niceness is all
        AUTOGROUP.write_text(str(nice))
