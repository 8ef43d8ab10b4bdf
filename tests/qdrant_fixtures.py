"""Fixtures that run the embedded Qdrant server (`python -m elf_infra.qdrant_server`) as a subprocess.

Import explicitly in a test module: `from tests.qdrant_fixtures import qdrant_server  # noqa: F401`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient, models

from elf_infra.qdrant_server.launcher import EmbeddedQdrant


def client_for(server: EmbeddedQdrant, timeout: int = 30) -> QdrantClient:
    """A REST qdrant-client for the server. Its background version check is off: it may run after a short
    test has already stopped the server (the check itself has its own test)."""
    return QdrantClient(url=server.url, prefer_grpc=False, timeout=timeout, check_compatibility=False)


def run_server(tmp_path: Path, *extra_args: str) -> EmbeddedQdrant:
    """Start a server on `tmp_path/qdrant`, logging to `tmp_path/qdrant.log`."""
    server = EmbeddedQdrant(tmp_path / "qdrant", tmp_path / "qdrant.log", extra_args)
    server.start()
    return server


@pytest.fixture
def qdrant_server(tmp_path: Path) -> Iterator[EmbeddedQdrant]:
    """A running embedded Qdrant server on a temporary data directory; stopped after the test."""
    server = run_server(tmp_path)
    try:
        yield server
    finally:
        server.stop()


DIM = 4


def create_collection(client: QdrantClient, name: str = "c", **kwargs: object) -> None:
    """A collection shaped like the notes index: `dense` (cosine, DIM) and `bm25` (IDF)."""
    client.create_collection(
        name,
        vectors_config={"dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE)},
        sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)},
        **kwargs,
    )


def make_point(
    pid: int | str, dense: list[float], payload: dict, sparse: tuple[list[int], list[float]] | None = None
) -> models.PointStruct:
    vector: dict = {"dense": dense}
    if sparse:
        vector["bm25"] = models.SparseVector(indices=sparse[0], values=sparse[1])
    return models.PointStruct(id=pid, vector=vector, payload=payload)


def load_hybrid_fixture(client: QdrantClient) -> None:
    # Within tenant t1, dense order is A, B, C, E and sparse order is B, C, E (A has no sparse match).
    # D (tenant t2) matches both best and must be filtered out of both prefetches.
    create_collection(client)
    client.create_payload_index("c", "tenant", models.PayloadSchemaType.KEYWORD)
    client.upsert(
        "c",
        points=[
            make_point(1, [1.0, 0.05, 0, 0], {"name": "A", "tenant": "t1"}, ([9], [1.0])),
            make_point(2, [1.0, 0.3, 0, 0], {"name": "B", "tenant": "t1"}, ([1, 2], [3.0, 3.0])),
            make_point(3, [1.0, 0.6, 0, 0], {"name": "C", "tenant": "t1"}, ([1, 2], [1.0, 1.0])),
            make_point(4, [1.0, 0.0, 0, 0], {"name": "D", "tenant": "t2"}, ([1, 2], [5.0, 5.0])),
            make_point(5, [0.0, 0.0, 1, 0], {"name": "E", "tenant": "t1"}, ([1], [0.5])),
        ],
    )


def raw_request(url: str, method: str, path: str, body: object) -> tuple[int, dict]:
    """A request qdrant-client would not send as given (a raw body, a refused config, an endpoint of the embedded
    server's own): status and JSON body. A body of None sends none."""
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)
