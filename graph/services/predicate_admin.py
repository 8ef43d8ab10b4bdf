"""Operator changes to the predicate registry (spec v2 section 14, supplement section 2): status and
cardinality moves, and aliases. Used by the admin API and by the Django admin's actions, so the rules of
graph.domain.rules hold on both paths: global predicates (every tenant's) and project-wide ones (shared by every
tenant's project of that id) change only in the Django admin (403 through the API), deprecated ones final (409),
and only pending->active, pending->deprecated and active->deprecated are moves (400 otherwise).

Each change locks the predicate row first, so two concurrent changes are checked one after the other.
"""

from __future__ import annotations

import uuid

from django.db import IntegrityError, transaction
from django.db.models.functions import Now

from elf_kernel.api.english_fields import IDENTIFIER, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError, InvalidRequest

from ..domain.rules import Cardinality, MoveRefusal, PredicateStatus, check_predicate_change, normalize
from ..models import GraphPredicate, GraphPredicateAlias
from ..selectors.predicates import alias_holder, canonical_holder, predicate_aliases, visible_predicate

PREDICATE_PATH = "$.path.predicate_id"


class PredicateRefused(ElfError):
    """A change the rules refuse: the refusal's own status and code (403 FORBIDDEN for a global predicate via the API,
    409 PREDICATE_DEPRECATED, 400 INVALID_REQUEST for a move that is not allowed)."""

    def __init__(self, refusal: MoveRefusal, fields: list[str]):
        super().__init__(refusal.message, fields)
        self.status, self.error_code = refusal.status, refusal.code


class AliasConflict(ElfError):
    status, error_code = 409, "ALIAS_CONFLICT"


def _refuse(refusal: MoveRefusal | None) -> None:
    if refusal is None:
        return
    # A refused move is the request's status value at fault; global and deprecated are the predicate's state.
    raise PredicateRefused(refusal, ["$.status"] if refusal.status == 400 else [PREDICATE_PATH])


@transaction.atomic
def update_predicate(
    *,
    ctx: RequestContext | None,
    predicate_id: uuid.UUID,
    status: str | None = None,
    cardinality: str | None = None,
) -> GraphPredicate:
    """Move a predicate's status and/or change its cardinality; None leaves a value as it is.

    ``ctx`` is the caller whose tenant and project must see the predicate (NotFound otherwise); None is an
    operator in the Django admin. Re-stating the current values is a no-op: nothing is written and
    updated_at keeps its value. Raises InvalidRequest when both values are None or one is not a known value,
    PredicateRefused when the rules refuse the change.
    """
    if status is None and cardinality is None:
        raise InvalidRequest("Nothing to update: give status or cardinality.", ["$"])
    if status is not None and status not in set(PredicateStatus):
        raise InvalidRequest(f"Unknown predicate status {status!r}.", ["$.status"])
    if cardinality is not None and cardinality not in set(Cardinality):
        raise InvalidRequest(f"Unknown cardinality {cardinality!r}.", ["$.cardinality"])
    predicate = visible_predicate(ctx, predicate_id, for_update=True)
    _refuse(check_predicate_change(scope_key=predicate.scope_key, current=predicate.status, new_status=status,
                                   by_tenant_key=ctx is not None))
    changes: dict[str, str] = {}
    if status is not None and status != predicate.status:
        changes["status"] = status
    if cardinality is not None and cardinality != predicate.cardinality:
        changes["cardinality"] = cardinality
    if changes:
        GraphPredicate.objects.filter(predicate_id=predicate.predicate_id).update(**changes, updated_at=Now())
        predicate.refresh_from_db()
    return predicate


def add_predicate_alias(
    *, ctx: RequestContext | None, predicate_id: uuid.UUID, alias: str
) -> list[GraphPredicateAlias]:
    """Give a predicate an alias in its own scope; returns all its aliases (oldest first).

    The alias is an identifier: it meets the English gate's script check first (422 NON_ENGLISH_INPUT on
    $.alias). It is stored as given and matched by its normalised form (graph.domain.rules.normalize). Adding an
    alias the predicate already has is a no-op. Raises InvalidRequest when the alias normalises to nothing,
    AliasConflict when another predicate of the scope already answers to that name (as an alias or as its
    canonical name: resolution would be ambiguous), PredicateRefused for a global or deprecated predicate.
    """
    require_english([("$.alias", alias, IDENTIFIER)])
    return _add_alias(ctx=ctx, predicate_id=predicate_id, alias=alias)


@transaction.atomic
def _add_alias(*, ctx: RequestContext | None, predicate_id: uuid.UUID, alias: str) -> list[GraphPredicateAlias]:
    predicate = visible_predicate(ctx, predicate_id, for_update=True)
    _refuse(check_predicate_change(scope_key=predicate.scope_key, current=predicate.status, new_status=None,
                                   by_tenant_key=ctx is not None))
    alias_norm = normalize(alias)
    if not alias_norm:
        raise InvalidRequest("alias must not be empty.", ["$.alias"])
    holder = alias_holder(predicate.scope_key, alias_norm)
    if holder is None:
        _check_canonical_names(predicate, alias_norm)
        try:
            # A savepoint: when a concurrent request took the name first, only this insert is undone.
            with transaction.atomic():
                GraphPredicateAlias.objects.create(
                    predicate=predicate, scope_key=predicate.scope_key, alias=alias, alias_norm=alias_norm
                )
        except IntegrityError:  # unique (scope_key, alias_norm)
            holder = alias_holder(predicate.scope_key, alias_norm)
    if holder is not None and holder != predicate.predicate_id:
        raise AliasConflict(
            f"The alias {alias_norm!r} already names another predicate ({holder}) in scope {predicate.scope_key}.",
            ["$.alias"],
        )
    return predicate_aliases(predicate.predicate_id)


def _check_canonical_names(predicate: GraphPredicate, alias_norm: str) -> None:
    other = canonical_holder(predicate.scope_key, alias_norm)
    if other is not None and other != predicate.predicate_id:
        raise AliasConflict(
            f"The alias {alias_norm!r} is the canonical name of another predicate ({other}) in scope "
            f"{predicate.scope_key}.",
            ["$.alias"],
        )
