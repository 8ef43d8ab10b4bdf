"""The public HTTP API as elf-eval uses it: add_note in batches, search, delete. Loopback targets only."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

import requests

from bench.server_timing import timings
from elf_domain.limits import MAX_NOTES_PER_REQUEST

_NOTE_INDEX = re.compile(r"^\$\.notes\[(\d+)\]\.?([a-z_]*)")


class RequestFailed(RuntimeError):
    """A request elf-eval cannot go on without failed (network error or an unexpected status)."""


@dataclass(frozen=True)
class NoteOutcome:
    """One add_note result: ``note_id`` is None unless ``op`` stored or matched a note."""

    op: str
    note_id: str | None
    reason_code: str | None


@dataclass(frozen=True)
class SearchOutcome:
    note_ids: list[str]
    client_ms: float
    server_ms: float | None


class ElfClient:
    def __init__(self, base_url: str, *, tenant: str, agent: str, timeout: float = 120.0):
        self.base, self.tenant, self.agent, self.timeout = base_url, tenant, agent, timeout
        self._local = threading.local()

    @property
    def http(self) -> requests.Session:
        """One keep-alive session per thread (cleanup deletes from a small thread pool)."""
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
        return self._local.session

    def _headers(self, project: str) -> dict[str, str]:
        return {"X-ELF-Tenant-Id": self.tenant, "X-ELF-Project-Id": project, "X-ELF-Agent-Id": self.agent}

    def _send(self, method: str, path: str, project: str, **kw) -> requests.Response:
        headers = {**self._headers(project), **kw.pop("headers", {})}
        try:
            return self.http.request(method, self.base + path, headers=headers, timeout=self.timeout, **kw)
        except requests.RequestException as exc:
            raise RequestFailed(f"{method} {path}: {exc}") from None

    @staticmethod
    def _fail(method: str, path: str, resp: requests.Response) -> RequestFailed:
        return RequestFailed(f"{method} {path} answered {resp.status_code}: {resp.text[:500]}")

    def ingest(self, project: str, notes: list[dict]) -> list[NoteOutcome]:
        """add_note for ``notes`` (at most MAX_NOTES_PER_REQUEST), results in input order.

        The English gate refuses a whole request (422 NON_ENGLISH_INPUT naming each failing field); a note
        refused for its text gets a REJECTED outcome with that code, one refused (or rejected by the WriteGate)
        for its context only is sent again without it, and the rest is sent again."""
        if len(notes) > MAX_NOTES_PER_REQUEST:
            raise ValueError(f"at most {MAX_NOTES_PER_REQUEST} notes per request")
        notes = list(notes)
        out: list[NoteOutcome | None] = [None] * len(notes)
        pending = list(range(len(notes)))
        while pending:
            body = {"scope": "agent_private", "notes": [notes[i] for i in pending]}
            resp = self._send("POST", "/v2/notes/ingest", project, json=body)
            if resp.status_code == 200:
                again = []
                for i, r in zip(pending, resp.json()["results"], strict=True):
                    if r["op"] == "REJECTED" and (r.get("field_path") or "").endswith(".context"):
                        notes[i] = _without_context(notes[i])
                        again.append(i)
                    else:
                        out[i] = NoteOutcome(op=r["op"], note_id=r.get("note_id"), reason_code=r.get("reason_code"))
                pending = again
                continue
            refused = self._refused_by_gate(resp, len(pending))
            if refused is None:
                raise self._fail("POST", "/v2/notes/ingest", resp)
            for j, fields in refused.items():
                if fields == {"context"}:
                    notes[pending[j]] = _without_context(notes[pending[j]])
                else:
                    out[pending[j]] = NoteOutcome(op="REJECTED", note_id=None, reason_code="NON_ENGLISH_INPUT")
            pending = [i for i in pending if out[i] is None]
        return [o for o in out if o is not None]

    @staticmethod
    def _refused_by_gate(resp: requests.Response, count: int) -> dict[int, set[str]] | None:
        """The refused notes of a 422 NON_ENGLISH_INPUT (index in the request -> its failing fields)."""
        if resp.status_code != 422:
            return None
        try:
            body = resp.json()
        except ValueError:
            return None
        if body.get("error_code") != "NON_ENGLISH_INPUT":
            return None
        found = [_NOTE_INDEX.match(f) for f in body.get("fields") or []]
        if not found or not all(found):
            return None  # a field outside the notes (e.g. $.scope): nothing to drop
        refused: dict[int, set[str]] = {}
        for m in found:
            refused.setdefault(int(m.group(1)), set()).add(m.group(2))
        return refused if all(i < count for i in refused) else None

    def search(self, project: str, query: str, *, mode: str, top_k: int, candidate_k: int | None,
               read_profile: str = "private_only") -> SearchOutcome:
        body: dict = {"query": query, "mode": mode, "top_k": top_k}
        if candidate_k is not None:
            body["candidate_k"] = candidate_k
        t0 = time.perf_counter()
        resp = self._send("POST", "/v2/searches", project, json=body, headers={"X-ELF-Read-Profile": read_profile})
        client_ms = (time.perf_counter() - t0) * 1000.0
        if resp.status_code != 200:
            raise self._fail("POST", "/v2/searches", resp)
        server = timings(resp.headers).get("search")
        return SearchOutcome(note_ids=[it["note_id"] for it in resp.json()["items"]], client_ms=client_ms,
                             server_ms=server)

    def delete(self, project: str, note_id: str) -> None:
        resp = self._send("DELETE", f"/v2/notes/{note_id}", project)
        if resp.status_code not in (200, 404):  # 404: already gone (a note can be deleted once)
            raise self._fail("DELETE", f"/v2/notes/{note_id}", resp)

    def health(self) -> None:
        try:
            resp = self.http.get(self.base + "/health", timeout=10)
        except requests.RequestException as exc:
            raise RequestFailed(f"GET /health at {self.base}: {exc}") from None
        if resp.status_code != 200:
            raise self._fail("GET", "/health", resp)


def _without_context(note: dict) -> dict:
    return {k: v for k, v in note.items() if k != "context"}
