"""Scoped reads of notes. Every read path goes through ``readable_notes`` so tenant, project, agent, scope
and grant rules live in one place, never re-implemented per view."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from elf_project.context import RequestContext

from .models import GranteeKind, MemoryNote, MemorySpaceGrant, NoteStatus, Scope

SHARED_SCOPES = (Scope.PROJECT_SHARED, Scope.ORG_SHARED)


def active_grant_for(ctx: RequestContext) -> Exists:
    """An active grant from the note's owner, for the note's scope, covering the caller (project or agent)."""
    return Exists(
        MemorySpaceGrant.objects.filter(
            tenant_id=OuterRef("tenant_id"),
            project_id=OuterRef("project_id"),
            scope=OuterRef("scope"),
            space_owner_agent_id=OuterRef("agent_id"),
            revoked_at__isnull=True,
        ).filter(Q(grantee_kind=GranteeKind.PROJECT) | Q(grantee_kind=GranteeKind.AGENT, grantee_agent_id=ctx.agent_id))
    )


def readable_notes(ctx: RequestContext, *, scopes: tuple[str, ...] | list[str] | None = None) -> QuerySet[MemoryNote]:
    """Notes of the caller's tenant and project the caller may read: its own notes in any scope, and other
    agents' shared notes through an active grant. ``scopes`` narrows the scopes considered."""
    qs = MemoryNote.objects.filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id)
    if scopes is not None:
        qs = qs.filter(scope__in=list(scopes))
    return qs.filter(Q(agent_id=ctx.agent_id) | Q(scope__in=SHARED_SCOPES) & active_grant_for(ctx))


def owned_notes(ctx: RequestContext) -> QuerySet[MemoryNote]:
    """Notes the caller may change: its own."""
    return MemoryNote.objects.filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id)


def not_expired(qs: QuerySet[MemoryNote]) -> QuerySet[MemoryNote]:
    return qs.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))


def list_notes(
    ctx: RequestContext, *, scope: str | None, status: str, note_type: str | None
) -> QuerySet[MemoryNote]:
    """GET /v2/notes: an omitted scope excludes agent_private; agent_private is only ever the caller's."""
    scopes = [scope] if scope else [s for s in Scope.values if s != Scope.AGENT_PRIVATE]
    qs = readable_notes(ctx, scopes=scopes).filter(status=status)
    if status == NoteStatus.ACTIVE:
        qs = not_expired(qs)
    if note_type:
        qs = qs.filter(type=note_type)
    return qs.order_by("-updated_at", "-note_id")
