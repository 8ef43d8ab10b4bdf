"""The notes' part of a tenant export (manage.py export_tenant / import_tenant; the mechanics are in
elf_kernel.portability): notes with their versions, structured fields, hits and ingest decisions, grants,
ingestion profiles and defaults; with vectors, the chunks and their vectors too. After an import every active
note gets an indexing outbox row (one set-based insert): the worker reuses an imported vector whose chunk
text and embedding version match (no provider call) and embeds only what has none."""

from __future__ import annotations

import logging

from elf_domain.vocabulary import OutboxOp, OutboxStatus
from elf_kernel.portability import SQL_UUID7, Row, TableSpec, dispatch_after_commit, enqueue_imported, owned_by_tenant

from ..indexing.outbox import PROCESS_TASK, ROWS_PER_TASK
from ..models import NoteStatus

log = logging.getLogger("elf.indexing")

NOTES = f"(SELECT n.note_id FROM memory_notes n WHERE {owned_by_tenant('n')})"


def _snapshots(row: Row, old: str, new: str) -> None:
    for column in ("prev_snapshot", "new_snapshot"):
        snapshot = row.get(column)
        if isinstance(snapshot, dict) and snapshot.get("tenant_id") == old:
            snapshot["tenant_id"] = new


TABLES = (
    TableSpec("memory_notes", owned_by_tenant()),
    # Version rows outlive a purged note, so their tenant is the snapshot's (every op writes new_snapshot;
    # idx_note_versions_tenant serves this); their project the snapshot's or the note's current one.
    TableSpec("memory_note_versions",
              "(t.new_snapshot ->> 'tenant_id') = %(tenant)s AND (%(project)s::text IS NULL "
              f"OR (t.new_snapshot ->> 'project_id') = %(project)s OR t.note_id IN {NOTES})", remap=_snapshots),
    TableSpec("memory_note_fields", f"t.note_id IN {NOTES}"),
    TableSpec("memory_hits", f"t.note_id IN {NOTES}"),
    TableSpec("memory_ingest_decisions", owned_by_tenant()),
    TableSpec("memory_space_grants", owned_by_tenant()),
    TableSpec("memory_ingestion_profiles", owned_by_tenant()),
    TableSpec("memory_ingestion_profile_defaults", owned_by_tenant()),
    TableSpec("memory_note_chunks", f"t.note_id IN {NOTES}", vectors=True),
    TableSpec("note_chunk_embeddings",
              f"t.chunk_id IN (SELECT c.chunk_id FROM memory_note_chunks c WHERE c.note_id IN {NOTES})", vectors=True),
    TableSpec("note_embeddings", f"t.note_id IN {NOTES}", vectors=True),
)


def reindex_imported(*, tenant_id: str, project_id: str | None, embedding_version: str,
                     only_without_vectors: bool = False) -> int:
    """Queue an UPSERT for every active note of the imported tenant (in the import's transaction): one
    INSERT ... SELECT, then once the import commits one task per ROWS_PER_TASK rows. ``only_without_vectors``:
    only the notes with a chunk that has no vector of ``embedding_version`` (or no chunk at all); the caller
    indexes the others from their vectors itself."""
    missing = ("" if not only_without_vectors else
               " AND (NOT EXISTS (SELECT 1 FROM memory_note_chunks c WHERE c.note_id = n.note_id) "
               "OR EXISTS (SELECT 1 FROM memory_note_chunks c WHERE c.note_id = n.note_id AND NOT EXISTS "
               "(SELECT 1 FROM note_chunk_embeddings e WHERE e.chunk_id = c.chunk_id "
               "AND e.embedding_version = %(version)s)))")
    ids = enqueue_imported(
        f"INSERT INTO indexing_outbox (outbox_id, note_id, op, embedding_version, status) "
        f"SELECT {SQL_UUID7}, n.note_id, %(op)s, %(version)s, %(status)s FROM memory_notes n "
        f"WHERE {owned_by_tenant('n')} AND n.status = %(active)s{missing} ORDER BY n.note_id RETURNING outbox_id",
        {"tenant": tenant_id, "project": project_id, "op": OutboxOp.UPSERT.value, "version": embedding_version,
         "status": OutboxStatus.PENDING.value, "active": NoteStatus.ACTIVE.value},
    )
    dispatch_after_commit(PROCESS_TASK, ids, every=ROWS_PER_TASK, log=log)
    return len(ids)
