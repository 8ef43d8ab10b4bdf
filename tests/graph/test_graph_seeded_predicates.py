"""The shipped global predicate registry (issue 32), pure: names resolve to one predicate each, the common
single-valued relations are single, and every predicate the local extractor emits is a seeded canonical name."""

from __future__ import annotations

from elf_infra.providers.local_extractor_relations import PREDICATES as EXTRACTOR_PREDICATES
from graph.domain.predicate_seed import SEEDED_PREDICATES, seeded_names
from graph.domain.rules import Cardinality, normalize


def test_every_name_and_alias_names_one_predicate():
    names = seeded_names()  # raises on a name given twice
    assert len(names) == sum(1 + len(p.aliases) for p in SEEDED_PREDICATES)
    assert all(p.canonical == normalize(p.canonical) for p in SEEDED_PREDICATES)


def test_single_and_multi_valued_relations():
    names = seeded_names()
    for name in ("name", "works at", "works_at", "lives in", "lives_in", "role", "leads", "heads", "reports to",
                 "reports_to", "located in", "located_in", "born in", "married to"):
        assert names[name].cardinality == Cardinality.SINGLE, name
    for name in ("uses", "likes", "knows", "member of", "member_of", "owns", "maintains", "manages", "works with"):
        assert names[name].cardinality == Cardinality.MULTI, name


def test_the_local_extractor_uses_the_seeded_canonical_names():
    canonical = {p.canonical for p in SEEDED_PREDICATES}
    assert canonical >= EXTRACTOR_PREDICATES, EXTRACTOR_PREDICATES - canonical
