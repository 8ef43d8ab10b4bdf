"""prometheus_client's multiprocess mode for elf-api's gunicorn workers.

A fresh directory per elf-api run (removed when the master exits): files of an earlier run never leak into
this one's counters. It must be set before prometheus_client is first imported, hence in the entry point.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def use_multiprocess_dir() -> str:
    """Create this run's metrics directory and point PROMETHEUS_MULTIPROC_DIR at it."""
    path = tempfile.mkdtemp(prefix="elf-api-metrics-")
    os.environ[MULTIPROC_ENV] = path
    master = os.getpid()
    # Forked workers inherit atexit handlers: only the master removes the directory.
    atexit.register(lambda: os.getpid() == master and shutil.rmtree(path, ignore_errors=True))
    return path


def worker_exited(server, worker) -> None:
    """gunicorn's child_exit hook: drop the live gauges of a worker process that is gone."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
