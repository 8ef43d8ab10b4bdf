"""Scoped reads of notes. Every read path goes through ``readable_notes`` so tenant, project, agent, scope
and grant rules live in one place, never re-implemented per view."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from elf_domain.spaces import ORG_PROJECT_ID
from elf_kernel.context import RequestContext

from ..models import GranteeKind, MemoryNote, MemorySpaceGrant, NoteStatus, Scope

SHARED_SCOPES = (Scope.PROJECT_SHARED, Scope.ORG_SHARED)


def space_grants(tenant_id, project_id, scope, owner_agent_id) -> QuerySet[MemorySpaceGrant]:
    """Every grant (active and revoked) of one space: (tenant, home project, scope, owner). The arguments may
    be values or expressions such as ``OuterRef``."""
    return MemorySpaceGrant.objects.filter(
        tenant_id=tenant_id, project_id=project_id, scope=scope, space_owner_agent_id=owner_agent_id
    )


def active_grant_for(ctx: RequestContext) -> Exists:
    """An active grant from the note's owner, for the note's scope and home project, covering the caller: a
    project grant covers every agent of the project (of the tenant, for the org space), an agent grant one
    agent id."""
    grants = space_grants(OuterRef("tenant_id"), OuterRef("project_id"), OuterRef("scope"), OuterRef("agent_id"))
    return Exists(grants.filter(revoked_at__isnull=True).filter(
        Q(grantee_kind=GranteeKind.PROJECT) | Q(grantee_kind=GranteeKind.AGENT, grantee_agent_id=ctx.agent_id)
    ))


def _visible_homes(ctx: RequestContext) -> Q:
    """Where the caller's notes can live: its project (private and project-shared notes) and the tenant's org
    space (org-shared notes, stored under the reserved project id)."""
    return Q(project_id=ctx.project_id, scope__in=[Scope.AGENT_PRIVATE, Scope.PROJECT_SHARED]) | Q(
        project_id=ORG_PROJECT_ID, scope=Scope.ORG_SHARED
    )


def readable_by(qs: QuerySet, ctx: RequestContext, *, scopes: tuple[str, ...] | list[str] | None = None) -> QuerySet:
    """The one read rule, for any rows owned the way notes are (tenant_id, project_id, agent_id, scope: notes,
    documents): the caller's own rows in any scope, and other agents' shared rows through an active grant from
    their owner for that scope and home. ``scopes`` narrows the scopes considered."""
    qs = qs.filter(tenant_id=ctx.tenant_id).filter(_visible_homes(ctx))
    if scopes is not None:
        qs = qs.filter(scope__in=list(scopes))
    return qs.filter(Q(agent_id=ctx.agent_id) | Q(scope__in=SHARED_SCOPES) & active_grant_for(ctx))


def readable_notes(ctx: RequestContext, *, scopes: tuple[str, ...] | list[str] | None = None) -> QuerySet[MemoryNote]:
    """Notes the caller may read (``readable_by``). Every read path of notes goes through here."""
    return readable_by(MemoryNote.objects.all(), ctx, scopes=scopes)


def owned_notes(ctx: RequestContext) -> QuerySet[MemoryNote]:
    """Notes the caller may change: its own, in its project or in the org space."""
    return MemoryNote.objects.filter(tenant_id=ctx.tenant_id, agent_id=ctx.agent_id).filter(_visible_homes(ctx))


def not_expired(qs: QuerySet[MemoryNote], *, now=None) -> QuerySet[MemoryNote]:
    """Notes without an expiry or expiring after ``now`` (default: the current time)."""
    return qs.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now or timezone.now()))


def list_notes(
    ctx: RequestContext, *, scope: str | None, status: str, note_type: str | None
) -> QuerySet[MemoryNote]:
    """GET /v2/notes: an omitted scope excludes agent_private; agent_private is only ever the caller's."""
    scopes = [scope] if scope else [s for s in Scope if s != Scope.AGENT_PRIVATE]
    qs = readable_notes(ctx, scopes=scopes).filter(status=status)
    if status == NoteStatus.ACTIVE:
        qs = not_expired(qs)
    if note_type:
        qs = qs.filter(type=note_type)
    return qs.order_by("-updated_at", "-note_id")


def note_readers(note: MemoryNote) -> list[tuple[str, str]]:
    """Who may read ``note`` now, as (who, why) pairs: the owner, and for a shared note every active grant
    from the owner for the note's scope and home project. The same rule as ``readable_notes``."""
    where = "tenant " + note.tenant_id if note.project_id == ORG_PROJECT_ID else "project " + note.project_id
    readers = [(f"agent {note.agent_id}", "owner")]
    if note.scope not in SHARED_SCOPES:
        return readers
    grants = space_grants(note.tenant_id, note.project_id, note.scope, note.agent_id).filter(
        revoked_at__isnull=True).order_by("grantee_kind", "grantee_agent_id")
    for g in grants:
        who = (
            f"every agent of {where}"
            if g.grantee_kind == GranteeKind.PROJECT
            else f"agent {g.grantee_agent_id} of {where}"
        )
        readers.append((who, f"{g.grantee_kind} grant by {g.granted_by_agent_id} at {g.granted_at:%Y-%m-%d %H:%M}"))
    return readers
