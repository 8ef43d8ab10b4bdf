"""New notes of an add_note request written together: one statement for their rows and their chunks.

A note the resolver ADDs with nothing else to write now (no structured fields) waits here instead of being
inserted on its own (the last flush also inserts the request's version, outbox and decision rows); the request's notes
after it resolve against it through ``RequestLookups`` (in
Python), not through the database. Everything that reads or writes the database on behalf of the request's
notes flushes the pending ones first, in input order: a per-note resolver query, an UPDATE or NONE of an
existing note, a note with structured fields, and the end of the request. So every statement sees the
request's notes written so far, as when each note was inserted on its own. The note-write hooks of a
pending note run at its flush, in input order, after its row exists and before any later note's hook.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Model

from elf_domain.chunking import Chunk

from ...indexing.chunks import new_single_chunks_cte
from ...models import MemoryNote
from .insert_rows_together import insert_together
from .note_write_hooks import NoteWritten, run_note_write_hooks


@dataclass(frozen=True)
class _Pending:
    note: MemoryNote
    chunk: Chunk | None  # the note's only chunk, when its vector is stored with it
    vector: list[float] | None
    event: NoteWritten
    warnings: list[str]  # the note's result's warnings: the hooks' are added at the flush


class PendingNotes:
    def __init__(self, embedding_version: str):
        self.version = embedding_version
        self._pending: list[_Pending] = []

    def add(self, note: MemoryNote, chunk: Chunk | None, vector, event: NoteWritten, warnings: list[str]) -> None:
        """Hold an unsaved new note (with its single chunk and vector, or None) until the next flush."""
        self._pending.append(_Pending(note, chunk, vector, event, warnings))

    def flush(self, *, also: list[tuple[type[Model], list[Model]]] = ()) -> None:
        """Insert the pending notes, the rows ``also`` holds and the notes' chunk rows and vectors (one
        statement), then run the notes' hooks."""
        pending, self._pending = self._pending, []
        chunks = new_single_chunks_cte(
            self.version, [(p.note.note_id, p.chunk, p.vector) for p in pending if p.chunk is not None]
        )
        insert_together([(MemoryNote, [p.note for p in pending]), *also], also=chunks)
        for p in pending:
            p.warnings.extend(run_note_write_hooks(p.event))
