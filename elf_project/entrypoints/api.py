"""elf-api -c elf.toml: Django on gunicorn, public API on service.http_bind and admin on service.admin_bind."""

from __future__ import annotations

import argparse
import sys

from gunicorn.app.base import BaseApplication

from elf_kernel.observability.multiprocess import use_multiprocess_dir, worker_exited

from ..runtime import bootstrap
from ..startup import prepare

# Two cores on the reference machine: two worker processes with a few threads each.
API_WORKERS = 2
API_THREADS = 4
REQUEST_TIMEOUT_S = 120


class ElfApiServer(BaseApplication):
    def __init__(self, options: dict):
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        from django.core.wsgi import get_wsgi_application

        return get_wsgi_application()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-api", description=__doc__)
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    args = parser.parse_args(argv)
    # Before Django (and so prometheus_client) is loaded: the gunicorn workers share one metrics directory.
    use_multiprocess_dir()
    cfg = bootstrap(args.config)
    if prepare(cfg, prog=parser.prog, migrate=True, index=True):
        return 1
    from django.conf import settings

    svc = cfg.service
    ElfApiServer(
        {
            "bind": [svc.http_bind, svc.admin_bind],
            "workers": API_WORKERS,
            "worker_class": "gthread",
            "threads": API_THREADS,
            "timeout": REQUEST_TIMEOUT_S,
            "graceful_timeout": 10,
            "loglevel": svc.log_level.lower(),
            # gunicorn's own lines as JSON too; each request is logged once, by the request-id middleware
            # (elf_kernel.observability.request_log), with no headers: credentials never reach the log.
            "logconfig_dict": settings.LOGGING,
            "child_exit": worker_exited,
            "preload_app": True,
            "proc_name": "elf-api",
            "control_socket_disable": True,  # no runtime control socket in $HOME: stop with SIGTERM
        }
    ).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
