"""search.domain.ties: a lexical leg's cut, and the order of equal scores, depend on the data only, never on
the order among equals or on ids."""

from __future__ import annotations

import random

from search.domain.ties import cut_at_limit, settle_ties


def _ids(hits) -> set[str]:
    return {i for i, _ in hits}


def test_a_short_answer_is_kept_whole():
    hits = [("a", 3.0), ("b", 2.0)]
    assert cut_at_limit(hits, 5, 10) == hits


def test_a_tie_group_crossing_the_limit_is_kept_whole_when_it_ends_in_the_answer():
    hits = [("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 2.0), ("e", 1.0)]
    assert _ids(cut_at_limit(hits, 2, 10)) == {"a", "b", "c", "d"}
    assert _ids(cut_at_limit(hits, 1, 10)) == {"a"}  # no tie at the limit: exactly the limit


def test_a_tie_group_that_may_go_on_past_the_answer_is_left_out():
    hits = [("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 2.0)]  # asked for 4: more 2.0s may exist
    assert cut_at_limit(hits, 2, 4) == [("a", 3.0)]
    assert cut_at_limit(hits, 3, 5) == hits  # asked for 5, got 4: that is every point there is


def test_the_kept_set_is_the_same_whatever_the_order_among_equals():
    rng = random.Random(36)
    scores = [5.0, 4.0] + [3.0] * 7 + [2.0] * 5 + [1.0] * 3
    universe = [(f"p{i}", s) for i, s in enumerate(scores)]
    for limit in range(1, 12):
        fetched = 2 * limit
        kept = set()
        for _ in range(30):  # Qdrant returns the best `fetched`, ties in any order
            shuffled = sorted(rng.sample(universe, len(universe)), key=lambda h: -h[1])[:fetched]
            kept.add(frozenset(_ids(cut_at_limit(shuffled, limit, fetched))))
        assert len(kept) == 1, (limit, kept)
        (only,) = kept
        edge = scores[limit - 1]
        assert {i for i, s in universe if s > edge} <= only <= {i for i, s in universe if s >= edge}


def test_equal_scores_are_ordered_by_content_then_id():
    text = {"x1": "b turn", "x2": "a turn", "x3": "a turn", "x4": "c turn"}
    ranked = [("x4", 0.5), ("x1", 0.9), ("x3", 0.5), ("x2", 0.5)]
    assert settle_ties(ranked, text.__getitem__) == ["x1", "x2", "x3", "x4"]
    # the same texts under other ids: the same texts in the same places
    renamed = {"y9": "b turn", "y1": "c turn", "y5": "a turn"}
    assert [renamed[i] for i in settle_ties([("y1", 0.5), ("y5", 0.5), ("y9", 0.9)], renamed.__getitem__)] == [
        "b turn", "a turn", "c turn"]
