"""elf-worker -c elf.toml: the Celery worker with beat embedded (outboxes, GC, retention)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from elf_config import ElfConfig
from elf_config.sizing import Sizing, available_cores, resolve_sizing
from elf_infra.cpu_priority import lower_priority

from ..runtime import bootstrap
from ..startup import prepare
from .tuning import set_embed_threads

# A worker that ran at least this long and then stopped on its own (Celery's "Unrecoverable error", e.g. kombu
# failing while it tears down a Redis connection that went away) starts again in place: the outbox rows, not
# the broker, hold the work, so a fresh worker loses nothing. A failure sooner than this is a start-up problem
# and exits (no restart loop).
RESTART_AFTER_S = 10.0


def worker_options(cfg: ElfConfig, sizing: Sizing) -> dict:
    """Celery worker settings for elf-worker: beat embedded, worker.concurrency pool processes, each reserving
    worker.prefetch_multiplier tasks ahead (with late acks a reserved task waits for its process)."""
    from celery.utils.nodenames import host_format

    return {
        "beat": True,
        "concurrency": sizing.worker_concurrency,
        "prefetch_multiplier": sizing.worker_prefetch,
        "loglevel": cfg.service.log_level.upper(),
        "hostname": host_format("elf-worker@%h"),
    }


def keep_database_pool(app) -> None:
    """Reuse Postgres connections across tasks.

    Celery's Django fixup closes Django's connection pool before and after every task of a prefork pool process
    (celery/celery#10554), so each task opened two new Postgres sessions: a backend started and authenticated
    each time, which cost more CPU than most tasks. Instead the fixup never recycles (``CELERY_DB_REUSE_MAX``)
    and a task hands its connection back to the pool before and after it runs, as a Django request does (the
    pool checks a connection before lending it, so one broken by a Postgres restart is replaced). A pool
    process still closes the pool it inherited when it starts (the fixup's worker_process_init).
    """
    from celery import signals

    app.conf.CELERY_DB_REUSE_MAX = sys.maxsize
    signals.task_prerun.connect(_return_connections, weak=False)
    signals.task_postrun.connect(_return_connections, weak=False)


def _return_connections(**_) -> None:
    from django.db import close_old_connections

    close_old_connections()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-worker", description=__doc__)
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    args = parser.parse_args(argv)
    cfg = bootstrap(args.config)
    cores = available_cores()
    sizing = resolve_sizing(cfg, cores)
    # First, before the database pool, Celery or onnxruntime start threads: every thread and process of the
    # worker inherits the lower priority, so the API's requests win the cores while a write burst is indexed.
    nice = lower_priority(sizing.worker_nice)
    set_embed_threads(sizing.worker_embed_threads)
    logging.getLogger("elf.worker").info(
        "elf-worker: %d processes, prefetch %d, nice %d, %d ONNX threads each (%d cores)",
        sizing.worker_concurrency, sizing.worker_prefetch, nice, sizing.worker_embed_threads, cores,
    )
    if prepare(cfg, prog=parser.prog, migrate=False, index=True):
        return 1
    from celery import signals

    from ..celery_app import configure

    app = configure(cfg)
    keep_database_pool(app)
    worker = app.Worker(**worker_options(cfg, sizing))
    asked_to_stop: list[str] = []  # SIGTERM / SIGINT / SIGQUIT: Celery's shutdown handlers send this signal
    signals.worker_shutting_down.connect(lambda sig=None, **_: asked_to_stop.append(str(sig)), weak=False)
    started = time.monotonic()
    worker.start()
    code = worker.exitcode or 0
    if code and not asked_to_stop and time.monotonic() - started >= RESTART_AFTER_S:
        logging.getLogger("elf.worker").error(
            "elf-worker stopped on an unrecoverable error (exit %s); restarting", code
        )
        os.execv(sys.executable, sys.orig_argv)
    return code


if __name__ == "__main__":
    sys.exit(main())
