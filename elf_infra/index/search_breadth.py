"""How wide the dense leg's HNSW search is: Qdrant's `hnsw_ef` (its default is the graph's ef_construct, 100).

Measured at 1M notes in one project (docs/benchmarks.md, Scale): the dense leg's overlap@10 with exact search was
0.858 with the default, 0.913 at 200, 0.946 at 400 and 0.982 at 800, for 3 ms more engine time at p50 and 5 ms at
p95 at 800 (limit 60). As `elf-bench scale` measures it (limit 10, the top 10 against exact search's), on the same
1.05M-point collection: 0.973 at 800, 0.979 at 1200, 0.985 at 1600 and 2400; 1600 costs 2.9 ms more engine time
than 800 at p50 (6.9 against 4.0 ms, limit 60). Up to 100k points the default holds (0.991), and a search whose
filter admits few points (a small tenant) is an exact scan whatever ef is. So ef steps up with the collection's
size, read at most once a minute per process; the steps are wide, so the same data is searched with the same ef."""

from __future__ import annotations

from qdrant_client import QdrantClient, models

from . import collection_facts

# (collections below this many points, their ef); None: Qdrant's default
STEPS: tuple[tuple[int, int | None], ...] = ((250_000, None), (500_000, 200), (750_000, 400), (1_000_000, 800))
WIDEST = 1600


def hnsw_ef_for(points: int) -> int | None:
    """The ef for a collection of ``points`` points (None: Qdrant's default)."""
    for below, ef in STEPS:
        if points < below:
            return ef
    return WIDEST


def dense_params(client: QdrantClient, collection: str) -> models.SearchParams | None:
    """The dense requests' search params for ``collection`` as it is now (its size read at most once a minute)."""
    ef = hnsw_ef_for(collection_facts.facts(client, collection).points)
    return None if ef is None else models.SearchParams(hnsw_ef=ef)


def forget() -> None:
    """Drop the sizes read (tests)."""
    collection_facts.forget()
