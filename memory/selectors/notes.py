"""What the note reads answer, through the one read rule (``memory.selectors.readable_notes``): one readable note, a
page of them, their structured fields, and the note object every route shows (GET /v2/notes and
/v2/notes/{note_id}, a search session's notes, and the deprecated v1 list and search)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q

from elf_kernel.api.pagination import decode_cursor, encode_cursor
from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from ..models import FieldKind, MemoryNote, MemoryNoteField
from . import list_notes, readable_notes


def fields_of(note_ids: Iterable) -> dict:
    """{note_id: {"summary": str|None, "facts": [...], "concepts": [...]}} for the given notes."""
    out: dict = {}
    for f in MemoryNoteField.objects.filter(note_id__in=list(note_ids)).order_by("field_kind", "item_index"):
        entry = out.setdefault(f.note_id, {"summary": None, "facts": [], "concepts": []})
        if f.field_kind == FieldKind.SUMMARY:
            entry["summary"] = f.text
        else:
            entry["facts" if f.field_kind == FieldKind.FACT else "concepts"].append(f.text)
    return out


def note_to_dict(note: MemoryNote, structured: dict | None) -> dict:
    """The note object of the API (NoteOut), with its structured fields (``fields_of``) or None."""
    return {
        "note_id": str(note.note_id), "tenant_id": note.tenant_id, "project_id": note.project_id,
        "agent_id": note.agent_id, "scope": note.scope, "type": note.type, "key": note.key, "text": note.text,
        "importance": note.importance, "confidence": note.confidence, "status": note.status,
        "created_at": note.created_at.isoformat(), "updated_at": note.updated_at.isoformat(),
        "expires_at": note.expires_at.isoformat() if note.expires_at else None,
        "embedding_version": note.embedding_version, "source_ref": note.source_ref, "context": note.context,
        "observed_at": note.observed_at.isoformat() if note.observed_at else None,
        "hit_count": note.hit_count,
        "last_hit_at": note.last_hit_at.isoformat() if note.last_hit_at else None, "structured": structured,
    }


def readable_note(ctx: RequestContext, note_id) -> dict:
    """One note ``ctx`` may read, as the API shows it; 404 NOT_FOUND otherwise."""
    note = readable_notes(ctx).filter(note_id=note_id).first()
    if note is None:
        raise NotFound("Note not found.", ["$.note_id"])
    return note_to_dict(note, fields_of([note.note_id]).get(note.note_id))


def notes_page(ctx: RequestContext, *, scope: str | None, status: str, note_type: str | None, limit: int,
               cursor: str | None) -> dict:
    """One page of the notes ``ctx`` may read, newest first (``list_notes``: an omitted scope excludes
    agent_private), after ``cursor``; the page's body (notes, next_cursor). Shared by GET /v2/notes and the
    deprecated GET /v1/memory/list."""
    qs = list_notes(ctx, scope=scope, status=status, note_type=note_type)
    if cursor:
        updated, note_id = decode_cursor(cursor)
        qs = qs.filter(Q(updated_at__lt=updated) | Q(updated_at=updated, note_id__lt=note_id))
    page = list(qs[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    structured = fields_of(n.note_id for n in page)
    return {
        "notes": [note_to_dict(n, structured.get(n.note_id)) for n in page],
        "next_cursor": encode_cursor(page[-1].updated_at, page[-1].note_id) if more else None,
    }
