"""Dynamic expansion: the LLM is asked only when the baseline is below search.dynamic thresholds."""

from __future__ import annotations

import pytest

from tests.conftest import CHAT_PATH, RERANK_PATH
from tests.notes_helpers import ingest, note, wait_indexed
from tests.test_search_api import _expansion, _rerank, search


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["search"]["expansion"]["mode"] = "dynamic"
        data["search"]["dynamic"].update(min_candidates=3, min_top_score=0.0)
    s = isolated_services_module("dynamic", mutate)
    s.fake.handle(RERANK_PATH, _rerank)
    s.fake.handle(CHAT_PATH, _expansion)
    s.start_api()
    s.start_worker()
    texts = ["Fact: the payroll job runs nightly.", "Fact: payroll exports go to the finance share.",
             "Decision: payroll moves to the new vendor.", "Plan: audit payroll permissions next quarter."]
    for t in texts:
        res = ingest(s, [note(t, type=t.split(":")[0].lower())]).json()["results"][0]
        wait_indexed(s, res["note_id"])
    return s


def test_enough_candidates_no_expansion(svc):
    before = len(svc.fake.requests_to(CHAT_PATH))
    assert search(svc, "payroll", profile="private_only", mode="planned_search").status_code == 200
    assert len(svc.fake.requests_to(CHAT_PATH)) == before


def test_too_few_candidates_expands(svc):
    before = len(svc.fake.requests_to(CHAT_PATH))
    # agent a9 has no notes: the baseline finds nothing, so dynamic mode asks the LLM once
    r = search(svc, "payroll", agent="a9", profile="private_only", mode="planned_search")
    assert r.status_code == 200 and r.json()["items"] == []
    assert len(svc.fake.requests_to(CHAT_PATH)) == before + 1
