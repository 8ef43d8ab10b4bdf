"""Publishing notes to shared spaces (spec v2 section 15, supplement section 7); the grants are space_grants'.

A space is (tenant, home project, scope, owner agent). Publishing moves one of the owner's notes into a space and
makes sure the space's project grant exists; unpublishing returns the note to the owner's agent_private scope in
the caller's project. The grant is not revoked then: it covers the owner's other notes in that space. ``publish``
and ``unpublish`` are the routes' entry points: they take the space by its public name.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from elf_config import ElfConfig
from elf_domain.spaces import AGENT_PRIVATE, SCOPE_SPACES, home_project, scope_of_space, scope_writable
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError, InvalidRequest, ScopeDenied

from ..indexing.outbox import enqueue
from ..models import GranteeKind, MemoryNote, NoteStatus, OutboxOp, VersionOp
from .note_changes import NoteNotActive, owned_for_update
from .space_grants import grant
from .versions import note_snapshot, record_version


class NoteKeyConflict(ElfError):
    status, error_code = 409, "NOTE_KEY_CONFLICT"


def _check_writable(cfg: ElfConfig, scope: str) -> None:
    if not scope_writable(scope, cfg.scopes.allowed, cfg.scopes.write_allowed):
        raise ScopeDenied(f"Scope {scope} is not allowed for writes by this service's configuration.", ["$.space"])


def _move(cfg: ElfConfig, ctx: RequestContext, note: MemoryNote, scope: str, project_id: str, reason: str) -> None:
    """Move the note to (scope, project), with a version row and an outbox upsert so the index follows."""
    if note.key:
        clash = MemoryNote.objects.filter(
            tenant_id=note.tenant_id, project_id=project_id, agent_id=note.agent_id, scope=scope, type=note.type,
            key=note.key, status=NoteStatus.ACTIVE,
        ).exclude(note_id=note.note_id)
        if clash.exists():
            raise NoteKeyConflict(
                f"You already have an active {note.type} note with key {note.key!r} in {scope}; "
                "update or delete it first.", ["$.note_id"],
            )
    prev = note_snapshot(note)
    note.scope, note.project_id, note.updated_at = scope, project_id, timezone.now()
    note.save(update_fields=["scope", "project_id", "updated_at"])
    # The version op CHECK has ADD/UPDATE/DEPRECATE/DELETE only: a publish is an UPDATE whose reason says so.
    record_version(note_id=note.note_id, op=VersionOp.UPDATE, prev=prev, new=note_snapshot(note), reason=reason,
                   actor=f"agent:{ctx.agent_id}")
    enqueue(note_id=note.note_id, op=OutboxOp.UPSERT, embedding_version=cfg.embedding_version)


@transaction.atomic
def publish(*, cfg: ElfConfig, ctx: RequestContext, note_id, space: str) -> MemoryNote:
    """Move one of the caller's active notes into ``space`` (team_shared or org_shared) and ensure the space's
    project grant."""
    scope = scope_of_space(space)
    _check_writable(cfg, scope)
    note = owned_for_update(ctx, note_id)
    if note.status != NoteStatus.ACTIVE:
        raise NoteNotActive(f"Note is {note.status}; only active notes can be published.", ["$.note_id"])
    target_project = home_project(ctx.project_id, scope)
    if (note.scope, note.project_id) != (scope, target_project):
        _move(cfg, ctx, note, scope, target_project, f"publish:{SCOPE_SPACES[scope]}")
    grant(ctx, scope, GranteeKind.PROJECT, None)
    return note


@transaction.atomic
def unpublish(*, cfg: ElfConfig, ctx: RequestContext, note_id, space: str) -> MemoryNote:
    """Return one of the caller's notes from ``space`` to agent_private in the caller's project."""
    scope = scope_of_space(space)
    note = owned_for_update(ctx, note_id)
    if note.scope != scope:
        raise InvalidRequest(f"The note is in {note.scope}, not in {SCOPE_SPACES[scope]}.", ["$.space"])
    if note.status != NoteStatus.ACTIVE:
        raise NoteNotActive(f"Note is {note.status}; only active notes can be unpublished.", ["$.note_id"])
    _move(cfg, ctx, note, AGENT_PRIVATE, ctx.project_id, f"unpublish:{SCOPE_SPACES[scope]}")
    return note
