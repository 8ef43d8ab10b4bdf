"""elf-eval's pure parts: metrics (hand-computed), splitting long items, note plans, hit mapping, loopback."""

from __future__ import annotations

import math

import pytest

from bench.eval_dataset import Conversation, Item
from bench.eval_metrics import (
    by_category,
    dedupe_ranked,
    hit_at,
    mean_metrics,
    mrr_at,
    ndcg_at,
    query_metrics,
    recall_at,
)
from bench.eval_notes import plan_notes
from bench.eval_queries import ranked_items
from bench.eval_split import nfkc_len, split_text
from bench.stats import percentile
from bench.target import loopback_base_url

L2 = math.log2


def test_perfect_ranking_scores_one_everywhere():
    m = query_metrics(["a", "b", "x", "y"], ["a", "b"])
    assert m == {"recall@5": 1.0, "recall@10": 1.0, "hit@10": 1.0, "mrr@10": 1.0, "ndcg@10": 1.0}


def test_no_hits_score_zero_everywhere():
    m = query_metrics([f"x{i}" for i in range(10)], ["a", "b"])
    assert m == {"recall@5": 0.0, "recall@10": 0.0, "hit@10": 0.0, "mrr@10": 0.0, "ndcg@10": 0.0}


def test_one_hit_at_rank_three():
    m = query_metrics(["x", "y", "a", "z"], ["a"])
    assert m["recall@5"] == m["recall@10"] == m["hit@10"] == 1.0
    assert m["mrr@10"] == pytest.approx(1 / 3)
    assert m["ndcg@10"] == pytest.approx((1 / L2(4)) / (1 / L2(2)))  # = 0.5


def test_two_expected_one_found_at_rank_three():
    m = query_metrics(["x", "y", "a"], ["a", "b"])
    assert m["recall@10"] == 0.5 and m["hit@10"] == 1.0
    assert m["ndcg@10"] == pytest.approx((1 / L2(4)) / (1 / L2(2) + 1 / L2(3)))


def test_hit_between_ranks_five_and_ten_counts_for_recall10_only():
    ranked = ["x1", "x2", "x3", "x4", "x5", "x6", "a"]
    m = query_metrics(ranked, ["a"])
    assert (m["recall@5"], m["recall@10"], m["mrr@10"]) == (0.0, 1.0, pytest.approx(1 / 7))


def test_hit_after_rank_ten_counts_for_nothing():
    m = query_metrics([f"x{i}" for i in range(10)] + ["a"], ["a"])
    assert all(v == 0.0 for v in m.values())


def test_duplicates_keep_their_first_rank_and_count_once():
    assert dedupe_ranked(["a", "x", "a", "b", "x"]) == ["a", "x", "b"]
    # Without dedupe "a" would fill two of the top ranks; "b" moves up from rank 4 to rank 3.
    m = query_metrics(["a", "x", "a", "b"], ["a", "b"])
    assert m["recall@10"] == 1.0
    assert m["ndcg@10"] == pytest.approx((1 + 1 / L2(4)) / (1 + 1 / L2(3)))
    # Duplicated expected ids are one relevant item.
    assert query_metrics(["a"], ["a", "a"])["recall@10"] == 1.0


def test_fewer_than_k_results_are_scored_on_what_came_back():
    assert recall_at(["a"], {"a", "b"}, 10) == 0.5
    assert hit_at([], {"a"}, 10) == 0.0 and mrr_at([], {"a"}, 10) == 0.0 and ndcg_at([], {"a"}, 10) == 0.0
    assert ndcg_at(["a", "b"], {"a", "b"}, 10) == pytest.approx(1.0)


def test_ideal_dcg_is_capped_at_k_relevant_items():
    expected = {f"e{i}" for i in range(12)}
    ranked = sorted(expected)[:10]
    assert ndcg_at(ranked, expected, 10) == pytest.approx(1.0)
    assert recall_at(ranked, expected, 10) == pytest.approx(10 / 12)


