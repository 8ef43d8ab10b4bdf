"""Prometheus metrics of elf-api and the ``/metrics`` exposition (served on the admin bind only).

elf-api runs several gunicorn worker processes: its entry point points ``PROMETHEUS_MULTIPROC_DIR`` at a
directory of its own (elf_kernel.observability.multiprocess) before anything creates a metric, so the counters
and histograms of every worker process are summed at scrape time. Outside elf-api (tests, manage.py) the
metrics live in the process. The database gauges (outbox depth and age, index lag) are read at scrape time.
"""

from __future__ import annotations

import os

from prometheus_client import REGISTRY, CollectorRegistry, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from .multiprocess import MULTIPROC_ENV
from .outbox_gauges import OutboxCollector

KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

REQUEST_DURATION = Histogram(
    "elf_http_request_duration_seconds",
    "HTTP request latency by listener, method, URL pattern and status class.",
    ["bind", "method", "route", "status_class"],
)


def observe_request(*, bind: str, method: str, route: str, status: int, seconds: float) -> None:
    method = method if method in KNOWN_METHODS else "OTHER"
    REQUEST_DURATION.labels(bind, method, route, f"{status // 100}xx").observe(seconds)


def exposition() -> bytes:
    """The text exposition: this process's (or every elf-api worker's) metrics, then the database gauges."""
    if os.environ.get(MULTIPROC_ENV):
        processes = CollectorRegistry()
        MultiProcessCollector(processes)
    else:
        processes = REGISTRY
    database = CollectorRegistry(auto_describe=False)
    database.register(OutboxCollector())
    return generate_latest(processes) + generate_latest(database)
