"""elf-api -c elf.toml: Django on gunicorn, public API on service.http_bind and admin on service.admin_bind."""

from __future__ import annotations

import argparse
import errno
import logging
import socket
import sys

from gunicorn.app.base import BaseApplication

from elf_config import ElfConfig
from elf_config.rules import parse_bind
from elf_config.sizing import Sizing, available_cores, resolve_sizing
from elf_kernel.observability.multiprocess import use_multiprocess_dir, worker_exited

from ..runtime import bootstrap
from ..startup import prepare
from .tuning import freeze_heap, set_embed_threads
from .warmup import load_request_path, warm_worker

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

        app = get_wsgi_application()
        load_request_path()  # before the fork: the views and the HTTP stack, shared by every worker
        return app


def gunicorn_options(cfg: ElfConfig, sizing: Sizing, log_config: dict) -> dict:
    """gunicorn's settings for elf-api: both binds, service.api_workers processes of service.api_threads
    threads each (gthread: a thread per request, idle keep-alive connections wait in the poller, not a thread;
    a connection goes back to the accept queue every few requests, see api_worker)."""
    svc = cfg.service
    return {
        "bind": [svc.http_bind, svc.admin_bind],
        "workers": sizing.api_workers,
        "worker_class": "elf_project.entrypoints.api_worker.RebalancingThreadWorker",  # gthread, rebalanced
        "threads": sizing.api_threads,
        "timeout": REQUEST_TIMEOUT_S,
        "graceful_timeout": 10,
        "loglevel": svc.log_level.lower(),
        # gunicorn's own lines as JSON too; each request is logged once, by the request-id middleware
        # (elf_kernel.observability.request_log), with no headers: credentials never reach the log.
        "logconfig_dict": log_config,
        "child_exit": worker_exited,
        "preload_app": True,
        "reuse_port": True,  # a listening socket per worker: the kernel spreads connections (taken_binds)
        "pre_fork": freeze_heap,  # the preloaded app's objects out of every worker's collections
        "post_worker_init": warm_worker,  # no request waits for the model or the index handles (warmup.py)
        "proc_name": "elf-api",
        "control_socket_disable": True,  # no runtime control socket in $HOME: stop with SIGTERM
    }


def taken_binds(binds: list[str]) -> list[str]:
    """The binds another process already listens on. Each gunicorn worker opens its own SO_REUSEPORT socket
    (the kernel then spreads new connections over the workers), and SO_REUSEPORT would also let a second
    elf-api of the same user share a port silently: so each bind is tried first without it."""
    taken = []
    for bind in binds:
        host, port = parse_bind(bind)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a TIME_WAIT is not a listener
            try:
                probe.bind((host, port))
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
                taken.append(bind)
    return taken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-api", description=__doc__)
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    args = parser.parse_args(argv)
    # Before Django (and so prometheus_client) is loaded: the gunicorn workers share one metrics directory.
    use_multiprocess_dir()
    cfg = bootstrap(args.config)
    cores = available_cores()
    sizing = resolve_sizing(cfg, cores)
    # before the workers fork: each loads its model with these
    set_embed_threads(sizing.api_embed_threads, sizing.api_embed_batch_threads)
    logging.getLogger("elf.api").info(
        "elf-api: %d workers x %d threads, %d ONNX threads each (%d for a batch) (%d cores)",
        sizing.api_workers, sizing.api_threads, sizing.api_embed_threads, sizing.api_embed_batch_threads, cores,
    )
    taken = taken_binds([cfg.service.http_bind, cfg.service.admin_bind])
    if taken:
        print(f"elf-api: {', '.join(taken)} taken by another process; stop it or change service.http_bind / "
              "service.admin_bind", file=sys.stderr)
        return 1
    if prepare(cfg, prog=parser.prog, migrate=True, index=True):
        return 1
    from django.conf import settings

    ElfApiServer(gunicorn_options(cfg, sizing, settings.LOGGING)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
