"""``relation_context`` of search explain (spec v2 section 13): per returned note, the facts it is evidence
of, each with the evidence notes the caller may read, bounded per item and per fact; a fact's ``state``
labels it current, historical or future at the time of the search.

It runs on every search with graph_context on, so it is one SQL statement (facts, their entities and their
evidence lists together); the notes passed in are search results, already re-validated under the read rule,
and only evidence notes outside them go through ``readable_notes`` again (none when every fact's evidence is
a returned note).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.db import connection
from django.db.models import Exists, OuterRef

from elf_kernel.context import RequestContext
from memory.models import NoteStatus
from memory.selectors import not_expired, readable_notes
from memory.selectors_search import NoteMark

from ..domain.rules import FactState, fact_state
from ..models import GraphFactEvidence

_STATE_ORDER = {FactState.CURRENT: 0, FactState.FUTURE: 1, FactState.HISTORICAL: 2}
_FACTS_OF_NOTES = """
SELECT e.note_id, f.fact_id, f.scope, f.predicate, f.object_value, f.valid_from, f.valid_to,
       s.canonical, s.kind, o.canonical, o.kind,
       ARRAY(SELECT ev.note_id FROM graph_fact_evidence ev WHERE ev.fact_id = f.fact_id
             ORDER BY ev.created_at, ev.note_id)
  FROM graph_fact_evidence e
  JOIN graph_facts f ON f.fact_id = e.fact_id
  JOIN graph_entities s ON s.entity_id = f.subject_entity_id
  LEFT JOIN graph_entities o ON o.entity_id = f.object_entity_id
 WHERE e.note_id = ANY(%s)
"""


def _has_facts() -> Exists:
    return Exists(GraphFactEvidence.objects.filter(note_id=OuterRef("note_id")))


# Brought by the search's re-validation: whether a note is evidence of any fact, so a search whose results are
# evidence of none (most, in a tenant without graph facts) makes no relation_context round trip.
IS_EVIDENCE = NoteMark("is_fact_evidence", _has_facts)


def _entity(canonical: str | None, kind: str | None) -> dict | None:
    return None if canonical is None else {"canonical": canonical, "kind": kind}


def relation_context(ctx: RequestContext, note_ids: Iterable[uuid.UUID], *, max_facts: int, max_evidence: int,
                     at: datetime) -> dict[uuid.UUID, list[dict]]:
    """Per note id (readable search results), its relation_context list; a note with no fact is absent."""
    results = list(note_ids)
    with connection.cursor() as cur:
        cur.execute(_FACTS_OF_NOTES, [results])
        rows = cur.fetchall()
    by_note: dict[uuid.UUID, list[tuple]] = defaultdict(list)
    for row in rows:
        by_note[row[0]].append(row)
    chosen = {note_id: sorted(facts, key=lambda r: (_STATE_ORDER[fact_state(r[5], r[6], at)], -r[5].timestamp(),
                                                    str(r[1])))[:max_facts]
              for note_id, facts in by_note.items()}
    readable = _readable(ctx, set(results), {n for facts in chosen.values() for r in facts for n in r[11]})
    return {note_id: [_context_fact(r, [str(n) for n in r[11] if n in readable][:max_evidence], at) for r in facts]
            for note_id, facts in chosen.items()}


def _readable(ctx: RequestContext, results: set[uuid.UUID], evidence: set[uuid.UUID]) -> set[uuid.UUID]:
    """The evidence notes the caller may read now: the search results themselves, and any other evidence note
    that passes the read rule (active, unexpired, own or granted)."""
    others = evidence - results
    if not others:
        return results
    live = not_expired(readable_notes(ctx).filter(status=NoteStatus.ACTIVE, note_id__in=others))
    return results | set(live.values_list("note_id", flat=True))


def _context_fact(row: tuple, evidence: list[str], at: datetime) -> dict:
    _, fact_id, scope, predicate, value, valid_from, valid_to, s_name, s_kind, o_name, o_kind, _ = row
    return {
        "fact_id": str(fact_id), "scope": scope, "subject": _entity(s_name, s_kind), "predicate": predicate,
        "object": {"entity": _entity(o_name, o_kind), "value": value},
        "valid_from": valid_from.isoformat(), "valid_to": valid_to.isoformat() if valid_to else None,
        "state": str(fact_state(valid_from, valid_to, at)), "evidence_note_ids": evidence,
    }
