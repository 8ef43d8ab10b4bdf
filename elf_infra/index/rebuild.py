"""The rebuild driver shared by every derived collection: upsert points built from stored vectors, batch by
batch, counting what had no vector and what Qdrant refused, and never calling an embedding provider.

The caller pages its own rows (keyset order) and turns a page into points; a row it cannot build a point
for (no stored vector of the current embedding version) is counted as missing, and a batch Qdrant rejects
is counted as errors while the rebuild goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from qdrant_client import models

log = logging.getLogger("elf.indexing")

Progress = Callable[[int, int], None]  # (rows handled so far, total rows)


@dataclass(frozen=True)
class RebuildReport:
    rebuilt_count: int
    missing_vector_count: int
    error_count: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def run_rebuild(
    *,
    pages: Iterable[Sequence[Any]],
    total: int,
    to_points: Callable[[Sequence[Any]], list[models.PointStruct]],
    upsert: Callable[[list[models.PointStruct]], None],
    progress: Progress | None = None,
) -> RebuildReport:
    rebuilt = missing = errors = 0
    if progress is not None:
        progress(0, total)
    for page in pages:
        points = to_points(page)
        missing += len(page) - len(points)
        try:
            upsert(points)
            rebuilt += len(points)
        except Exception as exc:
            log.warning("rebuild: a batch of %d points failed: %s", len(points), exc)
            errors += len(points)
        if progress is not None:
            progress(rebuilt + missing + errors, total)
    return RebuildReport(rebuilt, missing, errors)
