"""Per-process CPU settings of elf-api and elf-worker, from the resolved sizing (docs/operations.md, "Sizing")."""

from __future__ import annotations

import gc


def set_embed_threads(n: int, batch: int | None = None) -> None:
    """The local embedder's ONNX threads in this process and in the processes it forks: ``n`` for single
    texts, ``batch`` (default ``n``) for calls of many texts."""
    from elf_infra.providers import local_embedder

    local_embedder.set_intra_op_threads(n, batch)


def freeze_heap(_server, _worker) -> None:
    """Move every object alive now into the collector's permanent generation (``gc.freeze``), so no later
    collection scans them again. Called by elf-api's gunicorn master before each fork (the ``pre_fork`` hook,
    after the app was preloaded): the ~230k objects of Django, DRF and the apps are then never walked by a
    worker's full collection, which took 148 ms in a serving process before and at most 4.4 ms after (300
    quick_finds in-process, docs/benchmarks.md), and the forked workers keep sharing those pages."""
    gc.freeze()
