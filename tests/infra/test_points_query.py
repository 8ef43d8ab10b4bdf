"""elf_infra.index.points_query: the search's batch query over plain keep-alive HTTP answers what qdrant-client
answers, fails the way qdrant-client fails (so CollectionHandle maps it the same), and reopens a kept-alive
connection the server closed."""

from __future__ import annotations

import socket
import threading

import pytest
from qdrant_client import models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from elf_infra.index import bm25
from elf_infra.index.collection import CollectionHandle, IndexUnavailable
from elf_infra.index.hybrid import recall_batch
from elf_infra.index.points_query import PointsQuery
from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import client_for, create_collection, make_point, qdrant_server  # noqa: F401

TEXTS = ["the build cache lives on the second disk", "the deploy window is friday night",
         "who reboots the build server", "coffee is in the second kitchen"]


def _seed(server: EmbeddedQdrant) -> None:
    client = client_for(server)
    create_collection(client)
    points = []
    for i, text in enumerate(TEXTS):
        sparse = bm25.embed_document(text)
        points.append(make_point(i + 1, [1.0, float(i), 0.5, -float(i)], {"tenant_id": "t1" if i < 3 else "t2"},
                                 (sparse.indices, sparse.values)))
    client.upsert("c", points=points, wait=True)


def _query(client, text: str, **kw):
    flt = models.Filter(must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value="t1"))])
    found = recall_batch(client, "c", [1.0, 1.0, 0.5, -1.0], bm25.embed_query(text), flt, 3, with_payload=False, **kw)
    return found.dense, found.bm25


def test_answers_what_qdrant_client_answers(qdrant_server: EmbeddedQdrant) -> None:  # noqa: F811
    _seed(qdrant_server)
    raw = PointsQuery(qdrant_server.url, 10)
    for text in ("build cache disk", "deploy window", "the and of"):  # the last is stopwords only: no BM25 leg
        want_dense, want_bm25 = _query(client_for(qdrant_server), text)
        got_dense, got_bm25 = _query(raw, text)
        assert [(p.id, p.score) for p in got_dense] == [(str(p.id), p.score) for p in want_dense]
        assert [(p.id, p.score) for p in got_bm25] == [(str(p.id), p.score) for p in want_bm25]
        assert len(got_dense) == 3 and all(p.id != "4" for p in got_dense)  # the filter held: t2's point is out
    assert _query(raw, "build cache")[1], "the BM25 leg found the lexical match"


def test_errors_are_qdrant_clients_so_the_handle_maps_them(qdrant_server: EmbeddedQdrant) -> None:  # noqa: F811
    raw = PointsQuery(qdrant_server.url, 10)
    with pytest.raises(UnexpectedResponse) as missing:
        _query(raw, "build cache")  # no collection "c" yet
    assert missing.value.status_code == 404
    ensured = []

    def ensure(client, name):
        if not client.collection_exists(name):
            _seed(qdrant_server)
        ensured.append(name)

    handle = CollectionHandle(qdrant_server.url, "c", ensure)
    handle.ensure_once()  # as at start-up
    client_for(qdrant_server).delete_collection("c")  # then an operator drops the collection
    dense, _ = handle.call(lambda _client, _name: _query(handle.points, "build cache"))
    assert ensured == ["c", "c"] and len(dense) == 3  # the 404 re-ensured the collection, the query was retried

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: refused
    with pytest.raises(ResponseHandlingException):
        _query(PointsQuery(f"http://127.0.0.1:{port}", 2), "build cache")
    down = CollectionHandle(f"http://127.0.0.1:{port}", "c", lambda c, n: None)
    with pytest.raises(IndexUnavailable):
        down.call(lambda _client, _name: _query(down.points, "build cache"))


def test_a_kept_alive_connection_the_server_closed_is_reopened_once() -> None:
    """A server that answers one request per connection and then closes it without saying so."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted = []
    body = b'{"result": [{"points": [{"id": "a", "score": 0.5}]}], "status": "ok", "time": 0.001}'

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, rest = data.partition(b"\r\n\r\n")
            length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
            while len(rest) < length:
                rest += conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\n\r\n" + body)
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    raw = PointsQuery(f"http://127.0.0.1:{listener.getsockname()[1]}", 5)
    try:
        request = models.QueryRequest(query=[0.1, 0.2], using="dense", limit=1)
        for _ in range(3):
            (result,) = raw.query_batch_points("c", [request])
            assert [(p.id, p.score) for p in result.points] == [("a", 0.5)]
        assert len(accepted) == 3  # one new connection per request after the server closed the last one
    finally:
        listener.close()
