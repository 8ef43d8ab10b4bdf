"""Write-time predicate resolution (supplement section 2): by alias or canonical name, most specific scope
first (tenant:project > __project__:project > __global__); an unknown predicate is registered in the
tenant:project scope as pending and multi-valued."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Q

from ..domain.rules import Cardinality, PredicateStatus, normalize, resolution_order, tenant_project_key
from ..models import GraphPredicate


def resolve_predicate(*, tenant_id: str, project_id: str, name: str) -> GraphPredicate:
    norm = normalize(name)
    for scope_key in resolution_order(tenant_id, project_id):
        found = (GraphPredicate.objects.filter(scope_key=scope_key)
                 .filter(Q(canonical_norm=norm) | Q(aliases__alias_norm=norm, aliases__scope_key=scope_key))
                 .order_by("created_at", "predicate_id").first())
        if found is not None:
            return found
    return _register(tenant_id, project_id, name.strip(), norm)


def _register(tenant_id: str, project_id: str, canonical: str, norm: str) -> GraphPredicate:
    scope_key = tenant_project_key(tenant_id, project_id)
    try:
        with transaction.atomic():  # a savepoint: a concurrent writer may register it first
            return GraphPredicate.objects.create(
                scope_key=scope_key, tenant_id=tenant_id, project_id=project_id, canonical=canonical,
                canonical_norm=norm, cardinality=Cardinality.MULTI, status=PredicateStatus.PENDING)
    except IntegrityError:
        return GraphPredicate.objects.get(scope_key=scope_key, canonical_norm=norm)
