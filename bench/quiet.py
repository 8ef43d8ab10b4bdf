"""Waiting for a running ELF to finish its background work, and saying how much a measured run left of it.

A level of elf-bench concurrency measures requests; what its writes and searches leave behind (indexing and
trace outbox rows, a Qdrant optimization they trigger) is done at a lower priority later. Without a wait, the
next level would pay for the last one's leftovers (measured here: three 32-agent runs back to back fell from
115 to 92 to 79 requests/s). So a level starts once the service is quiet, and reports what it left behind.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import psycopg
import requests
from qdrant_client import QdrantClient, models

from elf_config import ElfConfig

_DUE = ("SELECT (SELECT count(*) FROM indexing_outbox WHERE status = 'PENDING'), "
        "(SELECT count(*) FROM search_trace_outbox WHERE status = 'PENDING')")


_MEANING = {"yellow": " (optimizing)", "grey": " (an optimization is due once writes pause)"}


@dataclass(frozen=True)
class Backlog:
    indexing: int  # indexing outbox rows not done (FAILED rows wait for their retry and are not counted)
    traces: int  # trace outbox rows not persisted yet
    status: str  # the notes collection's: green, yellow (optimizing), grey (an optimization is due)

    @property
    def quiet(self) -> bool:
        return not (self.indexing or self.traces) and self.status == "green"

    def describe(self) -> str:
        return (f"{self.indexing} indexing and {self.traces} trace outbox rows pending, "
                f"Qdrant collection {self.status}{_MEANING.get(self.status, '')}")


def backlog(cfg: ElfConfig) -> Backlog:
    with psycopg.connect(cfg.storage.postgres.dsn, autocommit=True) as conn:
        indexing, traces = conn.execute(_DUE).fetchone()
    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=30)
    try:
        status = client.get_collection(cfg.storage.qdrant.collection).status
    finally:
        client.close()
    return Backlog(indexing, traces, models.CollectionStatus(status).value)


def wait_quiet(cfg: ElfConfig, timeout_s: float = 600.0) -> tuple[float, Backlog]:
    """Poll until nothing is pending (or ``timeout_s``); returns the seconds waited and the last backlog."""
    started = time.monotonic()
    while not (b := backlog(cfg)).quiet and time.monotonic() - started < timeout_s:
        time.sleep(0.5)
    return time.monotonic() - started, b


def idf_pending(cfg: ElfConfig) -> int | None:
    """How many BM25 corpora the embedded Qdrant server is building or about to build for the notes collection
    (its GET /collections/{name}/idf_corpora, elf_infra/qdrant_server/term_stats.py); None from a server without
    that endpoint (a real Qdrant, which keeps no such counts)."""
    url = f"{cfg.storage.qdrant.url.rstrip('/')}/collections/{cfg.storage.qdrant.collection}/idf_corpora"
    r = requests.get(url, timeout=30)
    if r.status_code == 404:
        return None
    r.raise_for_status()
    result = r.json()["result"]
    return len(result["building"]) + len(result["wanted"])


def wait_idf_built(cfg: ElfConfig, timeout_s: float = 600.0) -> float | None:
    """After a project's first query: poll until the server has built the BM25 counts that query asked for (at a
    million notes, seconds during which the project's queries are slower); the seconds waited, None when the server
    keeps no counts."""
    started = time.monotonic()
    while (pending := idf_pending(cfg)) and time.monotonic() - started < timeout_s:
        time.sleep(0.1)
    return None if pending is None else time.monotonic() - started
