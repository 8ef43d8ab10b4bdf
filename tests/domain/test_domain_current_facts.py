"""Current facts first (issue 32), pure: which searches ask about the past, and how a note whose facts were all
superseded is demoted (search.domain.current_facts)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from search.domain.current_facts import (
    DEMOTION_MARGIN,
    TERM_SUPERSEDED,
    demote,
    demotion_penalty,
    past_query,
)
from search.domain.ranking import Candidate, RankingParams, rank_items

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("query", [
    "Which team did Alice lead last year?", "Where did Bob work in 2022?", "Who was Carol's manager before?",
    "Where did Dan use to live?", "Which team did Eve previously lead?", "Where was Frank formerly employed?",
    "When did Grace move to Oslo?", "What was Heidi's role in March 2025?", "Where did Ivan work two years ago?",
    "What was Judy's old team?", "Which company did Ken work for back then?", "Who led platform in the past?",
    "What was Leo's role in Jan 2026?", "Who no longer works at Acme?",
])
def test_time_phrases_ask_about_the_past(query):
    past = past_query(query, as_of=None, now=NOW)
    assert past is not None and past.reason == "phrase" and past.matched


@pytest.mark.parametrize("query", [
    "Which team does Alice lead?", "Where does Bob work?", "Who is Carol's manager?", "What are the plans for 2031?",
    "What happens in June 2026?", "Which database do we use in 2026?", "What is Dan's role now?",
    "How old is the backup?",  # "old" alone is not "our old"
])
def test_present_questions_do_not(query):
    assert past_query(query, as_of=None, now=NOW) is None


def test_as_of_in_the_past_asks_about_the_past_and_now_does_not():
    past = past_query("Which team does Alice lead?", as_of=NOW - timedelta(days=30), now=NOW)
    assert past is not None and past.reason == "as_of"
    assert past_query("Which team does Alice lead?", as_of=NOW - timedelta(seconds=5), now=NOW) is None
    assert past_query("Which team does Alice lead?", as_of=NOW + timedelta(days=1), now=NOW) is None


def _ranked(n: int, formula: str = "rank_blend", rerank=None):
    params = RankingParams(recency_tau_days=60, tie_breaker_weight=0.1, scope_boost_weight=0.0,
                           scope_descriptions={}, formula=formula)
    items = [Candidate(note_id=f"n{i}", chunk_id=f"c{i}", scope="project_shared", importance=0.5,
                       updated_at=NOW - timedelta(days=i), retrieval_score=1.0 - i / 10) for i in range(n)]
    return rank_items(items, rerank_scores=rerank, query="q", now=NOW, params=params)


@pytest.mark.parametrize("formula,rerank", [("rank_blend", None), ("rank_blend", [0.9, 0.1, 0.5, 0.2]),
                                            ("spec_additive", None), ("spec_additive", [40.0, -3.0, 7.0, 1.0])])
def test_a_demoted_note_ranks_below_every_other_and_the_explain_says_so(formula, rerank):
    ranked = _ranked(4, formula, rerank)
    penalty = demotion_penalty(ranked)
    scores = [r.final_score for r in ranked]
    assert penalty == pytest.approx(max(scores) - min(scores) + DEMOTION_MARGIN)
    out = demote(ranked, {"n0", "n2"})
    assert [r.candidate.chunk_id for r in out] == [r.candidate.chunk_id for r in ranked]  # order kept
    kept = [r for r in out if r.candidate.note_id in ("n1", "n3")]
    gone = [r for r in out if r.candidate.note_id in ("n0", "n2")]
    assert max(r.final_score for r in gone) < min(r.final_score for r in kept)
    for r in gone:
        assert r.terms[-1].name == TERM_SUPERSEDED and r.terms[-1].value == -penalty
        assert r.final_score == sum(t.value for t in r.terms)
        assert r.ranking_explain()["terms"][-1] == {"name": TERM_SUPERSEDED, "value": -penalty}
    assert [r.final_score for r in kept] == [ranked[1].final_score, ranked[3].final_score]  # untouched
    # Among themselves, demoted notes keep their order.
    assert (gone[0].final_score > gone[1].final_score) == (ranked[0].final_score > ranked[2].final_score)


def test_nothing_to_demote_changes_nothing():
    ranked = _ranked(3)
    assert demote(ranked, set()) == ranked
    assert demotion_penalty([]) == 0.0
