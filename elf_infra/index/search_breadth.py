"""How wide the dense leg's HNSW search is: Qdrant's `hnsw_ef` (its default is the graph's ef_construct, 100).

Measured by `elf-bench scale --ef-sweep` on a million distinct notes in one project, each embedded by the model
(docs/benchmarks.md, "Scale"; the dense leg's top 10 against exact search's, 100 questions): overlap@10 0.988
with the default at 100k points; at 1M 0.988 at ef 200, 0.998 at 400, 0.999 at 800 and at 1600, the request taking
4.3, 5.5, 8.5 and 13.7 ms at p50. A search whose filter admits few points (a small tenant) is an exact scan
whatever ef is. So ef steps up with the collection's size, read at most once a minute per process, to one step
above what the measurement needed (400 from 500k points); the steps are wide, so the same data is searched with
the same ef. (The earlier steps, up to 1600 from 1M, were set on the bench's copies of each sentence, near-ties
that no ef resolved.)"""

from __future__ import annotations

from qdrant_client import QdrantClient, models

from . import collection_facts
from .hybrid import dense_search_params

# (collections below this many points, their ef); None: Qdrant's default
STEPS: tuple[tuple[int, int | None], ...] = ((250_000, None), (500_000, 200))
WIDEST = 400  # from 500k points; more than a million were not measured


def hnsw_ef_for(points: int) -> int | None:
    """The ef for a collection of ``points`` points (None: Qdrant's default)."""
    for below, ef in STEPS:
        if points < below:
            return ef
    return WIDEST


def dense_params(client: QdrantClient, collection: str) -> models.SearchParams:
    """The dense requests' search params for ``collection`` as it is now (its size read at most once a minute),
    with the float rescoring of a quantized collection's candidates (hybrid.dense_search_params)."""
    return dense_search_params(hnsw_ef_for(collection_facts.facts(client, collection).points))


def forget() -> None:
    """Drop the sizes read (tests)."""
    collection_facts.forget()
