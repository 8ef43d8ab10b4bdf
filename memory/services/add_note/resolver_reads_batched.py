"""The UpdateResolver reads of a whole request (spec v2 section 9): one statement for all its key-less notes.

``resolver_reads.lookup`` reads the group of one note in one statement; a batch of 50 key-less notes made
50 of them, each scanning its group's pooled vectors again. ``RequestLookups`` reads, right after the
request's group locks and before its first note, every key-less note's answer against the groups as they
were before the request (the first note with the identical text, the nearest pooled vector), in one
statement that reads each group's vectors once. The request's own writes are then applied in Python, note
by note, so each note still sees the ones before it, exactly as a query per note would:
- a note written by the request (ADD or UPDATE) is a candidate with its current text, and with its vector
  when that vector was stored with it (the pooled vector the per-note query would read);
- an answer that names a note the request has changed since (its text, or its stored vector) is not reused:
  that note falls back to the per-note query, which reads the transaction's current state.
Keyed notes are resolved by their key with the per-note query, as before. A request with a single key-less
note uses the per-note query directly (the batched statement is slower for one).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db import connection
from django.utils import timezone

from elf_config import ElfConfig
from elf_kernel.context import RequestContext

from ...domain import update_resolver
from ...indexing.chunks import vector_text
from ...models import NoteStatus
from .resolver_reads import group_where, lookup

_BATCH = f"""
WITH q AS MATERIALIZED (
  SELECT q.idx, q.type, q.text, q.vec::vector AS vec
    FROM unnest(%(idx)s::int[], %(types)s::text[], %(texts)s::text[], %(vecs)s::text[]) AS q(idx, type, text, vec)
), grp AS MATERIALIZED (
  SELECT n.note_id, n.type, n.text FROM memory_notes n WHERE {group_where("n.type = ANY(%(types)s::text[])")}
), vecs AS MATERIALIZED (
  SELECT g.note_id, g.type, e.vec FROM grp g
    JOIN note_embeddings e ON e.note_id = g.note_id AND e.embedding_version = %(version)s
)
SELECT q.idx,
       (SELECT g.note_id FROM grp g WHERE g.type = q.type AND g.text = q.text ORDER BY g.note_id LIMIT 1),
       best.note_id, best.distance
  FROM q
  LEFT JOIN LATERAL (SELECT v.note_id, v.vec <=> q.vec AS distance FROM vecs v WHERE v.type = q.type
                      ORDER BY distance LIMIT 1) AS best ON true
"""


@dataclass(frozen=True)
class _Before:
    """A key-less note's answer against its group as it was before the request."""

    exact_id: uuid.UUID | None
    best_id: uuid.UUID | None
    best_similarity: float | None


@dataclass
class _Written:
    """A note of the group as the request left it so far."""

    text: str
    expires_at: datetime | None
    vector: np.ndarray | None  # unit-scaled pooled vector when stored with the note, else None


class RequestLookups:
    """The resolutions of one request's notes, in input order (see the module docstring)."""

    def __init__(self, cfg: ElfConfig, ctx: RequestContext, scope: str, notes: dict[int, object],
                 vectors: dict[int, list[float]], before_query: Callable[[], None] = lambda: None):
        """``notes``: the request's notes to resolve by index; ``vectors``: the key-less ones' vectors;
        ``before_query`` runs before a per-note query (it writes the request's pending notes)."""
        self.cfg, self.ctx, self.scope, self._before_query = cfg, ctx, scope, before_query
        keyless = [i for i, n in notes.items() if not n.key]
        self._before = self._read(notes, vectors, keyless) if len(keyless) > 1 else {}
        self._written: dict[str, dict[uuid.UUID, _Written]] = {}  # by note type, then note_id
        self._changed: set[uuid.UUID] = set()  # notes of before the request whose text or vector changed

    def _read(self, notes, vectors, keyless: list[int]) -> dict[int, _Before]:
        ctx = self.ctx
        params = {"tenant": ctx.tenant_id, "project": ctx.project_id, "agent": ctx.agent_id, "scope": self.scope,
                  "active": NoteStatus.ACTIVE, "now": timezone.now(), "version": self.cfg.embedding_version,
                  "idx": keyless, "types": [notes[i].type for i in keyless], "texts": [notes[i].text for i in keyless],
                  "vecs": [vector_text(vectors[i]) for i in keyless]}
        with connection.cursor() as cur:
            cur.execute(_BATCH, params)
            return {idx: _Before(exact, best, None if best is None else 1.0 - float(distance))
                    for idx, exact, best, distance in cur.fetchall()}

    def resolve(self, index: int, note, vector) -> update_resolver.Resolution:
        """The resolution of the request's note ``index`` against its group as the request has left it."""
        before = self._before.get(index)
        if before is None or before.exact_id in self._changed or before.best_id in self._changed:
            self._before_query()
            return lookup(self.cfg, self.ctx, self.scope, note, None if note.key else vector)
        now = timezone.now()
        exact, best_id, best_sim = before.exact_id, before.best_id, before.best_similarity
        query = _unit(vector)
        for note_id, w in self._written.get(note.type, {}).items():
            if w.expires_at is not None and w.expires_at <= now:
                continue
            if w.text == note.text and (exact is None or note_id < exact):
                exact = note_id
            if w.vector is not None:
                sim = float(query @ w.vector)
                if best_sim is None or sim > best_sim:
                    best_id, best_sim = note_id, sim
        mcfg = self.cfg.memory
        return update_resolver.resolve(
            key_match_id=None, exact_text_id=exact, best_id=best_id, best_similarity=best_sim,
            dup_threshold=mcfg.dup_sim_threshold, update_threshold=mcfg.update_sim_threshold,
        )

    def wrote(self, note, *, added: bool, stored_vector) -> None:
        """Record that the request wrote ``note`` (a MemoryNote: added, or updated in place); ``stored_vector``
        is the pooled vector stored with it, or None when the worker computes it (the stored one is kept)."""
        group = self._written.setdefault(note.type, {})
        old = group.get(note.note_id)
        if stored_vector is not None:
            vec = _unit(stored_vector)
        elif old is not None:
            vec = old.vector
        else:
            vec = None
        if not added and old is None:
            self._changed.add(note.note_id)
            if stored_vector is None:
                # its old pooled vector stays the one a query reads: only the text changed, so a reused answer
                # naming it falls back to the per-note query.
                vec = None
        group[note.note_id] = _Written(note.text, note.expires_at, vec)


def _unit(vector) -> np.ndarray:
    """``vector`` scaled to length 1 (cosine similarity is then a dot product); a zero vector stays zero."""
    vec = np.asarray(vector, dtype=np.float64)
    norm = np.linalg.norm(vec)
    return vec / norm if norm > 0 else vec
