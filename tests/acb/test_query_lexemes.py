"""A bundle's query finds the words it names: its terms are Postgres' English lexemes already, and are matched as
they are. They were once stemmed a second time (``to_tsquery('english', 'releas')`` reads ``relea``), so a query
naming "release" or "universe" found none of the events that say so; "deploy", which stems to itself, did."""

from __future__ import annotations

import uuid

import pytest

from acb import ranking_pool
from acb import selectors as sel
from acb.services.event_log import Writer, record_event

pytestmark = pytest.mark.django_db(transaction=True)

TEXTS = ("We cut the release branch tonight.", "The universe of tests grew again.", "We deploy on Fridays.",
         "Lunch was fine.")


@pytest.fixture
def tenant():
    ranking_pool.forget()
    name = f"acb-lexeme-{uuid.uuid4().hex[:8]}"
    for text in TEXTS:
        record_event(writer=Writer(name, "p1", "s1", "coder"), channel="private", actor_type="agent",
                     actor_id="coder", kind="message", sensitivity="none", tags=[], content={"text": text}, refs=[])
    yield name
    ranking_pool.forget()


@pytest.mark.parametrize(("query", "found"), [
    ("release notes", TEXTS[0]),
    ("universe", TEXTS[1]),
    ("deploying", TEXTS[2]),
])
def test_the_evidence_pool_finds_the_words_the_query_names(tenant, query, found):
    view = sel.View(tenant, "p1", "s1", "coder", "private")
    hits, pool = sel.evidence_pool(view, sel.query_terms(query), 10)
    assert [h.text for h in hits] == [found] and pool == 1


def test_the_decision_ledger_search_finds_them_too(tenant):
    record_event(writer=Writer(tenant, "p1", "s1", "coder"), channel="private", actor_type="agent", actor_id="coder",
                 kind="decision", sensitivity="none", tags=[],
                 content={"decision": "Ship the release on Monday", "rationale": ["the universe agrees"]}, refs=[])
    view = sel.View(tenant, "p1", "s1", "coder", "private")
    found = sel.decisions(view, sel.query_terms("release"), 5)
    assert [d.decision for d in found][:1] == ["Ship the release on Monday"]
