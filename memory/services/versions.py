"""Append-only audit of note changes (memory_note_versions)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..models import MemoryNote, MemoryNoteVersion


def note_snapshot(note: MemoryNote) -> dict[str, Any]:
    """The note's authoritative fields as JSON (what a version row keeps before/after a change)."""
    return {
        "note_id": str(note.note_id),
        "tenant_id": note.tenant_id,
        "project_id": note.project_id,
        "agent_id": note.agent_id,
        "scope": note.scope,
        "type": note.type,
        "key": note.key,
        "text": note.text,
        "importance": note.importance,
        "confidence": note.confidence,
        "status": note.status,
        "updated_at": note.updated_at.isoformat() if note.updated_at else None,
        "expires_at": note.expires_at.isoformat() if note.expires_at else None,
        "embedding_version": note.embedding_version,
        "source_ref": note.source_ref,
        "context": note.context,
        "observed_at": note.observed_at.isoformat() if note.observed_at else None,
    }


def version_row(
    *, note_id, op: str, prev: dict | None, new: dict | None, reason: str, actor: str, ts: datetime | None = None
) -> MemoryNoteVersion:
    """One unsaved version row (for a bulk insert in the transaction that changes the note); ``ts`` defaults
    to the transaction's start."""
    at = {"ts": ts} if ts is not None else {}
    return MemoryNoteVersion(note_id=note_id, op=op, prev_snapshot=prev, new_snapshot=new, reason=reason, actor=actor,
                             **at)


def record_version(
    *, note_id, op: str, prev: dict | None, new: dict | None, reason: str, actor: str
) -> MemoryNoteVersion:
    """Write one version row; call inside the transaction that changes the note."""
    row = version_row(note_id=note_id, op=op, prev=prev, new=new, reason=reason, actor=actor)
    row.save(force_insert=True)
    return row
