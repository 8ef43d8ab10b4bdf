"""add_note (spec v2 sections 8.1, 8.3, 9-11), deterministic: never calls an LLM. Its steps, in order:

- ``accept_request``: the entry point every route calls: write_policy, then the English gate, then ``ingest``;
- ``ingest``: the WriteGate, then one transaction for the request's notes, note by note in input order;
- ``embed_before_writing``: chunking and the one embedding call, before the transaction;
- ``resolver_reads`` and ``resolver_reads_batched``: what the UpdateResolver reads (one note; a request's
  key-less notes in one statement);
- ``resolve_and_write``: one note's resolution, policy stage and writes;
- ``structured_fields``: its structured summary, facts and concepts;
- ``note_write_hooks``: the extension point other apps act through in the note's transaction (graph facts);
- ``write_new_notes_together`` and ``insert_rows_together``: new notes and the request's audit rows in one
  statement;
- ``decision_rows``: one ingest decision row per note.

add_event (``memory.services.events``) ingests its extractor's candidates through ``ingest_notes`` too.
"""

from .accept_request import add_note
from .ingest import ingest_notes, reject_note
from .note_input import NoteInput, NoteResult

__all__ = ["NoteInput", "NoteResult", "add_note", "ingest_notes", "reject_note"]
