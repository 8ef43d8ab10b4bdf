"""What a search needs to know about the notes collection as it is now, read at most once a minute per process
(one GET of the collection): how many points it holds (``search_breadth`` widens the dense leg with it) and
what its points carry to be searched by (``notes_collection.searched_by``: ``read_tag``, else ``read_key``, else the
per-scope fields; read_filter's ``by``)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from qdrant_client import QdrantClient

from .notes_collection import searched_by

TTL_S = 60.0


@dataclass(frozen=True)
class CollectionFacts:
    points: int
    read_by: str  # notes_collection.searched_by: read_tag, read_key or scope


_facts: dict[str, tuple[float, CollectionFacts]] = {}
_lock = threading.Lock()


def facts(client: QdrantClient, collection: str) -> CollectionFacts:
    """``collection``'s facts, read again when the last reading is older than TTL_S."""
    now = time.monotonic()
    with _lock:
        cached = _facts.get(collection)
    if cached is None or now - cached[0] > TTL_S:
        info = client.get_collection(collection)
        cached = (now, CollectionFacts(info.points_count or 0, searched_by(info.payload_schema or {})))
        with _lock:
            _facts[collection] = cached
    return cached[1]


def forget() -> None:
    """Drop the facts read (tests)."""
    with _lock:
        _facts.clear()
