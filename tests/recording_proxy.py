"""A recording HTTP/1.1 reverse proxy: point a service's ``storage.qdrant.url`` at it and it forwards every request
to the real Qdrant, answers with Qdrant's answer, and keeps what was sent (method, path with query string, body)
and the status Qdrant gave. Keep-alive on both sides, one thread per client connection, as the service's clients
(qdrant-client's httpx pool and the hot path's http.client connections, elf_infra.index.points_query) expect."""

from __future__ import annotations

import http.client
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# Hop-by-hop headers (RFC 9110 7.6.1) and the length, which the proxy sets itself.
_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "host"}


@dataclass(frozen=True)
class Exchange:
    method: str
    target: str  # path and query string, as sent
    body: bytes
    content_type: str | None
    status: int


class RecordingProxy:
    def __init__(self, upstream: str):
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname, parts.port or 80
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:  # quiet
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                upstream = getattr(self, "_upstream", None)
                if upstream is None:
                    upstream = self._upstream = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port,
                                                                           timeout=60)
                try:
                    upstream.request(self.command, self.path, body=body or None, headers=headers)
                    resp = upstream.getresponse()
                    content = resp.read()
                except (http.client.HTTPException, OSError):
                    upstream.close()
                    self._upstream = None
                    raise
                proxy._record(Exchange(self.command, self.path, body, self.headers.get("Content-Type"), resp.status))
                self.send_response(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() not in _HOP:
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="qdrant-recording-proxy", daemon=True)

    def _record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    def recorded(self) -> list[Exchange]:
        with self._lock:
            return list(self.exchanges)

    def start(self) -> RecordingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
