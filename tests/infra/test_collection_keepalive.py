"""elf_infra.index.collection: a handle's qdrant-client keeps its connection alive (qdrant-client's own default
for a Qdrant on localhost opens one per call, and the embedded server a thread for each)."""

from __future__ import annotations

import socket
import threading

from qdrant_client import models

from elf_infra.index.collection import CollectionHandle
from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import create_collection, make_point, qdrant_server  # noqa: F401


def test_calls_share_one_kept_alive_connection(qdrant_server: EmbeddedQdrant, monkeypatch) -> None:  # noqa: F811
    opened = []
    real = socket.create_connection
    here = threading.current_thread()  # not qdrant-client's version check, which runs on a thread of its own

    def connect(*args, **kwargs):
        if threading.current_thread() is here:
            opened.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", connect)
    handle = CollectionHandle(qdrant_server.url, "c", lambda client, name: create_collection(client))
    for i in range(3):  # the worker's calls for a batch of notes: upsert the points, then delete the stale ones
        handle.upsert([make_point(i + 1, [1.0, float(i), 0.5, 0.0], {"tenant_id": "t1"})])
        handle.delete(models.Filter(must=[models.HasIdCondition(has_id=[i + 1])]))
    assert handle.call(lambda client, name: client.count(name, exact=True).count) == 0
    assert len(opened) == 1, f"one connection for creating the collection and seven calls, not {len(opened)}"
