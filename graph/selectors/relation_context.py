"""``relation_context`` of search explain (spec v2 section 13): per returned note, the facts it is evidence
of, each with the evidence notes the caller may read, bounded per item and per fact; a fact's ``state``
labels it current, historical or future at the time of the search."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from elf_kernel.context import RequestContext

from ..domain.rules import FactState, fact_state
from ..models import GraphEntity, GraphFact
from .facts import evidence_note_ids, facts_of_notes

_STATE_ORDER = {FactState.CURRENT: 0, FactState.FUTURE: 1, FactState.HISTORICAL: 2}


def _entity(entity: GraphEntity | None) -> dict | None:
    return None if entity is None else {"canonical": entity.canonical, "kind": entity.kind}


def context_fact(fact: GraphFact, evidence: list[str], at: datetime) -> dict:
    return {
        "fact_id": str(fact.fact_id), "scope": fact.scope, "subject": _entity(fact.subject_entity),
        "predicate": fact.predicate,
        "object": {"entity": _entity(fact.object_entity), "value": fact.object_value},
        "valid_from": fact.valid_from.isoformat(), "valid_to": fact.valid_to.isoformat() if fact.valid_to else None,
        "state": str(fact_state(fact.valid_from, fact.valid_to, at)), "evidence_note_ids": evidence,
    }


def relation_context(ctx: RequestContext, note_ids: Iterable[uuid.UUID], *, max_facts: int, max_evidence: int,
                     at: datetime) -> dict[uuid.UUID, list[dict]]:
    """Per note id, its relation_context list (empty when the note is evidence of no fact)."""
    by_note = facts_of_notes(note_ids)
    chosen: dict[uuid.UUID, list[GraphFact]] = {}
    for note_id, facts in by_note.items():
        ranked = sorted(facts, key=lambda f: (_STATE_ORDER[fact_state(f.valid_from, f.valid_to, at)],
                                              -f.valid_from.timestamp(), str(f.fact_id)))
        chosen[note_id] = ranked[:max_facts]
    evidence = evidence_note_ids(ctx, {f.fact_id for facts in chosen.values() for f in facts}, per_fact=max_evidence)
    return {note_id: [context_fact(f, evidence.get(f.fact_id, []), at) for f in facts]
            for note_id, facts in chosen.items()}
