"""Predicate registry reads, scoped by scope key (supplement section 2).

A caller in (tenant, project) sees three scopes: its own ``tenant:project``, the project's
``__project__:project`` and ``__global__``. Any other predicate does not exist for it (404), so another
tenant's or project's registry never leaks through the admin API.
"""

from __future__ import annotations

import uuid
from enum import StrEnum

from django.db.models import Case, IntegerField, QuerySet, Value, When

from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from ..domain.rules import GLOBAL_SCOPE_KEY, project_key, resolution_order, tenant_project_key
from ..models import GraphPredicate, GraphPredicateAlias


class PredicateScope(StrEnum):
    """The ``scope`` filter of GET /v2/admin/graph/predicates."""

    TENANT_PROJECT = "tenant_project"
    PROJECT = "project"
    GLOBAL = "global"
    ALL = "all"


def visible_scope_keys(ctx: RequestContext, scope: str = PredicateScope.ALL) -> list[str]:
    """The scope keys the caller sees under ``scope``, most specific first."""
    if scope == PredicateScope.TENANT_PROJECT:
        return [tenant_project_key(ctx.tenant_id, ctx.project_id)]
    if scope == PredicateScope.PROJECT:
        return [project_key(ctx.project_id)]
    if scope == PredicateScope.GLOBAL:
        return [GLOBAL_SCOPE_KEY]
    return list(resolution_order(ctx.tenant_id, ctx.project_id))


def visible_predicates(ctx: RequestContext, scope: str = PredicateScope.ALL) -> QuerySet[GraphPredicate]:
    """The caller's predicates under ``scope``, in resolution precedence (tenant:project, project, global),
    then by canonical_norm; scope_key and canonical_norm are unique together, so the order is total."""
    keys = visible_scope_keys(ctx, scope)
    precedence = Case(
        *(When(scope_key=key, then=Value(rank)) for rank, key in enumerate(keys)), output_field=IntegerField()
    )
    return (GraphPredicate.objects.filter(scope_key__in=keys).annotate(_precedence=precedence)
            .order_by("_precedence", "canonical_norm"))


def visible_predicate(
    ctx: RequestContext | None, predicate_id: uuid.UUID, *, for_update: bool = False
) -> GraphPredicate:
    """One predicate the caller sees (any of its three scopes; ``ctx`` None: an operator in the Django admin,
    who sees every scope); NotFound on ``$.path.predicate_id`` otherwise. ``for_update`` locks the row
    (inside the caller's transaction) so that concurrent changes are checked one after the other."""
    qs = GraphPredicate.objects.filter(predicate_id=predicate_id)
    if ctx is not None:
        qs = qs.filter(scope_key__in=visible_scope_keys(ctx))
    if for_update:
        qs = qs.select_for_update()
    predicate = qs.first()
    if predicate is None:
        raise NotFound("Predicate not found.", ["$.path.predicate_id"])
    return predicate


def predicate_aliases(predicate_id: uuid.UUID) -> list[GraphPredicateAlias]:
    """Every alias of one predicate, oldest first (alias_norm breaks ties)."""
    return list(GraphPredicateAlias.objects.filter(predicate_id=predicate_id).order_by("created_at", "alias_norm"))


def alias_holder(scope_key: str, alias_norm: str) -> uuid.UUID | None:
    """The predicate whose alias ``alias_norm`` is in ``scope_key`` (unique there), or None."""
    return (GraphPredicateAlias.objects.filter(scope_key=scope_key, alias_norm=alias_norm)
            .values_list("predicate_id", flat=True).first())


def canonical_holder(scope_key: str, canonical_norm: str) -> uuid.UUID | None:
    """The predicate whose canonical name is ``canonical_norm`` in ``scope_key`` (unique there), or None."""
    return (GraphPredicate.objects.filter(scope_key=scope_key, canonical_norm=canonical_norm)
            .values_list("predicate_id", flat=True).first())
