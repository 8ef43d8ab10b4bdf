"""HTTP transport and routing: a threaded HTTP/1.1 server speaking Qdrant's REST envelope.

Every answer is `{"result": ..., "status": "ok", "time": seconds}`; errors are
`{"status": {"error": "..."}, "time": seconds}` with Qdrant's status codes (400 bad input, 404 missing
collection, 409 existing collection, 422 invalid path, 413 body too large, 500 engine failure).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson

from . import endpoints as ep
from .errors import ApiError
from .registry import CollectionRegistry

log = logging.getLogger(__name__)

# The Qdrant REST API level served. qdrant-client checks it against its own version (same major, minor
# within 1) and warns otherwise; 1.20 is the level of the pinned qdrant-client 1.20.0.
QDRANT_API_VERSION = "1.20.0"
MAX_BODY_BYTES = 32 * 1024 * 1024  # Qdrant's default service.max_request_size_mb

Endpoint = Callable[[CollectionRegistry, dict[str, str], Any], Any]

_C = r"/collections/(?P<name>[^/]+)"
_ROUTES: list[tuple[re.Pattern[str], dict[str, Endpoint]]] = [
    (re.compile(r"/collections"), {"GET": ep.list_collections}),
    (re.compile(_C), {"GET": ep.get_collection, "PUT": ep.create_collection, "DELETE": ep.delete_collection}),
    (re.compile(_C + r"/exists"), {"GET": ep.collection_exists}),
    (re.compile(_C + r"/idf_corpora"), {"GET": ep.idf_corpora}),  # not Qdrant's: the kept BM25 statistics
    (re.compile(_C + r"/index"), {"PUT": ep.create_index}),
    (re.compile(_C + r"/index/(?P<field>[^/]+)"), {"DELETE": ep.delete_index}),
    (re.compile(_C + r"/points"), {"PUT": ep.upsert_points, "POST": ep.retrieve_points}),
    (re.compile(_C + r"/points/delete"), {"POST": ep.delete_points}),
    (re.compile(_C + r"/points/scroll"), {"POST": ep.scroll_points}),
    (re.compile(_C + r"/points/count"), {"POST": ep.count_points}),
    (re.compile(_C + r"/points/query"), {"POST": ep.query_points}),
    (re.compile(_C + r"/points/query/batch"), {"POST": ep.query_batch}),
]
_PROBES = {"/healthz": "healthz check passed", "/livez": "livez check passed", "/readyz": "all shards are ready"}


def resolve(method: str, path: str) -> tuple[Endpoint, dict[str, str]]:
    """The endpoint and URL-decoded path parameters for a request; 404 / 405 ApiError otherwise."""
    for pattern, methods in _ROUTES:
        m = pattern.fullmatch(path)
        if m:
            if method not in methods:
                raise ApiError(405, f"Method {method} not allowed for {path}")
            return methods[method], {k: unquote(v) for k, v in m.groupdict().items()}
    raise ApiError(404, f"Not found: {path}")


class QdrantHTTPServer(ThreadingHTTPServer):
    """One thread per connection; holds the collection registry the handlers use."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], registry: CollectionRegistry) -> None:
        super().__init__(address, RequestHandler)
        self.registry = registry


class RequestHandler(BaseHTTPRequestHandler):
    """Parses one request, dispatches it, renders Qdrant's envelope."""

    protocol_version = "HTTP/1.1"
    server_version = "elf-qdrant-edge"
    # Headers and body go out in two writes; with Nagle on, a keep-alive client waits ~40 ms (delayed ACK)
    # for the second one.
    disable_nagle_algorithm = True
    server: QdrantHTTPServer

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        self._handle()

    def do_PUT(self) -> None:  # noqa: N802
        self._handle()

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle()

    def do_PATCH(self) -> None:  # noqa: N802
        self._handle()

    def _handle(self) -> None:
        started = time.perf_counter()
        path = urlsplit(self.path).path.rstrip("/") or "/"
        status = 200
        try:
            body = self._read_body()
            if self.command == "GET" and path == "/":
                self._send(200, {"title": "qdrant - vector search engine", "version": QDRANT_API_VERSION})
                return
            if self.command == "GET" and path in _PROBES:
                self._send(200, _PROBES[path].encode(), content_type="text/plain")
                return
            endpoint, params = resolve(self.command, path)
            result = endpoint(self.server.registry, params, orjson.loads(body) if body else None)
            self._send(200, {"result": result, "status": "ok", "time": time.perf_counter() - started})
        except ApiError as exc:
            status = exc.status
            self._send(status, {"status": {"error": exc.message}, "time": time.perf_counter() - started})
        except json.JSONDecodeError as exc:
            status = 400
            self._send(400, {"status": {"error": f"Format error in JSON body: {exc}"},
                             "time": time.perf_counter() - started})
        except Exception:
            status = 500
            log.exception("%s %s failed", self.command, self.path)
            self._send(500, {"status": {"error": "Service internal error"}, "time": time.perf_counter() - started})
        finally:
            log.debug("%s %s -> %d in %.2f ms", self.command, self.path, status, (time.perf_counter() - started) * 1e3)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            return self._read_chunked()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self.close_connection = True  # the unread body makes the connection unusable
            raise ApiError(413, f"Payload too large: {length} bytes, limit {MAX_BODY_BYTES}")
        return self.rfile.read(length) if length else b""

    def _read_chunked(self) -> bytes:
        chunks, total = [], 0
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailer headers
                return b"".join(chunks)
            total += size
            if total > MAX_BODY_BYTES:
                self.close_connection = True
                raise ApiError(413, f"Payload too large: limit {MAX_BODY_BYTES} bytes")
            chunks.append(self.rfile.read(size))
            self.rfile.readline()

    def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        # orjson both ways: the stdlib's json was 40% of an upsert's time (issue 35); 4.4k -> 8.2k points/s
        data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Requests are logged once, with timing, by `_handle`."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server signature)
        log.debug("%s - " + format, self.address_string(), *args)
