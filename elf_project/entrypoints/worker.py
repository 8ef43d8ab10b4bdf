"""elf-worker -c elf.toml: the Celery worker with beat embedded (outboxes, GC, retention)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from ..runtime import bootstrap
from ..startup import prepare

WORKER_CONCURRENCY = 2
# A worker that ran at least this long and then stopped on its own (Celery's "Unrecoverable error", e.g. kombu
# failing while it tears down a Redis connection that went away) starts again in place: the outbox rows, not
# the broker, hold the work, so a fresh worker loses nothing. A failure sooner than this is a start-up problem
# and exits (no restart loop).
RESTART_AFTER_S = 10.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-worker", description=__doc__)
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    args = parser.parse_args(argv)
    cfg = bootstrap(args.config)
    if prepare(cfg, prog=parser.prog, migrate=False, index=True):
        return 1
    from celery import signals
    from celery.utils.nodenames import host_format

    from ..celery_app import configure

    app = configure(cfg)
    worker = app.Worker(
        beat=True,
        concurrency=WORKER_CONCURRENCY,
        loglevel=cfg.service.log_level.upper(),
        hostname=host_format("elf-worker@%h"),
    )
    asked_to_stop: list[str] = []  # SIGTERM / SIGINT / SIGQUIT: Celery's shutdown handlers send this signal
    signals.worker_shutting_down.connect(lambda sig=None, **_: asked_to_stop.append(str(sig)), weak=False)
    started = time.monotonic()
    worker.start()
    code = worker.exitcode or 0
    if code and not asked_to_stop and time.monotonic() - started >= RESTART_AFTER_S:
        logging.getLogger("elf.worker").error("elf-worker stopped on an unrecoverable error (exit %s); restarting", code)
        os.execv(sys.executable, sys.orig_argv)
    return code


if __name__ == "__main__":
    sys.exit(main())
