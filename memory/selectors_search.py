"""Search re-validation through the one read rule (``selectors.readable_notes``), without building the rule's
queryset on every request: the rule's SQL is compiled once per scope list for a probe context whose values are
unique placeholders, and each call binds the caller's values in their place. The rule takes no branch on the
context's values (only its shape), so the compiled SQL is the rule's for every caller; a placeholder the rule
used in any other form than as-is fails the compilation (no silent widening)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import OuterRef, Subquery, signals
from django.db.models.base import ModelState
from django.db.models.expressions import RawSQL
from django.utils import timezone

from elf_kernel.context import RequestContext

from .models import FieldKind, MemoryNote, MemoryNoteChunk, MemoryNoteField, NoteStatus
from .selectors import not_expired, readable_notes

_PROBE = RequestContext(tenant_id="\x00tenant", project_id="\x00project", agent_id="\x00agent", read_profile=None)
_PROBE_NOW = datetime(1, 1, 1, 0, 0, 0, 424242, tzinfo=UTC)
_PROBE_CHUNKS = ["\x00chunks"]  # bound by identity: the recalled chunk ids, one array parameter
_NOTE_FIELDS = MemoryNote._meta.concrete_fields  # the note's primary key first
# What a search reads of a chunk (its position and text); its note comes with it, the rest stays deferred.
_CHUNK_FIELDS = ("chunk_id", "note_id", "chunk_index", "start_offset", "end_offset", "text")


@dataclass(frozen=True)
class NoteMark:
    """A per-note value another app asks the re-validation to bring along (no round trip of its own): the
    note instance gets ``name`` set to what ``expression()`` (an ORM expression over the chunk row, e.g. an
    ``Exists`` with ``OuterRef("note_id")``) gave for it."""

    name: str
    expression: Callable[[], Any]


@lru_cache(maxsize=32)
def _compiled(scopes: tuple[str, ...], marks: tuple[NoteMark, ...] = ()) -> tuple[str, tuple]:
    """SQL and parameter template of: every chunk of the active, unexpired notes the probe may read (under
    ``scopes``) that hold one of the recalled chunks, each with its note's columns and its note's structured
    summary (memory_note_fields, null when it has none)."""
    recalled = RawSQL("SELECT note_id FROM memory_note_chunks WHERE chunk_id = ANY(%s::uuid[])", (_PROBE_CHUNKS,))
    alive = not_expired(readable_notes(_PROBE, scopes=scopes).filter(status=NoteStatus.ACTIVE), now=_PROBE_NOW)
    alive = alive.filter(note_id__in=recalled).values("note_id")
    summary = MemoryNoteField.objects.filter(note_id=OuterRef("note_id"), field_kind=FieldKind.SUMMARY).values("text")
    extra = {"note_summary": Subquery(summary[:1]), **{f"note_mark_{m.name}": m.expression() for m in marks}}
    columns = [f"note__{f.attname}" for f in _NOTE_FIELDS] + list(_CHUNK_FIELDS) + list(extra)
    sql, params = (MemoryNoteChunk.objects.filter(note_id__in=alive).annotate(**extra)
                   .values_list(*columns).query.sql_with_params())
    placeholders = {_PROBE.tenant_id, _PROBE.project_id, _PROBE.agent_id, _PROBE_NOW}
    used = {p for p in params if isinstance(p, (str, datetime)) and p in placeholders}
    stray = [p for p in params if isinstance(p, str) and "\x00" in p and p not in placeholders]
    if used != placeholders or stray or sum(p is _PROBE_CHUNKS for p in params) != 1:
        raise RuntimeError("the read rule no longer compiles to a context-independent query")
    return sql, tuple(params)


def _bind(template: tuple, ctx: RequestContext, now: datetime, chunk_ids: list[str]) -> list:
    values = {_PROBE.tenant_id: ctx.tenant_id, _PROBE.project_id: ctx.project_id, _PROBE.agent_id: ctx.agent_id,
              _PROBE_NOW: now}
    return [[uuid.UUID(c) for c in chunk_ids] if p is _PROBE_CHUNKS
            else values.get(p, p) if isinstance(p, (str, datetime)) else p for p in template]


def revalidated_chunks(ctx: RequestContext, scopes, chunk_ids: list[str],
                       marks: tuple[NoteMark, ...] = ()) -> list[MemoryNoteChunk]:
    """Every chunk of the notes that hold one of ``chunk_ids`` and that the caller may read now (the read rule,
    active, not expired, under ``scopes``), each with its note loaded (one instance per note) and annotated
    with ``field_summary`` (its structured summary or None, what a search session lists) and each of
    ``marks``: one round trip."""
    if not chunk_ids:
        return []
    sql, template = _compiled(tuple(scopes), tuple(marks))
    conn = connections[DEFAULT_DB_ALIAS]  # the thread's connection, looked up once (not per row)
    with conn.prepared_cursor() as cur:  # the same text on every call: prepared, Postgres plans it once
        cur.execute(sql, _bind(template, ctx, timezone.now(), chunk_ids))
        rows = cur.fetchall()
    n, alias = len(_NOTE_FIELDS), conn.alias
    extra = n + len(_CHUNK_FIELDS)  # the note's summary, then its marks, after the note's and the chunk's columns
    decoders = [(i, f) for i, f in enumerate(_NOTE_FIELDS) if hasattr(f, "from_db_value")]
    notes: dict = {}
    chunks = []
    note_of, chunk_of = _loader(MemoryNote, _NOTE_ATTNAMES, alias), _loader(MemoryNoteChunk, _CHUNK_FIELDS, alias)
    for row in rows:
        note = notes.get(row[0])
        if note is None:
            values = list(row[:n])
            for i, f in decoders:
                values[i] = f.from_db_value(values[i], None, conn)
            note = notes[row[0]] = note_of(values)
            note.field_summary = row[extra]
            for i, mark in enumerate(marks, start=extra + 1):
                setattr(note, mark.name, row[i])
        chunk = chunk_of(row[n:extra])
        MemoryNoteChunk.note.field.set_cached_value(chunk, note)
        chunks.append(chunk)
    return chunks


_NOTE_ATTNAMES = tuple(f.attname for f in _NOTE_FIELDS)


def _loader(model, attnames: tuple[str, ...], alias: str) -> Callable[[Any], Any]:
    """Instances of ``model`` from rows of ``attnames`` (the other fields deferred: read on access), as
    ``Model.from_db`` makes them but without ``Model.__init__``'s work per field: a search loads about 120 of
    them, which took 1.1 ms of the 3.8 ms its re-validation took in-process. ``from_db`` itself when something
    listens to the model's ``pre_init`` / ``post_init`` (the instances must then be made the usual way)."""
    if signals.pre_init.has_listeners(model) or signals.post_init.has_listeners(model):
        return lambda values: model.from_db(alias, list(attnames), values)

    def load(values):
        obj = model.__new__(model)
        obj.__dict__.update(zip(attnames, values, strict=False))
        obj._state = ModelState()
        obj._state.adding, obj._state.db = False, alias
        return obj

    return load
