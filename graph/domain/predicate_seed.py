"""The global predicate registry ELF ships (issue 32): the common relations, active from the first write, so a
newer statement of a single-valued one supersedes the older fact without an operator. Pure data, no I/O.

Single-valued: what a subject has one of at a time in the common case (a name, an employer, a home, a role, a
manager, a location, the team it leads: "Alice now leads the platform team" ends "Alice leads the data team").
Multi-valued: what a subject has several of at once (tools it uses, people it knows or manages, things it owns
or maintains). ``manages`` is multi: a manager manages several people and teams at once, and closing "Alice
manages Bob" when she starts managing Carol would drop a true fact; "leads" carries the one-team case.

Canonical names are the English phrases the local extractor emits (elf_infra.providers.local_extractor_relations
``PREDICATES``); the snake_case spellings (``works_at``) and common synonyms are aliases, so both resolve to the
same predicate (names are compared after graph.domain.rules.normalize). Every name and alias is unique across
the whole list (a name resolves to one predicate).

The rows live in the ``__global__`` scope key. ``sql/migrations/0007_global_predicates.sql`` inserted this list
as it was then; the start-up seed (graph.services.predicate_seed) inserts whatever of it a database lacks and
never changes a row that exists, so an operator's change to a seeded predicate stays. A name added here later
reaches every database at its next start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Cardinality, normalize


@dataclass(frozen=True)
class SeedPredicate:
    canonical: str
    cardinality: Cardinality
    aliases: tuple[str, ...] = ()


_S, _M = Cardinality.SINGLE, Cardinality.MULTI

SEEDED_PREDICATES: tuple[SeedPredicate, ...] = (
    # one at a time
    SeedPredicate("name", _S, ("full name", "full_name", "is named", "is_named")),
    SeedPredicate("works at", _S, ("works_at", "works for", "works_for", "employed by", "employed_by", "employer")),
    SeedPredicate("lives in", _S, ("lives_in", "resides in", "resides_in", "home city", "home_city")),
    SeedPredicate("role", _S, ("job title", "job_title", "title", "position")),
    SeedPredicate("leads", _S, ("heads", "lead of", "lead_of", "head of", "head_of", "team lead of")),
    SeedPredicate("reports to", _S, ("reports_to", "managed by", "managed_by")),
    SeedPredicate("located in", _S, ("located_in", "is located in", "headquartered in", "headquartered_in")),
    SeedPredicate("born in", _S, ("born_in", "birthplace")),
    SeedPredicate("born on", _S, ("born_on", "birthday", "date of birth", "date_of_birth")),
    SeedPredicate("married to", _S, ("married_to", "spouse", "spouse of", "spouse_of")),
    SeedPredicate("timezone", _S, ("time zone", "time_zone")),
    # several at once
    SeedPredicate("uses", _M, ("uses tool", "uses_tool")),
    SeedPredicate("likes", _M, ("enjoys",)),
    SeedPredicate("dislikes", _M, ("does not like", "does_not_like")),
    SeedPredicate("knows", _M, ("acquainted with", "acquainted_with")),
    SeedPredicate("member of", _M, ("member_of", "belongs to", "belongs_to", "part of", "part_of")),
    SeedPredicate("manages", _M, ("manager of", "manager_of")),
    SeedPredicate("owns", _M, ("owner of", "owner_of")),
    SeedPredicate("maintains", _M, ("maintainer of", "maintainer_of")),
    SeedPredicate("works with", _M, ("works_with", "collaborates with", "collaborates_with")),
    SeedPredicate("works on", _M, ("works_on", "contributes to", "contributes_to")),
    SeedPredicate("speaks", _M, ("speaks language", "speaks_language")),
    SeedPredicate("depends on", _M, ("depends_on", "requires")),
    SeedPredicate("friend of", _M, ("friend_of", "friends with", "friends_with")),
    SeedPredicate("interested in", _M, ("interested_in",)),
    SeedPredicate("allergic to", _M, ("allergic_to",)),
    SeedPredicate("has skill", _M, ("has_skill", "skilled in", "skilled_in")),
)


def seeded_names() -> dict[str, SeedPredicate]:
    """Every normalised name (canonical and alias) of the seeded list, mapped to its predicate; ValueError when a
    name is given twice (resolution would be ambiguous)."""
    names: dict[str, SeedPredicate] = {}
    for predicate in SEEDED_PREDICATES:
        for name in (predicate.canonical, *predicate.aliases):
            norm = normalize(name)
            if not norm or norm in names:
                raise ValueError(f"seeded predicate name {name!r} is empty or given twice")
            names[norm] = predicate
    return names
