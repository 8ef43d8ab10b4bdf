"""Whether a note's graph facts are all in the past (issue 32: search demotes such a note unless the query asks
about the past). Read as a mark of the search's re-validation (memory.selectors_search.NoteMark), so it costs no
round trip of its own: the notes it is asked about are the search's candidates, already read under the notes'
read rule, and a fact is its evidence note's tenant's (what relation_context already shows as historical)."""

from __future__ import annotations

from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q
from django.db.models.functions import Now

from memory.selectors_search import NoteMark

from ..models import GraphFactEvidence


def _only_past_facts() -> ExpressionWrapper:
    """True for a note that is evidence of at least one fact and of no fact open or ending after now (superseded
    or closed: historical); False for a note without facts or with a current (or future) one."""
    facts = GraphFactEvidence.objects.filter(note_id=OuterRef("note_id"))
    live = facts.filter(Q(fact__valid_to__isnull=True) | Q(fact__valid_to__gt=Now()))
    return ExpressionWrapper(Q(Exists(facts)) & ~Q(Exists(live)), output_field=BooleanField())


ONLY_PAST_FACTS = NoteMark("only_past_facts", _only_past_facts)