def test_empty_expected_is_refused():
    with pytest.raises(ValueError):
        recall_at(["a"], set(), 10)


def test_mean_and_per_category_are_macro_averages():
    a = query_metrics(["a"], ["a"])
    b = query_metrics(["x"], ["b"])
    c = query_metrics(["x", "c"], ["c"])
    assert mean_metrics([a, b])["recall@10"] == 0.5
    cats = by_category([a, b, c], ["single-hop", "temporal", "single-hop"])
    assert list(cats) == ["single-hop", "temporal"]
    assert cats["single-hop"]["queries"] == 2 and cats["single-hop"]["mrr@10"] == pytest.approx(0.75)
    assert cats["temporal"]["hit@10"] == 0.0
    assert mean_metrics([]) == {}


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0 and percentile(values, 95) == 95.0 and percentile(values, 100) == 100.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([7.0], 95) == 7.0 and percentile([], 50) is None


def test_short_text_is_one_part():
    assert split_text("  Nadia: Hello there.  ", 240) == ["Nadia: Hello there."]


def test_long_text_splits_at_sentence_ends_with_the_speaker_on_every_part():
    text = "Tomas: " + " ".join(f"Sentence number {i} is here." for i in range(20))
    parts = split_text(text, 120, label="Tomas: ")
    assert len(parts) > 1
    assert all(p.startswith("Tomas: ") and nfkc_len(p) <= 120 and p.endswith("here.") for p in parts)
    assert " ".join(p.removeprefix("Tomas: ") for p in parts) == text.removeprefix("Tomas: ")


def test_a_sentence_longer_than_the_limit_splits_at_spaces_and_a_giant_word_is_cut():
    words = " ".join(["word"] * 60)
    parts = split_text(words, 50)
    assert all(nfkc_len(p) <= 50 for p in parts) and " ".join(parts) == words
    giant = "x" * 130
    assert split_text(giant, 50) == ["x" * 50, "x" * 50, "x" * 30]


def test_length_is_counted_in_nfkc_like_the_write_gate():
    # U+FB01 (the "fi" ligature) is one character that NFKC turns into two.
    text = "\ufb01" * 30
    parts = split_text(text, 40)
    assert len(parts) == 2 and all(nfkc_len(p) <= 40 for p in parts)


def test_plan_notes_keys_parts_by_item_id():
    long_text = "Nadia: " + " ".join(f"This is sentence {i} of a long turn." for i in range(12))
    conv = Conversation("c1", (Item("c1:D1:1", "Nadia: Hi!", "Nadia"), Item("c1:D1:2", long_text, "Nadia")), ())
    plan = plan_notes(conv, 120)
    assert plan[0].key == "c1:D1:1" and plan[0].parts == 1
    rest = plan[1:]
    assert [p.key for p in rest] == [f"c1:D1:2#{n}" for n in range(1, len(rest) + 1)] and len(rest) > 1
    body = rest[0].body()
    assert body["source_ref"]["item_id"] == "c1:D1:2" and body["key"] == "c1:D1:2#1" and body["type"] == "fact"


def test_hits_on_several_parts_of_an_item_count_once_at_the_first_rank():
    note_items = {"n1": "i1", "n2": "i2", "n3": "i1"}
    assert ranked_items(["n3", "n2", "n1", "n9"], note_items) == ["i1", "i2", "note:n9"]


@pytest.mark.parametrize("bind", ["127.0.0.1:8089", "localhost:8089", "[::1]:8089", "127.1.2.3:80"])
def test_loopback_binds_are_accepted(bind):
    assert loopback_base_url(bind).startswith("http://")


@pytest.mark.parametrize("bind", ["0.0.0.0:8089", "10.0.0.5:8089", "example.com:8089", "127.0.0.1"])
def test_non_loopback_binds_are_refused(bind):
    with pytest.raises(ValueError, match="loopback"):
        loopback_base_url(bind)
