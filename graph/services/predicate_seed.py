"""The start-up seed of the global predicate registry (graph.domain.predicate_seed): inserts the seeded
predicates and aliases a database lacks and changes nothing that exists, so an operator's change to a seeded
predicate (deprecated in the Django admin) survives every restart. Safe to run from several processes at once
(API and worker start together): a row another process inserted first is skipped (ON CONFLICT DO NOTHING)."""

from __future__ import annotations

from django.db import transaction

from ..domain.predicate_seed import SEEDED_PREDICATES
from ..domain.rules import GLOBAL_SCOPE_KEY, PredicateStatus, normalize
from ..models import GraphPredicate, GraphPredicateAlias


@transaction.atomic
def seed_global_predicates() -> int:
    """Insert the missing seeded predicates (active) and aliases in the ``__global__`` scope; returns how many
    rows were added. An alias whose name another global predicate already holds is skipped, as is an alias of a
    seeded predicate that is gone."""
    before = _global_rows()
    GraphPredicate.objects.bulk_create(
        [GraphPredicate(scope_key=GLOBAL_SCOPE_KEY, tenant_id=None, project_id=None, canonical=p.canonical,
                        canonical_norm=normalize(p.canonical), cardinality=p.cardinality,
                        status=PredicateStatus.ACTIVE)
         for p in SEEDED_PREDICATES],
        ignore_conflicts=True)
    ids = dict(GraphPredicate.objects.filter(scope_key=GLOBAL_SCOPE_KEY).values_list("canonical_norm", "predicate_id"))
    taken = set(ids)  # a global canonical name is never also an alias (resolution would be ambiguous)
    GraphPredicateAlias.objects.bulk_create(
        [GraphPredicateAlias(predicate_id=ids[normalize(p.canonical)], scope_key=GLOBAL_SCOPE_KEY, alias=alias,
                             alias_norm=normalize(alias))
         for p in SEEDED_PREDICATES if normalize(p.canonical) in ids
         for alias in p.aliases if normalize(alias) not in taken],
        ignore_conflicts=True)
    return _global_rows() - before


def _global_rows() -> int:
    return (GraphPredicate.objects.filter(scope_key=GLOBAL_SCOPE_KEY).count()
            + GraphPredicateAlias.objects.filter(scope_key=GLOBAL_SCOPE_KEY).count())
