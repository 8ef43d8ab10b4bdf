"""PATCH and DELETE of one note (spec v2 section 15; update rules of v1 section 15).

Only the owner changes a note. Every change writes a version row and an outbox row in its transaction.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from elf_config import ElfConfig
from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError, InvalidRequest, NotFound, ScopeDenied

from ..domain import ttl, write_gate
from ..indexing.outbox import enqueue
from ..models import MemoryNote, NoteOp, NoteStatus, OutboxOp, VersionOp
from ..selectors import owned_notes, readable_notes
from .versions import note_snapshot, record_version

UNSET = object()


class NoteNotActive(ElfError):
    status, error_code = 409, "NOTE_NOT_ACTIVE"


def owned_for_update(ctx: RequestContext, note_id) -> MemoryNote:
    note = owned_notes(ctx).select_for_update().filter(note_id=note_id).first()
    if note is not None:
        return note
    if readable_notes(ctx).filter(note_id=note_id).exists():
        raise ScopeDenied("Only the note's owner may change it.", ["$.note_id"])
    raise NotFound("Note not found.", ["$.note_id"])


PATCHABLE = ("text", "importance", "confidence", "ttl_days")


def patch_note(*, cfg: ElfConfig, ctx: RequestContext, note_id, text=UNSET, importance=UNSET, confidence=UNSET,
               ttl_days=UNSET, actor: str | None = None) -> dict:
    """Change an owned note, the entry point every route calls (PATCH /v2/notes/{note_id}, the deprecated
    POST /v1/memory/update, and elf-mcp's tools through them): a given text meets the English gate, then the
    given fields (``PATCHABLE``; an omitted one is UNSET and stays) are applied. ttl_days omitted keeps
    expires_at; <= 0 applies the type's default TTL."""
    if text is not UNSET:
        require_english([("$.text", text, NATURAL)])
    return _patch(cfg=cfg, ctx=ctx, note_id=note_id, text=text, importance=importance, confidence=confidence,
                  ttl_days=ttl_days, actor=actor)


@transaction.atomic
def _patch(*, cfg: ElfConfig, ctx: RequestContext, note_id, text, importance, confidence, ttl_days,
           actor: str | None) -> dict:
    note = owned_for_update(ctx, note_id)
    if note.status != NoteStatus.ACTIVE:
        raise NoteNotActive(f"Note is {note.status}; only active notes can be changed.", ["$.note_id"])
    if text is not UNSET:
        verdict = write_gate.evaluate_note(
            text=text, note_type=note.type, scope=note.scope, key=note.key, max_note_chars=cfg.memory.max_note_chars,
            allowed_types=(note.type,), allowed_scopes=(note.scope,), write_allowed={note.scope: True},
        )
        if verdict is not None:
            return {"note_id": str(note.note_id), "op": NoteOp.REJECTED, "reason_code": verdict.reason_code,
                    "field_path": f"$.{verdict.field}" if verdict.field else "$"}
    now = timezone.now()
    changes = {}
    if text is not UNSET and text != note.text:
        changes["text"] = text
    for name, value in (("importance", importance), ("confidence", confidence)):
        if value is not UNSET and value != getattr(note, name):
            changes[name] = value
    if ttl_days is not UNSET:
        request_ttl = ttl_days if ttl_days is not None and ttl_days > 0 else None
        expires = ttl.expires_at(now=now, note_type=note.type, request_ttl_days=request_ttl,
                                 ttl_days_by_type=cfg.lifecycle.ttl_days)
        if expires != note.expires_at:  # a ttl restarts from now, so resending one extends the note
            changes["expires_at"] = expires
    if not changes:
        return {"note_id": str(note.note_id), "op": NoteOp.NONE, "reason_code": None}
    prev = note_snapshot(note)
    for name, value in changes.items():
        setattr(note, name, value)
    note.updated_at = now
    note.save(update_fields=[*changes, "updated_at"])
    record_version(note_id=note.note_id, op=VersionOp.UPDATE, prev=prev, new=note_snapshot(note),
                   reason="patch:" + ",".join(sorted(changes)), actor=actor or f"agent:{ctx.agent_id}")
    enqueue(note_id=note.note_id, op=OutboxOp.UPSERT, embedding_version=cfg.embedding_version)
    return {"note_id": str(note.note_id), "op": NoteOp.UPDATE, "reason_code": None}


@transaction.atomic
def delete_note(*, cfg: ElfConfig, ctx: RequestContext, note_id, actor: str | None = None) -> dict:
    """Soft delete: status deleted, a version row, an outbox DELETE. Deleting twice is a NONE."""
    note = owned_for_update(ctx, note_id)
    if note.status == NoteStatus.DELETED:
        return {"note_id": str(note.note_id), "op": NoteOp.NONE}
    prev = note_snapshot(note)
    note.status, note.updated_at = NoteStatus.DELETED, timezone.now()
    note.save(update_fields=["status", "updated_at"])
    record_version(note_id=note.note_id, op=VersionOp.DELETE, prev=prev, new=note_snapshot(note), reason="delete",
                   actor=actor or f"agent:{ctx.agent_id}")
    enqueue(note_id=note.note_id, op=OutboxOp.DELETE, embedding_version=cfg.embedding_version)
    return {"note_id": str(note.note_id), "op": NoteOp.DELETE}


@transaction.atomic
def deprecate_note(*, cfg: ElfConfig, ctx: RequestContext, note_id, superseded_by=None,
                   actor: str | None = None) -> dict:
    """Mark an owned active note ``deprecated`` (still readable by id and in lists with status=deprecated, no
    longer searched): a DEPRECATE version row naming the superseding note when one is given, and an outbox
    DELETE for its points. Deprecating twice is a NONE; a deleted note is NOTE_NOT_ACTIVE. The lifecycle GC
    purges it once its last hit (or this change, if never hit) is older than purge_deprecated_after_days."""
    note = owned_for_update(ctx, note_id)
    if superseded_by is not None:
        if str(superseded_by) == str(note.note_id):
            raise InvalidRequest("A note cannot supersede itself.", ["$.superseded_by"])
        if not readable_notes(ctx).filter(note_id=superseded_by, status=NoteStatus.ACTIVE).exists():
            raise NotFound("The superseding note is not an active note you can read.", ["$.superseded_by"])
    if note.status == NoteStatus.DEPRECATED:
        return {"note_id": str(note.note_id), "op": NoteOp.NONE, "status": note.status}
    if note.status != NoteStatus.ACTIVE:
        raise NoteNotActive(f"Note is {note.status}; only active notes can be deprecated.", ["$.note_id"])
    prev = note_snapshot(note)
    note.status, note.updated_at = NoteStatus.DEPRECATED, timezone.now()
    note.save(update_fields=["status", "updated_at"])
    reason = f"superseded_by:{superseded_by}" if superseded_by is not None else "deprecate"
    record_version(note_id=note.note_id, op=VersionOp.DEPRECATE, prev=prev, new=note_snapshot(note), reason=reason,
                   actor=actor or f"agent:{ctx.agent_id}")
    enqueue(note_id=note.note_id, op=OutboxOp.DELETE, embedding_version=cfg.embedding_version)
    return {"note_id": str(note.note_id), "op": VersionOp.DEPRECATE, "status": note.status}
