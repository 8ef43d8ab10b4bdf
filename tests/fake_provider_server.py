"""A fake model provider: a real threaded HTTP server on 127.0.0.1 (free port) for provider tests.

It records every request (method, path, headers, raw body, decoded JSON) and answers per path with
programmed responses: a status, a JSON or raw body, a delay, or a dropped connection (outage). Later
tests use it to simulate provider outages and recovery (spec section 19 G).

    # the fake_provider fixture: list "tests.fake_provider_server" in the root conftest's pytest_plugins

    def test_x(fake_provider):
        fake_provider.respond("/v1/embeddings", FakeResponse(status=503))           # every call
        fake_provider.respond("/v1/chat/completions", [FakeResponse(json=a), FakeResponse(json=b)])  # in turn
        fake_provider.handle("/v1/embeddings", embeddings_handler(384))           # computed per request
        ... point a provider at fake_provider.url ...
        assert len(fake_provider.requests_to("/v1/embeddings")) == 1
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest


@dataclass(frozen=True)
class FakeResponse:
    """One programmed answer. ``json`` wins over ``body``; ``drop_connection`` closes without answering."""

    status: int = 200
    json: Any = None
    body: bytes | str = b""
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    drop_connection: bool = False


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        """Header value by case-insensitive name."""
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


Handler = Callable[[RecordedRequest], FakeResponse]


class FakeProviderServer:
    """Start with ``start()`` or ``with``; ``url`` is ``http://127.0.0.1:<port>``."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._routes: dict[str, Handler] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Self:
        # A short poll interval keeps stop() (and so each test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-provider", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a programmed delay
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def respond(self, path: str, responses: FakeResponse | list[FakeResponse]) -> None:
        """Answer ``path`` with ``responses`` in turn; the last one repeats for every later request."""
        queue = [responses] if isinstance(responses, FakeResponse) else list(responses)
        if not queue:
            raise ValueError("at least one response is needed")

        def next_response(_: RecordedRequest) -> FakeResponse:
            return queue.pop(0) if len(queue) > 1 else queue[0]

        self.handle(path, next_response)

    def handle(self, path: str, handler: Handler) -> None:
        """Answer ``path`` with whatever ``handler`` returns for each recorded request."""
        with self._lock:
            self._routes[path] = handler

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def reset(self) -> None:
        """Forget recorded requests and programmed routes."""
        with self._lock:
            self.requests.clear()
            self._routes.clear()

    def _dispatch(self, request: RecordedRequest) -> FakeResponse:
        with self._lock:
            self.requests.append(request)
            handler = self._routes.get(request.path)
            if handler is None:
                return FakeResponse(status=404, json={"error": f"no fake response for {request.path}"})
            return handler(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self._serve()

            def do_GET(self) -> None:
                self._serve()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = RecordedRequest(self.command, self.path, dict(self.headers.items()), body)
                response = server._dispatch(request)
                if response.delay_s and server._stopping.wait(response.delay_s):
                    return
                if response.drop_connection:
                    self.close_connection = True
                    return
                if response.json is not None:
                    payload = json.dumps(response.json).encode()
                    content_type = "application/json"
                else:
                    payload = response.body.encode() if isinstance(response.body, str) else response.body
                    content_type = "text/plain; charset=utf-8"
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", content_type)
                    for name, value in response.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (e.g. its timeout fired during a programmed delay)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return _Handler


@pytest.fixture
def fake_provider() -> Iterator[FakeProviderServer]:
    """A running ``FakeProviderServer`` for one test."""
    with FakeProviderServer() as server:
        yield server


def fake_vector(text: str, dimensions: int) -> list[float]:
    """A deterministic unit-length vector for ``text`` (not semantic: equal texts, equal vectors)."""
    raw: list[float] = []
    counter = 0
    while len(raw) < dimensions:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        raw.extend(v / 2**31 for v in struct.unpack("<8i", digest))
        counter += 1
    vec = raw[:dimensions]
    norm = sum(v * v for v in vec) ** 0.5 or 1.0
    return [v / norm for v in vec]


def embeddings_handler(dimensions: int) -> Handler:
    """An OpenAI-style embeddings endpoint answering every input with ``fake_vector``."""

    def handler(request: RecordedRequest) -> FakeResponse:
        texts = request.json["input"]
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(text, dimensions)}
            for i, text in enumerate(texts)
        ]
        return FakeResponse(json={"object": "list", "data": data, "model": request.json.get("model")})

    return handler


def vllm_embeddings_handler(dimensions: int) -> Handler:
    """``embeddings_handler`` as vLLM answers for a model without Matryoshka support: any request that carries
    ``dimensions`` is refused with vLLM's HTTP 400 body."""
    answer = embeddings_handler(dimensions)

    def handler(request: RecordedRequest) -> FakeResponse:
        if "dimensions" in request.json:
            model = request.json.get("model")
            return FakeResponse(status=400, json={
                "object": "error", "type": "BadRequestError", "param": None, "code": 400,
                "message": f'Model "{model}" does not support matryoshka representation, changing output '
                           "dimensions will lead to poor results."})
        return answer(request)

    return handler


def chat_completion(content: str) -> dict[str, Any]:
    """An OpenAI-style chat completions answer whose ``choices[0].message.content`` is ``content``."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }
