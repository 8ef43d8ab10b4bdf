"""What a search needs to know about the notes collection as it is now, read at most once a minute per process
(one GET of the collection): how many points it holds (``search_breadth`` widens the dense leg with it) and
whether its points carry ``read_key`` (``notes_collection.read_filter`` then needs two conditions, not four)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from qdrant_client import QdrantClient

from .notes_collection import searched_by_read_key

TTL_S = 60.0


@dataclass(frozen=True)
class CollectionFacts:
    points: int
    keyed: bool  # every point carries read_key (its index exists)


_facts: dict[str, tuple[float, CollectionFacts]] = {}
_lock = threading.Lock()


def facts(client: QdrantClient, collection: str) -> CollectionFacts:
    """``collection``'s facts, read again when the last reading is older than TTL_S."""
    now = time.monotonic()
    with _lock:
        cached = _facts.get(collection)
    if cached is None or now - cached[0] > TTL_S:
        info = client.get_collection(collection)
        cached = (now, CollectionFacts(info.points_count or 0, searched_by_read_key(info.payload_schema or {})))
        with _lock:
            _facts[collection] = cached
    return cached[1]


def forget() -> None:
    """Drop the facts read (tests)."""
    with _lock:
        _facts.clear()
