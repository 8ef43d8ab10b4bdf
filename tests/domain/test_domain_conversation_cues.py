"""Conversation cues in ranking (issue 32), pure: the speaker label a note opens with, the lift of a note whose
speaker the query names, and the pull of a candidate toward the best candidate of its episode
(search.domain.conversation)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from elf_domain.speakers import speaker_label
from search.domain.conversation import (
    TERM_EPISODE,
    TERM_SPEAKER,
    episode_pull,
    names_speaker,
    speaker_boost,
)
from search.domain.ranking import Candidate, RankingParams, rank_items, tokens

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
PARAMS = RankingParams(recency_tau_days=60, tie_breaker_weight=0.0, scope_boost_weight=0.0, scope_descriptions={},
                       formula="rank_blend")


def ranked(*notes: str):
    """Chunks of ``notes`` in retrieval order, scored by the rank blend alone (1.0 down to 0.0)."""
    return rank_items([Candidate(n, f"{n}-c", "agent_private", 0.0, NOW, 0.0) for n in notes], rerank_scores=None,
                      query="q", now=NOW, params=PARAMS)


def order(items) -> list[str]:
    return [r.candidate.note_id for r in sorted(items, key=lambda r: -r.final_score)]


@pytest.mark.parametrize(("text", "label"), [
    ("Caroline: I went to a support group yesterday.", "Caroline"),
    ("  Dr. Mary Jones: the results are in", "Dr. Mary Jones"),
    ("O'Neil: sure", "O'Neil"),
    ("User: remind me to call Bob", "User"),
    ("caroline: lower case is not a label", None),
    ("The plan: ship on Friday", None),  # "The plan" is not capitalised word by word
    ("Alice Bob Carol Dave: four words", None),
    ("Caroline:", None),  # a label and nothing said
    ("Caroline:nospace", None),
    ("We met at 10:30 in the lobby", None),
    ("A" * 41 + ": too long to be a name", None),
])
def test_the_speaker_label_is_one_to_three_capitalised_words_and_a_colon(text, label):
    assert speaker_label(text) == label


def test_a_label_is_named_when_each_of_its_tokens_is_in_the_query():
    q = frozenset(tokens("What did Dr. Mary Jones say about Caroline's results?"))
    assert names_speaker(q, "Caroline") and names_speaker(q, "Dr. Mary Jones")
    assert not names_speaker(q, "Mary Smith") and not names_speaker(q, "Melanie") and not names_speaker(q, None)


def test_the_named_speakers_notes_rise_by_a_share_of_the_spread():
    items = ranked("m1", "c1", "m2", "c2", "m3")  # scores 1.0, 0.75, 0.5, 0.25, 0.0: spread 1.0
    speakers = {"m1": "Melanie", "c1": "Caroline", "m2": "Melanie", "c2": "Caroline", "m3": None}
    out, named = speaker_boost(items, query="When did Caroline paint?", speakers=speakers, weight=0.3)
    assert named == ["Caroline"]
    assert order(out) == ["c1", "m1", "c2", "m2", "m3"]  # c1 1.05 over m1 1.0; c2 0.55 over m2 0.5
    for r in out:
        values = {t.name: t.value for t in r.terms}
        assert r.final_score == sum(t.value for t in r.terms)
        assert values.get(TERM_SPEAKER) == (pytest.approx(0.3) if speakers[r.candidate.note_id] == "Caroline"
                                            else None)


def test_no_named_speaker_or_weight_zero_changes_nothing():
    items = ranked("a", "b")
    speakers = {"a": "Alice", "b": "Bob"}
    assert speaker_boost(items, query="What happened on Friday?", speakers=speakers, weight=0.3) == (items, [])
    assert speaker_boost(items, query="What did Bob say?", speakers=speakers, weight=0.0) == (items, [])


def test_a_candidate_is_pulled_part_of_the_way_to_its_episodes_best():
    items = ranked("d1", "x", "d2", "y", "d3")  # 1.0, 0.75, 0.5, 0.25, 0.0
    day = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    episodes = {"d1": day, "d2": day, "d3": day, "x": None, "y": datetime(2023, 6, 1, tzinfo=UTC)}
    out = {r.candidate.note_id: r for r in episode_pull(items, episodes=episodes, share=0.6)}
    assert out["d2"].final_score == pytest.approx(0.5 + 0.6 * 0.5)  # 0.8: above x
    assert out["d3"].final_score == pytest.approx(0.0 + 0.6 * 1.0)
    # the episode's best, a note without observed_at and the only note of its episode get no term
    for n in ("d1", "x", "y"):
        assert TERM_EPISODE not in {t.name for t in out[n].terms} and out[n].final_score == items[
            ["d1", "x", "d2", "y", "d3"].index(n)].final_score
    assert order(out.values()) == ["d1", "d2", "x", "d3", "y"]
    assert all(r.final_score == sum(t.value for t in r.terms) for r in out.values())


def test_the_pull_never_lifts_a_candidate_over_its_episodes_best():
    items = ranked("a1", "a2", "b1", "b2")
    episodes = {"a1": 1, "a2": 1, "b1": 2, "b2": 2}
    out = episode_pull(items, episodes=episodes, share=0.99)
    scores = {r.candidate.note_id: r.final_score for r in out}
    assert scores["a2"] < scores["a1"] and scores["b2"] < scores["b1"] and scores["b1"] < scores["a1"]
    assert episode_pull(items, episodes=episodes, share=0.0) == items
