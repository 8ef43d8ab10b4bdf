"""Fixtures that run the embedded Qdrant server (`python -m elf_infra.qdrant_server`) as a subprocess.

Import explicitly in a test module: `from tests.qdrant_fixtures import qdrant_server  # noqa: F401`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

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
