"""Qdrant's batch query (POST /collections/{name}/points/query/batch) over a plain keep-alive HTTP connection:
the search's hot path. qdrant-client's own call costs about 1.5 ms p50 and 2.5 ms p95 more per search than the
same request sent here (its httpx stack and its pydantic parsing of every scored point), measured against a
100k-note collection whose engine time is 2.2 ms (docs/benchmarks.md, "Speed work").

Requests are still built as qdrant-client models (so the body is what the client would send) and answers
read as the ids and scores a search uses. Errors are raised as qdrant-client raises them
(``UnexpectedResponse`` for an HTTP error status, ``ResponseHandlingException`` when Qdrant cannot be reached),
so ``CollectionHandle.call`` maps them the same way: a 404 re-ensures the collection, 5xx and refused
connections are ``IndexUnavailable``. One connection per thread (http.client is not thread-safe); a kept-alive
connection that the server closed is reopened once.
"""

from __future__ import annotations

import http.client
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

import orjson
from httpx import Headers
from qdrant_client import models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

_STALE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, http.client.CannotSendRequest)


@dataclass(frozen=True)
class Point:
    id: str
    score: float


@dataclass(frozen=True)
class QueryResult:
    points: list[Point]


class PointsQuery:
    """Stands in for the QdrantClient where only ``query_batch_points`` is called (``hybrid.recall_batch``)."""

    def __init__(self, url: str, timeout: float):
        parts = urlsplit(url)
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout
        self._local = threading.local()

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = self._local.conn = cls(self._host, self._port, timeout=self._timeout)
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()

    def _post(self, path: str, body: bytes) -> tuple[int, str, bytes, list]:
        for attempt in (1, 2):
            conn = self._connection()
            reused = conn.sock is not None
            try:
                conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                return resp.status, resp.reason, resp.read(), resp.getheaders()
            except _STALE as exc:
                self._drop()
                if attempt == 2 or not reused:
                    raise ResponseHandlingException(exc) from exc
            except OSError as exc:  # refused, timed out, unreachable
                self._drop()
                raise ResponseHandlingException(exc) from exc
        raise AssertionError("unreachable")

    def query_batch_points(self, collection_name: str, requests: Sequence[models.QueryRequest]) -> list[QueryResult]:
        body = orjson.dumps({"searches": [r.model_dump(mode="json", exclude_none=True) for r in requests]})
        status, reason, content, headers = self._post(
            f"{self._prefix}/collections/{quote(collection_name, safe='')}/points/query/batch", body)
        if status != 200:
            raise UnexpectedResponse(status_code=status, reason_phrase=reason, content=content,
                                     headers=Headers(headers))
        try:
            answer = orjson.loads(content)["result"]
            return [QueryResult([Point(str(p["id"]), float(p["score"])) for p in r["points"]]) for r in answer]
        except (ValueError, KeyError, TypeError) as exc:
            raise ResponseHandlingException(exc) from exc
