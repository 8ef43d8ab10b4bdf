"""Space grants (spec v2 section 15, supplement section 7): the owner of a space grants reads of its shared rows
to its whole project (every agent of the tenant for the org space) or to one agent id; revoking keeps the row
(history). The routes' entry points (``list_space_grants``, ``grant_space``, ``revoke_space_grant``) take the
space by its public name and apply the rules on the grantee: an identifier (the English gate's script check), and
never the caller itself."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from elf_domain.spaces import home_project, scope_of_space
from elf_kernel.api.english_fields import IDENTIFIER, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import InvalidRequest

from ..models import MemorySpaceGrant
from ..selectors import space_grants


def list_space_grants(*, ctx: RequestContext, space: str, include_revoked: bool) -> list[MemorySpaceGrant]:
    """The grants of the caller's own ``space``, newest first; revoked ones only with ``include_revoked``."""
    return list_grants(ctx, scope_of_space(space), include_revoked=include_revoked)


def grant_space(*, ctx: RequestContext, space: str, grantee_kind: str,
                grantee_agent_id: str | None) -> MemorySpaceGrant:
    """Grant reads of the caller's own ``space`` (idempotent)."""
    _check_grantee(ctx, grantee_agent_id)
    return grant(ctx, scope_of_space(space), grantee_kind, grantee_agent_id)


def revoke_space_grant(*, ctx: RequestContext, space: str, grantee_kind: str, grantee_agent_id: str | None) -> bool:
    """Revoke a grant of the caller's own ``space``: True when an active grant was revoked, False when there was
    none."""
    _check_grantee(ctx, grantee_agent_id)
    return revoke(ctx, scope_of_space(space), grantee_kind, grantee_agent_id)


def _check_grantee(ctx: RequestContext, grantee_agent_id: str | None) -> None:
    if grantee_agent_id:
        require_english([("$.grantee_agent_id", grantee_agent_id, IDENTIFIER)])
        if grantee_agent_id == ctx.agent_id:
            raise InvalidRequest("The space's owner always reads its own notes; grant another agent.",
                                 ["$.grantee_agent_id"])


def own_space_grants(ctx: RequestContext, scope: str):
    """The caller's own space for ``scope``: grants it has given (active and revoked)."""
    return space_grants(ctx.tenant_id, home_project(ctx.project_id, scope), scope, ctx.agent_id)


def list_grants(ctx: RequestContext, scope: str, *, include_revoked: bool) -> list[MemorySpaceGrant]:
    qs = own_space_grants(ctx, scope)
    if not include_revoked:
        qs = qs.filter(revoked_at__isnull=True)
    return list(qs.order_by("-granted_at", "grant_id"))


def _grantee(qs, grantee_kind: str, grantee_agent_id: str | None):
    return qs.filter(grantee_kind=grantee_kind, grantee_agent_id=grantee_agent_id, revoked_at__isnull=True)


@transaction.atomic
def grant(ctx: RequestContext, scope: str, grantee_kind: str, grantee_agent_id: str | None) -> MemorySpaceGrant:
    """Idempotent: an existing active grant is returned as is."""
    qs = own_space_grants(ctx, scope)
    existing = _grantee(qs, grantee_kind, grantee_agent_id).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():  # a concurrent grant of the same grantee hits the active-grant unique index
            return MemorySpaceGrant.objects.create(
                tenant_id=ctx.tenant_id, project_id=home_project(ctx.project_id, scope), scope=scope,
                space_owner_agent_id=ctx.agent_id, grantee_kind=grantee_kind, grantee_agent_id=grantee_agent_id,
                granted_by_agent_id=ctx.agent_id, granted_at=timezone.now(),
            )
    except IntegrityError:
        return _grantee(qs, grantee_kind, grantee_agent_id).get()


@transaction.atomic
def revoke(ctx: RequestContext, scope: str, grantee_kind: str, grantee_agent_id: str | None) -> bool:
    """True when an active grant was revoked; False when there was none (revoking is idempotent)."""
    rows = _grantee(own_space_grants(ctx, scope), grantee_kind, grantee_agent_id).update(
        revoked_at=timezone.now(), revoked_by_agent_id=ctx.agent_id
    )
    return rows > 0
