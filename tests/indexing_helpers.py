"""Helpers for the indexing, rebuild and lifecycle tests: module-scoped isolated services, rows written with
SQL, waits, and Qdrant checks.

``module_services`` is ``isolated_services_module`` (tests/conftest.py): own database, Redis db, collection
and ports, a FakeProviderServer whose embeddings come from the local MiniLM, created once per module.
Import it into a test module: ``from tests.indexing_helpers import module_services  # noqa: F401``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np
import psycopg
import pytest
from qdrant_client import QdrantClient, models

from elf_infra.index.notes_collection import note_filter
from tests.conftest import (
    EMBED_PATH,
    REPO,
    ServiceSet,
)


@pytest.fixture(scope="module")
def module_services(isolated_services_module):
    """Factory ``module_services(name, mutate=None) -> ServiceSet``, torn down after the module."""
    return isolated_services_module


def apply_schema(s: ServiceSet) -> None:
    """The schema in the set's database without starting a process (workers and the API do it themselves)."""
    from elf_project import startup

    startup.apply_schema(s.cfg)


# --- rows -------------------------------------------------------------------------------------------------


def rows(s: ServiceSet, query: str, params: Any = ()) -> list[tuple]:
    with psycopg.connect(s.cfg.storage.postgres.dsn) as conn:
        return conn.execute(query, params).fetchall()


def execute(s: ServiceSet, query: str, params: Any = ()) -> None:
    with psycopg.connect(s.cfg.storage.postgres.dsn) as conn:
        conn.execute(query, params)


def insert_note(
    s: ServiceSet,
    text: str,
    *,
    status: str = "active",
    expires_at: str | None = None,
    updated_at: str = "now()",
    last_hit_at: str | None = None,
    tenant: str = "t1",
    project: str = "p1",
    agent: str = "a1",
    upsert: bool = True,
    dispatch: bool = True,
) -> uuid.UUID:
    """A note row (times are SQL expressions, e.g. ``now() - interval '40 days'``), plus a PENDING UPSERT
    outbox row (see ``enqueue``) unless ``upsert`` is False. Returns the note_id."""
    note_id = uuid.uuid4()
    execute(
        s,
        f"""
        INSERT INTO memory_notes (note_id, tenant_id, project_id, agent_id, scope, type, key, text, importance,
                                  confidence, status, updated_at, expires_at, embedding_version, source_ref,
                                  last_hit_at)
        VALUES (%s, %s, %s, %s, 'agent_private', 'fact', NULL, %s, 0.5, 0.5, %s, {updated_at},
                {expires_at or 'NULL'}, %s, '{{}}', {last_hit_at or 'NULL'})
        """,
        (note_id, tenant, project, agent, text, status, s.cfg.embedding_version),
    )
    if upsert:
        enqueue(s, note_id, "UPSERT", dispatch=dispatch)
    return note_id


def enqueue(
    s: ServiceSet, note_id: uuid.UUID, op: str, embedding_version: str | None = None, dispatch: bool = True
) -> uuid.UUID:
    """A PENDING outbox row, due now, and (like ``memory.indexing.outbox.enqueue`` on commit) its processing
    task unless ``dispatch`` is False, leaving the row to the worker's sweep."""
    outbox_id = uuid.uuid4()
    execute(
        s,
        "INSERT INTO indexing_outbox (outbox_id, note_id, op, embedding_version, status) "
        "VALUES (%s, %s, %s, %s, 'PENDING')",
        (outbox_id, note_id, op, embedding_version or s.cfg.embedding_version),
    )
    if dispatch:
        send_task(s, "memory.process_outbox_row", str(outbox_id))
    return outbox_id


def outbox(s: ServiceSet, outbox_id: uuid.UUID, table: str = "indexing_outbox") -> dict[str, Any]:
    (row,) = rows(s, f"SELECT status, attempts, last_error, available_at, updated_at, op FROM {table} "
                     "WHERE outbox_id = %s", (outbox_id,))
    return dict(zip(("status", "attempts", "last_error", "available_at", "updated_at", "op"), row, strict=False))


def chunk_ids(s: ServiceSet, note_id: uuid.UUID) -> list[uuid.UUID]:
    """The note's chunk ids in chunk_index order."""
    return [r[0] for r in rows(s, "SELECT chunk_id FROM memory_note_chunks WHERE note_id = %s ORDER BY chunk_index",
                               (note_id,))]


def parse_vector(text: str) -> np.ndarray:
    return np.array(json.loads(text), dtype=np.float64)


# --- waiting ----------------------------------------------------------------------------------------------


