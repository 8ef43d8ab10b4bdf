"""The shipped global predicate registry in a database (issue 32): the migration inserted it, the start-up seed
only adds what is missing (never undoing an operator's change), the API may not change it, the Django admin
lists it and its operator may deprecate a shipped predicate."""

from __future__ import annotations

import pytest

from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError
from graph.domain.predicate_seed import SEEDED_PREDICATES
from graph.domain.rules import normalize
from graph.models import GraphPredicate, GraphPredicateAlias
from graph.services.predicate_admin import update_predicate
from graph.services.predicate_seed import seed_global_predicates
from graph.services.predicates import resolve_predicate

pytestmark = pytest.mark.django_db


def _registry() -> dict[str, tuple]:
    rows = GraphPredicate.objects.filter(scope_key="__global__", canonical_norm__in=[p.canonical for p in
                                                                                    SEEDED_PREDICATES])
    return {p.canonical: (p.cardinality, p.status, p.updated_at) for p in rows}


def test_the_migration_seeded_every_shipped_predicate_and_alias():
    reg = _registry()
    assert {name: v[:2] for name, v in reg.items()} == {p.canonical: (p.cardinality, "active") for p in
                                                        SEEDED_PREDICATES}
    aliases = set(GraphPredicateAlias.objects.filter(scope_key="__global__").values_list("predicate__canonical",
                                                                                        "alias_norm"))
    assert {(p.canonical, normalize(a)) for p in SEEDED_PREDICATES for a in p.aliases} <= aliases
    assert seed_global_predicates() == 0  # the start-up seed finds nothing missing


def test_names_and_aliases_resolve_to_the_shipped_predicate():
    for name, canonical in (("works_at", "works at"), ("Works  At", "works at"), ("reports_to", "reports to"),
                            ("heads", "leads"), ("lives_in", "lives in"), ("member_of", "member of")):
        p = resolve_predicate(tenant_id="t-seed", project_id="p-seed", name=name)
        assert (p.scope_key, p.canonical) == ("__global__", canonical), name
    assert not GraphPredicate.objects.filter(tenant_id="t-seed").exists()


def test_the_seed_adds_what_is_missing_and_keeps_an_operators_change():
    leads = GraphPredicate.objects.get(scope_key="__global__", canonical_norm="leads")
    update_predicate(ctx=None, predicate_id=leads.predicate_id, status="deprecated")  # the Django admin's path
    GraphPredicateAlias.objects.filter(scope_key="__global__", alias_norm="works_at").delete()
    GraphPredicate.objects.filter(scope_key="__global__", canonical_norm="allergic to").delete()
    before = _registry()

    assert seed_global_predicates() == 3  # the predicate, its alias and the one alias deleted
    after = _registry()
    assert after["leads"][:2] == ("single", "deprecated") and after["leads"] == before["leads"]
    assert after["allergic to"][:2] == ("multi", "active")
    assert {k: v for k, v in after.items() if k != "allergic to"} == before
    assert GraphPredicateAlias.objects.filter(scope_key="__global__", alias_norm="works_at",
                                              predicate__canonical_norm="works at").exists()
    assert seed_global_predicates() == 0


def test_the_api_may_not_change_a_shipped_predicate():
    leads = GraphPredicate.objects.get(scope_key="__global__", canonical_norm="leads")
    ctx = RequestContext(tenant_id="t-seed", project_id="p-seed", agent_id="a", read_profile=None)
    with pytest.raises(ElfError) as refused:
        update_predicate(ctx=ctx, predicate_id=leads.predicate_id, status="deprecated")
    assert (refused.value.status, refused.value.error_code) == (403, "FORBIDDEN")
    leads.refresh_from_db()
    assert leads.status == "active"


def test_the_django_admin_lists_the_shipped_predicates(admin_client, test_stack):
    port = test_stack.service.admin_bind.rsplit(":", 1)[1]
    r = admin_client.get("/admin/graph/graphpredicate/?scope_kind=global&q=works", SERVER_PORT=port)
    assert r.status_code == 200
    html = r.content.decode()
    assert "works at" in html and "works_at" in html and "employed by" in html and "__global__" in html
