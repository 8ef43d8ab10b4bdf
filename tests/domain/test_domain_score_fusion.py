"""Fusion of a query's dense and BM25 legs by min-max normalised scores."""

from __future__ import annotations

import pytest

from search.domain.score_fusion import EQUAL_WEIGHT, fuse_scores

W = {"dense": EQUAL_WEIGHT, "bm25": EQUAL_WEIGHT}


def test_a_clear_lexical_winner_is_not_averaged_away():
    # RRF ties "a" (dense 1st, bm25 2nd) with "c" (dense 2nd, bm25 1st); scores keep bm25's wide margin and
    # see that dense barely separates them
    dense = [("a", 0.62), ("c", 0.615), ("b", 0.60), ("d", 0.40)]
    bm25 = [("c", 9.0), ("a", 1.2), ("b", 1.1), ("d", 1.0)]
    fused = fuse_scores({"dense": dense, "bm25": bm25}, W)
    assert [h.id for h in fused] == ["c", "a", "b", "d"]
    assert fused[0].score == pytest.approx(0.5 * (0.215 / 0.22) + 0.5 * 1.0)
    assert fused[0].legs == {"dense": 0.615, "bm25": 9.0}


def test_scores_are_in_unit_range_and_missing_legs_add_nothing():
    fused = fuse_scores({"dense": [("a", 0.9), ("b", 0.1)], "bm25": [("a", 3.0), ("c", 1.0)]}, W)
    by_id = {h.id: h.score for h in fused}
    assert by_id == pytest.approx({"a": 1.0, "b": 0.0, "c": 0.0})
    assert fused[2].legs == {"bm25": 1.0} or fused[1].legs == {"bm25": 1.0}
    assert all(0.0 <= h.score <= 1.0 for h in fused)


def test_ties_break_by_id_and_flat_legs_count_fully():
    fused = fuse_scores({"dense": [("z", 0.5), ("y", 0.5)], "bm25": []}, W)
    assert [(h.id, h.score) for h in fused] == [("y", 0.5), ("z", 0.5)]


def test_one_leg_alone_keeps_its_order():
    fused = fuse_scores({"dense": [("a", 0.3), ("b", 0.9), ("c", 0.6)]}, {"dense": 1.0})
    assert [h.id for h in fused] == ["b", "c", "a"] and fused[0].score == 1.0 and fused[-1].score == 0.0


def test_empty():
    assert fuse_scores({"dense": [], "bm25": []}, W) == []