def wait_for(check: Callable[[], Any], timeout: float, what: str, interval: float = 0.2) -> Any:
    """Poll ``check`` until it returns something truthy; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def wait_done(
    s: ServiceSet, outbox_id: uuid.UUID, timeout: float = 30, after: datetime | None = None,
    table: str = "indexing_outbox",
) -> dict:
    """Until the row (of ``table``) is DONE (and, with ``after``, settled after that time)."""

    def check():
        row = outbox(s, outbox_id, table)
        return row if row["status"] == "DONE" and (after is None or row["updated_at"] > after) else None

    try:
        return wait_for(check, timeout, f"outbox {outbox_id} DONE")
    except AssertionError:
        raise AssertionError(f"outbox {outbox_id} not DONE within {timeout}s: {outbox(s, outbox_id, table)}") from None


def db_now(s: ServiceSet) -> datetime:
    return rows(s, "SELECT now()")[0][0]


# --- Qdrant and the broker --------------------------------------------------------------------------------


def qdrant(s: ServiceSet) -> QdrantClient:
    return QdrantClient(url=s.cfg.storage.qdrant.url, timeout=10)


def note_points(s: ServiceSet, note_id: uuid.UUID) -> list[models.Record]:
    client = qdrant(s)
    try:
        points, _ = client.scroll(s.cfg.storage.qdrant.collection, scroll_filter=note_filter(note_id), limit=1000,
                                  with_payload=True)
        return points
    finally:
        client.close()


def count_points(s: ServiceSet, note_id: uuid.UUID) -> int:
    client = qdrant(s)
    try:
        return client.count(s.cfg.storage.qdrant.collection, count_filter=note_filter(note_id), exact=True).count
    finally:
        client.close()


def embed_requests(s: ServiceSet) -> int:
    return len(s.fake.requests_to(EMBED_PATH))


def send_task(s: ServiceSet, name: str, *args: Any) -> None:
    """Send a task by name to the set's broker (its worker runs it)."""
    from celery import Celery

    app = Celery("elf-tests", broker=s.cfg.worker.broker_url)
    app.conf.update(task_serializer="json", accept_content=["json"])
    try:
        app.send_task(name, args=list(args))
    finally:
        app.close()


def run_django(s: ServiceSet, code: str) -> subprocess.Popen:
    """Start ``code`` in a new Python process bootstrapped with the set's config (Django set up)."""
    prelude = f"from elf_project.runtime import bootstrap\nbootstrap({str(s.config_path)!r})\n"
    return subprocess.Popen([sys.executable, "-c", prelude + code], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# --- documents (Doc Extension) ----------------------------------------------------------------------------

DOC_OUTBOX = "doc_indexing_outbox"


def _hex64(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def insert_doc(
    s: ServiceSet, parts: list[str], *, status: str = "active", tenant: str = "t1", project: str = "p1",
    agent: str = "a1",
) -> tuple[uuid.UUID, list[uuid.UUID]]:
    """A document whose content is ``"".join(parts)`` and one chunk per part (UTF-8 byte offsets), as the
    docs API writes them. Returns the doc_id and the chunk ids in chunk_index order."""
    doc_id, content = uuid.uuid4(), "".join(parts)
    execute(
        s,
        "INSERT INTO doc_documents (doc_id, tenant_id, project_id, agent_id, scope, title, content, content_hash, "
        "content_bytes, status) VALUES (%s, %s, %s, %s, 'agent_private', 'A test document', %s, %s, %s, %s)",
        (doc_id, tenant, project, agent, content, _hex64(content), len(content.encode()), status),
    )
    chunk_ids, start = [], 0
    for index, part in enumerate(parts):
        chunk_ids.append(insert_chunk(s, doc_id, index, start, part))
        start += len(part.encode())
    return doc_id, chunk_ids


def insert_chunk(s: ServiceSet, doc_id: uuid.UUID, index: int, start: int, text: str) -> uuid.UUID:
    chunk_id = uuid.uuid4()
    execute(
        s,
        "INSERT INTO doc_chunks (chunk_id, doc_id, chunk_index, start_offset, end_offset, chunk_text, chunk_hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (chunk_id, doc_id, index, start, start + len(text.encode()), text, _hex64(text)),
    )
    return chunk_id


def enqueue_doc(s: ServiceSet, doc_id: uuid.UUID, op: str, dispatch: bool = True) -> uuid.UUID:
    """A PENDING doc outbox row, due now, and (like ``docs_ext.indexing.outbox.enqueue`` on commit) its
    processing task unless ``dispatch`` is False, leaving the row to the worker's sweep."""
    outbox_id = uuid.uuid4()
    execute(
        s,
        "INSERT INTO doc_indexing_outbox (outbox_id, doc_id, op, embedding_version, status) "
        "VALUES (%s, %s, %s, %s, 'PENDING')",
        (outbox_id, doc_id, op, s.cfg.embedding_version),
    )
    if dispatch:
        send_task(s, "docs_ext.process_outbox_row", str(outbox_id))
    return outbox_id


def doc_points(s: ServiceSet, doc_id: uuid.UUID, with_vectors: bool = False) -> list[models.Record]:
    client = qdrant(s)
    try:
        flt = models.Filter(must=[models.FieldCondition(key="doc_id", match=models.MatchValue(value=str(doc_id)))])
        points, _ = client.scroll(s.cfg.storage.qdrant.docs_collection, scroll_filter=flt, limit=1000,
                                  with_payload=True, with_vectors=with_vectors)
        return sorted(points, key=lambda p: p.payload["chunk_index"])
    finally:
        client.close()
