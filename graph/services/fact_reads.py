"""The public graph reads (beyond the spec), each the one entry point its route calls: GET /v2/graph/facts
(``list_facts``: the names asked for meet the English gate, as_of defaults to now) and GET
/v2/graph/entities/{id} (``entity_facts_of``). Every fact passes the notes' read rule (graph.selectors.facts), and
so do its evidence notes and the facts it links to."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from ..domain.rules import FactState, fact_state
from ..models import GraphEntity, GraphFact
from ..selectors.facts import entity_facts, evidence_note_ids, find_facts, supersession_links


@dataclass(frozen=True)
class FactPage:
    as_of: datetime
    state: str
    facts: list[dict]


@dataclass(frozen=True)
class EntityFacts:
    entity: dict
    aliases: list[str]
    current_facts: list[dict]
    history: list[dict]  # facts no longer, or not yet, valid


def list_facts(*, ctx: RequestContext, subject: str | None, predicate: str | None, as_of: datetime | None,
               state: str, limit: int) -> FactPage:
    """Facts by subject and predicate (each an entity's or predicate's name or alias) in ``state`` at ``as_of``
    (None: now)."""
    require_english([(f"$.query.{name}", value, NATURAL)
                     for name, value in (("subject", subject), ("predicate", predicate)) if value])
    at = as_of or timezone.now()
    facts = find_facts(ctx, subject=subject, predicate=predicate, state=state, at=at, limit=limit)
    return FactPage(at, state, fact_dicts(ctx, facts, at))


def entity_facts_of(*, ctx: RequestContext, entity_id: uuid.UUID) -> EntityFacts:
    """One entity with its aliases, its current facts and its history; 404 when no fact about it is visible."""
    found = entity_facts(ctx, entity_id)
    if found is None:
        raise NotFound("No such entity, or no fact about it you may read.", ["$.path.entity_id"])
    entity, aliases, facts = found
    rendered = fact_dicts(ctx, facts, timezone.now())
    return EntityFacts(_entity(entity), aliases, [f for f in rendered if f["state"] == FactState.CURRENT],
                       [f for f in rendered if f["state"] != FactState.CURRENT])


def _entity(entity: GraphEntity | None) -> dict | None:
    if entity is None:
        return None
    return {"entity_id": entity.entity_id, "canonical": entity.canonical, "kind": entity.kind}


def fact_dicts(ctx: RequestContext, facts: list[GraphFact], at: datetime) -> list[dict]:
    """The facts as the API shows them at ``at``, with the evidence notes and supersession links the caller may
    see."""
    ids = [f.fact_id for f in facts]
    evidence, links = evidence_note_ids(ctx, ids), supersession_links(ctx, ids)
    return [{
        "fact_id": f.fact_id, "scope": f.scope, "subject": _entity(f.subject_entity), "predicate": f.predicate,
        "predicate_id": f.predicate_ref_id, "object": {"entity": _entity(f.object_entity), "value": f.object_value},
        "valid_from": f.valid_from, "valid_to": f.valid_to, "state": fact_state(f.valid_from, f.valid_to, at),
        "evidence_note_ids": evidence.get(f.fact_id, []), **links[f.fact_id],
    } for f in facts]
