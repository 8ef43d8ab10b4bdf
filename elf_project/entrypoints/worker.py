"""elf-worker -c elf.toml: the Celery worker with beat embedded (outboxes, GC, retention)."""

from __future__ import annotations

import argparse
import sys

from ..runtime import bootstrap
from ..startup import prepare

WORKER_CONCURRENCY = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-worker", description=__doc__)
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    args = parser.parse_args(argv)
    cfg = bootstrap(args.config)
    if prepare(cfg, prog=parser.prog, migrate=False, index=True):
        return 1
    from celery.utils.nodenames import host_format

    from ..celery_app import configure

    app = configure(cfg)
    worker = app.Worker(
        beat=True,
        concurrency=WORKER_CONCURRENCY,
        loglevel=cfg.service.log_level.upper(),
        hostname=host_format("elf-worker@%h"),
    )
    worker.start()
    return worker.exitcode or 0


if __name__ == "__main__":
    sys.exit(main())
