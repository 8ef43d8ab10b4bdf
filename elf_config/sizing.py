"""Process sizing (README, "Sizing"): how elf-api and elf-worker share this machine's cores.

The counts in ``[service]`` and ``[worker]`` may be ``"auto"``; ``resolve_sizing`` turns them into numbers for
a given number of cores, so what "auto" means is one rule, checked without the machine. The entry points pass
``available_cores()``: the cores this process may run on (its CPU affinity, which a container's cpuset or
``taskset`` narrows), not every core of the host.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .schema import AUTO, ElfConfig

MAX_PROCESSES = 64
MAX_API_THREADS = 64
MAX_EMBED_THREADS = 16
MAX_PREFETCH = 16
MAX_NICE = 19
MAX_CATCH_UP_AFTER_S = 3600.0
# onnxruntime gains little past two threads on this small model (elf_infra.providers.local_embedder).
MAX_AUTO_EMBED_THREADS = 2


@dataclass(frozen=True)
class Sizing:
    api_workers: int
    api_threads: int
    api_embed_threads: int
    worker_concurrency: int
    worker_prefetch: int
    worker_nice: int
    worker_embed_threads: int
    # ONNX threads of an API call embedding BATCH_MIN_TEXTS texts or more (an add_note batch): "auto" gives
    # such a call up to two cores (one request waits for all of it); a set api_embed_threads applies to it too.
    api_embed_batch_threads: int


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _embed_threads(value: int | str, cores: int, processes: int) -> int:
    """"auto": the cores left per process once every process has one, at most two; else ``value``."""
    if value != AUTO:
        return int(value)
    return max(1, min(MAX_AUTO_EMBED_THREADS, cores // processes))


def resolve_sizing(cfg: ElfConfig, cores: int) -> Sizing:
    """The numbers elf-api and elf-worker run with on ``cores`` cores.

    auto: one gunicorn worker per core (each is one Python interpreter, so one core's worth of Python at a
    time, its threads overlapping the waits on Postgres and Qdrant); one Celery process per two cores (indexing
    batches its embedding, so a process keeps two ONNX threads busy); embedding threads fill what is left.
    """
    s, w = cfg.service, cfg.worker
    api_workers = cores if s.api_workers == AUTO else int(s.api_workers)
    concurrency = max(1, cores // 2) if w.concurrency == AUTO else int(w.concurrency)
    return Sizing(
        api_workers=api_workers,
        api_threads=s.api_threads,
        api_embed_threads=_embed_threads(s.api_embed_threads, cores, api_workers),
        worker_concurrency=concurrency,
        worker_prefetch=w.prefetch_multiplier,
        worker_nice=w.nice,
        worker_embed_threads=_embed_threads(w.embed_threads, cores, concurrency),
        api_embed_batch_threads=_embed_threads(s.api_embed_threads, cores, 1),
    )


def _count_problem(key: str, value: int | str, top: int) -> str | None:
    if value == AUTO or 1 <= int(value) <= top:
        return None
    return f'{key} must be "auto" or an integer in the range [1, {top}]'


def sizing_problems(cfg: ElfConfig) -> list[str]:
    s, w = cfg.service, cfg.worker
    checks = (
        ("service.api_workers", s.api_workers, MAX_PROCESSES),
        ("service.api_embed_threads", s.api_embed_threads, MAX_EMBED_THREADS),
        ("worker.concurrency", w.concurrency, MAX_PROCESSES),
        ("worker.embed_threads", w.embed_threads, MAX_EMBED_THREADS),
    )
    p = [problem for key, value, top in checks if (problem := _count_problem(key, value, top))]
    if not 1 <= s.api_threads <= MAX_API_THREADS:
        p.append(f"service.api_threads must be in the range [1, {MAX_API_THREADS}]")
    elif s.api_threads > cfg.storage.postgres.pool_max_conns > 0:
        # Each request thread holds one pooled connection; the rest would wait for one and time out.
        p.append(f"service.api_threads ({s.api_threads}) must not exceed storage.postgres.pool_max_conns "
                 f"({cfg.storage.postgres.pool_max_conns}): each request thread holds a database connection")
    if not 1 <= w.prefetch_multiplier <= MAX_PREFETCH:
        p.append(f"worker.prefetch_multiplier must be in the range [1, {MAX_PREFETCH}]")
    if not 0 <= w.nice <= MAX_NICE:
        p.append(f"worker.nice must be in the range [0, {MAX_NICE}] (0: the same CPU priority as the API)")
    if not 0 <= w.catch_up_nice <= MAX_NICE:
        p.append(f"worker.catch_up_nice must be in the range [0, {MAX_NICE}] (at or above worker.nice: no catch-up)")
    if not 0 < w.catch_up_after_seconds <= MAX_CATCH_UP_AFTER_S:
        p.append(f"worker.catch_up_after_seconds must be in the range (0, {MAX_CATCH_UP_AFTER_S:g}]")
    return p
