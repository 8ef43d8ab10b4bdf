"""A Qdrant collection as one process uses it: ensured once, and again after Qdrant answers 404.

Ensuring a collection costs two or more round trips (exists, get, payload indexes), so it is not done per
request. An operator may drop a collection at any time (Qdrant is a derived index); the first call that
meets the 404 marks the handle, ensures the collection again and retries once, so a dropped collection
costs one extra round trip, never a stuck worker or a failed search.

One handle per (process, url, collection): a forked worker child builds its own client instead of sharing
its parent's sockets.

Connections are kept alive. qdrant-client turns keep-alive off for a Qdrant on localhost (delays it met with
Nagle's algorithm; httpcore sets TCP_NODELAY on its sockets and the embedded server on its own, so they do not
apply here): every call then opened a TCP connection, and the embedded server a thread for it. For the
worker that was two connections per indexed batch (upsert, then delete).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar

import httpx
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from .points_query import PointsQuery

QDRANT_TIMEOUT_S = 10
# Kept-alive connections per handle (one per thread calling at once: the API's request threads, a worker child's
# one task); idle ones close after KEEPALIVE_S.
KEEPALIVE_CONNECTIONS = 16
KEEPALIVE_S = 30.0
T = TypeVar("T")
Ensure = Callable[[QdrantClient, str], None]  # creates or checks the collection (and its payload indexes)


class IndexUnavailable(Exception):
    """Qdrant could not be reached (refused, reset, timed out) or answered 5xx: the index is down, the call was
    not wrong. The API answers it 503 INDEX_UNAVAILABLE (elf_kernel.errors); an outbox row retries it."""


def is_not_found(exc: Exception) -> bool:
    return isinstance(exc, UnexpectedResponse) and exc.status_code == 404


def is_unavailable(exc: Exception) -> bool:
    return isinstance(exc, ResponseHandlingException) or (
        isinstance(exc, UnexpectedResponse) and exc.status_code is not None and exc.status_code >= 500)


class CollectionHandle:
    def __init__(self, url: str, collection: str, ensure: Ensure):
        self.client = QdrantClient(url=url, timeout=QDRANT_TIMEOUT_S, limits=httpx.Limits(
            max_connections=None, max_keepalive_connections=KEEPALIVE_CONNECTIONS, keepalive_expiry=KEEPALIVE_S))
        self.points = PointsQuery(url, QDRANT_TIMEOUT_S)  # the search's batch query, without qdrant-client's stack
        self.collection = collection
        self._ensure = ensure
        self._ensured = False
        self._lock = threading.Lock()

    def ensure(self) -> None:
        """Create (or check) the collection now, whatever this process saw before."""
        with self._lock:
            self._ensure(self.client, self.collection)
            self._ensured = True

    def ensure_once(self) -> None:
        if not self._ensured:
            self.ensure()

    def forget(self) -> None:
        """The collection is gone (a 404): the next call ensures it again."""
        self._ensured = False

    def call(self, fn: Callable[[QdrantClient, str], T], *, retry_after_404: bool = True) -> T:
        """``fn(client, collection)`` on an ensured collection. A 404 (the collection was dropped since this
        process ensured it) ensures it again and, with ``retry_after_404``, retries once; otherwise it is
        raised for the caller's own retry (an outbox row). Qdrant down is raised as IndexUnavailable."""
        try:
            return self._call(fn, retry_after_404)
        except (ResponseHandlingException, UnexpectedResponse) as exc:
            if is_unavailable(exc):
                raise IndexUnavailable(f"Qdrant collection {self.collection} is unavailable: {exc}") from exc
            raise

    def _call(self, fn: Callable[[QdrantClient, str], T], retry_after_404: bool) -> T:
        self.ensure_once()
        try:
            return fn(self.client, self.collection)
        except UnexpectedResponse as exc:
            if not is_not_found(exc):
                raise
            self.forget()
            if not retry_after_404:
                raise
        self.ensure()
        return fn(self.client, self.collection)

    def upsert(self, points: list[models.PointStruct]) -> None:
        """Upsert and wait until applied; a 404 is raised (after marking the handle) for the outbox's retry."""
        if points:
            self.call(lambda c, name: c.upsert(name, points=list(points), wait=True), retry_after_404=False)

    def replace_points(self, owner: models.Filter, points: list[models.PointStruct]) -> None:
        """Make ``points`` the only points matching ``owner`` (one note's or one document's chunks): upsert them
        first, so the owner is never missing from the index in between, then delete its other points. No
        points deletes every point of the owner."""
        if not points:
            self.delete(owner)
            return
        self.upsert(points)
        self.delete(models.Filter(must=owner.must, must_not=[models.HasIdCondition(has_id=[p.id for p in points])]))

    def delete(self, flt: models.Filter) -> None:
        """Delete the points matching ``flt``; a missing collection has none to delete."""
        try:
            self.client.delete(self.collection, points_selector=models.FilterSelector(filter=flt), wait=True)
        except UnexpectedResponse as exc:
            if not is_not_found(exc):
                raise
            self.forget()


_handles: dict[tuple[int, str, str, tuple], CollectionHandle] = {}
_handles_lock = threading.Lock()


def collection_handle(url: str, collection: str, ensure: Ensure, *, shape: tuple = ()) -> CollectionHandle:
    """This process's handle for ``collection`` at ``url``. ``shape`` names what ``ensure`` checks (e.g. the
    vector size), so a changed config gets a new handle."""
    key = (os.getpid(), url, collection, shape)
    with _handles_lock:
        handle = _handles.get(key)
        if handle is None:
            for stale in [k for k in _handles if k[0] != key[0] or k[1:3] == key[1:3]]:
                del _handles[stale]  # a parent's handles (after fork), or an older config of this collection
            handle = _handles[key] = CollectionHandle(url, collection, ensure)
        return handle
