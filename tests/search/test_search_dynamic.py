"""Dynamic expansion through the API: the LLM is asked only when the baseline search of the original query is
weak, i.e. finds fewer than search.dynamic.min_candidates candidates or its best dense cosine similarity
(the trace's rewrite.expansion stage names it baseline_top_score, kind dense_cosine) is below
search.dynamic.min_top_score. Embeddings are the real local MiniLM served over HTTP; the LLM is a fake."""

from __future__ import annotations

import pytest
import requests

from tests.conftest import CHAT_PATH, RERANK_PATH
from tests.notes_helpers import headers, ingest, note, wait_indexed
from tests.search.test_search_api import _expansion, _rerank, search

MIN_CANDIDATES, MIN_TOP_SCORE = 3, 0.5
TEXTS = ["Fact: the payroll job runs nightly.", "Fact: payroll exports go to the finance share.",
         "Decision: payroll moves to the new vendor.", "Plan: audit payroll permissions next quarter."]


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["search"]["expansion"]["mode"] = "dynamic"
        data["search"]["dynamic"].update(min_candidates=MIN_CANDIDATES, min_top_score=MIN_TOP_SCORE)
        data["search"]["explain"]["write_mode"] = "inline"  # the trace is readable when the search returns
    s = isolated_services_module("dynamic", mutate)
    s.fake.handle(RERANK_PATH, _rerank)
    s.fake.handle(CHAT_PATH, _expansion)
    s.start_api()
    s.start_worker()
    for t in TEXTS:
        res = ingest(s, [note(t, type=t.split(":")[0].lower())]).json()["results"][0]
        wait_indexed(s, res["note_id"])
    return s


def _expansion_stage(svc, response) -> dict:
    assert response.status_code == 200, response.text
    trace_id = response.json()["trace_id"]
    got = requests.get(f"{svc.admin}/v2/admin/trajectories/{trace_id}", headers=headers(), timeout=10)
    assert got.status_code == 200, got.text
    stage = got.json()["stages"][0]
    assert stage["stage_name"] == "rewrite.expansion"
    return stage["stage_payload"]


def _search_counting_llm_calls(svc, query: str, **kw):
    before = len(svc.fake.requests_to(CHAT_PATH))
    r = search(svc, query, profile="private_only", mode="planned_search", **kw)
    return r, len(svc.fake.requests_to(CHAT_PATH)) - before


def test_strong_baseline_does_not_expand(svc):
    r, calls = _search_counting_llm_calls(svc, "The payroll job runs nightly.")
    stage = _expansion_stage(svc, r)
    assert calls == 0 and stage["expanded"] is False
    assert stage["baseline_score_kind"] == "dense_cosine"
    assert stage["baseline_candidates"] == len(TEXTS) >= MIN_CANDIDATES
    assert stage["baseline_top_score"] >= MIN_TOP_SCORE
    assert stage["queries"] == ["The payroll job runs nightly."]


def test_weak_baseline_expands_on_its_score_alone(svc):
    r, calls = _search_counting_llm_calls(svc, "How tall is the giraffe at the city zoo?")
    stage = _expansion_stage(svc, r)
    # Enough candidates (Qdrant's dense leg returns every note), so only the weak score can have fired it.
    assert stage["baseline_candidates"] == len(TEXTS) >= MIN_CANDIDATES
    assert stage["baseline_score_kind"] == "dense_cosine"
    assert -1.0 <= stage["baseline_top_score"] < MIN_TOP_SCORE
    assert calls == 1 and stage["expanded"] is True and stage["llm_called"] is True
    assert stage["queries"][0] == "How tall is the giraffe at the city zoo?" and len(stage["queries"]) == 2


def test_too_few_candidates_expands(svc):
    # agent a9 has no notes: the baseline finds nothing, so dynamic mode asks the LLM once
    r, calls = _search_counting_llm_calls(svc, "payroll", agent="a9")
    assert r.status_code == 200 and r.json()["items"] == []
    assert calls == 1
    stage = _expansion_stage(svc, r)
    assert stage["baseline_candidates"] == 0 and stage["baseline_top_score"] is None and stage["expanded"] is True


def test_quick_find_never_expands(svc):
    query = "Which volcano erupted lava over the old harbour?"
    before = len(svc.fake.requests_to(CHAT_PATH))
    r = search(svc, query, profile="private_only", mode="quick_find")
    assert len(svc.fake.requests_to(CHAT_PATH)) == before
    assert _expansion_stage(svc, r) == {"mode": "off", "expanded": False, "queries": [query]}
