"""Helpers for tests that drive the notes API of an isolated ServiceSet over HTTP."""

from __future__ import annotations

import time

import psycopg
import requests

from tests.conftest import CHAT_PATH, RERANK_PATH


def headers(agent: str = "a1", tenant: str = "t1", project: str = "p1") -> dict[str, str]:
    return {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": project, "X-ELF-Agent-Id": agent}


def note(text: str, **kw) -> dict:
    return {"type": kw.pop("type", "fact"), "text": text, "importance": kw.pop("importance", 0.5),
            "confidence": kw.pop("confidence", 0.9), **kw}


def ingest(s, notes: list[dict], *, scope: str = "agent_private", agent: str = "a1", **hdr) -> requests.Response:
    return requests.post(s.public + "/v2/notes/ingest", json={"scope": scope, "notes": notes},
                         headers=headers(agent, **hdr), timeout=60)


def rows(s, query: str, params=()) -> list[tuple]:
    with psycopg.connect(s.cfg.storage.postgres.dsn) as conn:
        return conn.execute(query, params).fetchall()


def wait_indexed(s, note_id: str, timeout: float = 30) -> None:
    """Until the note has a pooled vector and no pending outbox work."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pooled = rows(s, "SELECT 1 FROM note_embeddings WHERE note_id = %s", (note_id,))
        pending = rows(s, "SELECT 1 FROM indexing_outbox WHERE note_id = %s AND status <> 'DONE'", (note_id,))
        if pooled and not pending:
            return
        time.sleep(0.2)
    raise AssertionError(
        f"note {note_id} not indexed within {timeout}s: "
        f"{rows(s, 'SELECT status, last_error FROM indexing_outbox WHERE note_id = %s', (note_id,))}"
    )


def llm_calls(s) -> int:
    """Calls to the extractor (chat) and rerank endpoints: add_note must never make any."""
    return len(s.fake.requests_to(CHAT_PATH)) + len(s.fake.requests_to(RERANK_PATH))
