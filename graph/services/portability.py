"""The graph's part of a tenant export (mechanics in elf_kernel.portability): entities and aliases, the
tenant's predicates and their aliases, the facts with their evidence and supersessions. A fact may use a
predicate of the whole project or installation (``__project__:p``, ``__global__``): those travel too, as
shared rows the import adds where missing. Such a predicate is matched by its scope and normalised name, not
by its id: every database seeds the shipped global registry (graph.services.predicate_seed) under ids of its
own, so the target's row of that name is kept (with the target operator's status and cardinality) and the
imported facts point at it. Facts rest on their evidence notes, so memory's tables go first."""

from __future__ import annotations

from elf_kernel.portability import Row, TableSpec, owned_by_tenant


def _scope_key(row: Row, old: str, new: str) -> None:
    """A tenant predicate's scope_key is '<tenant>:<project>'."""
    if row.get("scope_key", "").startswith(old + ":"):
        row["scope_key"] = new + row["scope_key"][len(old):]


TABLES = (
    TableSpec("graph_entities", owned_by_tenant()),
    TableSpec("graph_entity_aliases",
              f"t.entity_id IN (SELECT e.entity_id FROM graph_entities e WHERE {owned_by_tenant('e')})"),
    TableSpec("graph_predicates", "t.tenant_id IS NULL AND t.predicate_id IN "
              f"(SELECT f.predicate_id FROM graph_facts f WHERE {owned_by_tenant('f')})",
              kind="graph_predicates_shared", shared=True, match=("scope_key", "canonical_norm")),
    TableSpec("graph_predicates", owned_by_tenant(), remap=_scope_key),
    TableSpec("graph_predicate_aliases",
              f"t.predicate_id IN (SELECT p.predicate_id FROM graph_predicates p WHERE {owned_by_tenant('p')})",
              remap=_scope_key),
    TableSpec("graph_facts", owned_by_tenant(), refs={"predicate_id": "graph_predicates"}),
    TableSpec("graph_fact_evidence",
              f"t.fact_id IN (SELECT f.fact_id FROM graph_facts f WHERE {owned_by_tenant('f')})"),
    TableSpec("graph_fact_supersessions", owned_by_tenant()),
)
