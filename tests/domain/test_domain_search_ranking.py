"""Search ranking, pure: RRF across queries, both ranking formulas (the rank blend and the spec's additive
score), tie-breaker and scope boost, explain terms, aggregation by note, explain.match, and snippet stitching
(spec v2 sections 13-14, supplement section 4)."""

from __future__ import annotations

import dataclasses
import math
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from search.domain.ranking import (
    RANKING_EXPLAIN_SCHEMA,
    Candidate,
    RankingParams,
    aggregate_by_note,
    blend_weight,
    matched_terms,
    rank_items,
    rank_norm,
    recency_base,
    scope_boost,
    tie_breaker,
)
from search.domain.rrf import rrf_fuse
from search.domain.snippets import ChunkText, stitch_snippet

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
# Only the terms a formula computes are listed (no always-zero deterministic.* terms).
BLEND_TERMS = ["blend.retrieval", "blend.rerank", "tie_breaker", "context.scope_boost"]
PLAIN = RankingParams(recency_tau_days=60, tie_breaker_weight=0.0, scope_boost_weight=0.0, scope_descriptions={},
                      formula="rank_blend")


def candidate(note_id: str, chunk_id: str, *, scope: str = "agent_private", importance: float = 0.0, age_days=0.0,
              retrieval_score: float = 0.0):
    return Candidate(
        note_id=note_id,
        chunk_id=chunk_id,
        scope=scope,
        importance=importance,
        updated_at=NOW - timedelta(days=age_days),
        retrieval_score=retrieval_score,
    )


def additive(tie_breaker_weight: float = 0.1, **kw) -> RankingParams:
    return RankingParams(recency_tau_days=60, tie_breaker_weight=tie_breaker_weight, scope_boost_weight=0.0,
                         scope_descriptions={}, formula="spec_additive", **kw)


def term_values(item) -> dict[str, float]:
    return {t.name: t.value for t in item.terms}


# --- RRF -------------------------------------------------------------------------------------------------


def test_rrf_scores_are_sums_of_reciprocal_ranks_with_k_60():
    fused = rrf_fuse([["a", "b", "c"], ["b", "c", "d"]])
    assert [item for item, _ in fused] == ["b", "c", "a", "d"]
    scores = dict(fused)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 62)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 63)


def test_rrf_k_is_a_parameter():
    assert rrf_fuse([["a", "b"]], k=2) == [("a", 1 / 3), ("b", 1 / 4)]


def test_rrf_k_60_prefers_consensus_over_a_lone_top_hit():
    lone_top = ["solo", "f1", "f2", "f3", "both"]
    other = ["g1", "g2", "g3", "g4", "both"]
    assert rrf_fuse([lone_top, other], k=60)[0][0] == "both"
    assert rrf_fuse([lone_top, other], k=2)[0][0] == "solo"


def test_rrf_ties_keep_first_appearance_order():
    assert [i for i, _ in rrf_fuse([["a", "b"], ["b", "a"]])] == ["a", "b"]
    assert [i for i, _ in rrf_fuse([["x"], ["y"]])] == ["x", "y"]
    assert [i for i, _ in rrf_fuse([["y"], ["x"]])] == ["y", "x"]


def test_rrf_counts_an_id_once_per_list_at_its_best_rank():
    assert dict(rrf_fuse([["a", "b", "a"]]))["a"] == pytest.approx(1 / 61)


def test_rrf_weights_scale_each_list():
    fused = rrf_fuse([["a"], ["b"]], weights=[1.0, 2.0])
    assert fused == [("b", 2 / 61), ("a", 1 / 61)]


def test_rrf_rejects_bad_arguments():
    with pytest.raises(ValueError):
        rrf_fuse([["a"], ["b"]], weights=[1.0])
    with pytest.raises(ValueError):
        rrf_fuse([["a"]], weights=[-1.0])
    with pytest.raises(ValueError):
        rrf_fuse([["a"]], k=-1)
    assert rrf_fuse([]) == []


# --- terms -----------------------------------------------------------------------------------------------


def test_tie_breaker_values():
    assert recency_base(importance=0.5, age_days=30.0, recency_tau_days=60) == pytest.approx(1.3 * math.exp(-0.5))
    assert tie_breaker(importance=1.0, age_days=0.0, recency_tau_days=60, weight=0.1) == pytest.approx(0.16)
    assert tie_breaker(importance=0.5, age_days=60.0, recency_tau_days=60, weight=0.1) == pytest.approx(
        0.1 * 1.3 * math.exp(-1)
    )
    assert tie_breaker(importance=0.9, age_days=3.0, recency_tau_days=60, weight=0.0) == 0.0


def test_scope_boost_scales_by_fraction_of_matched_query_tokens():
    descriptions = {"project_shared": "Security policy notes.", "org_shared": "MongoDB operational notes."}
    boost = scope_boost(
        query="Security policy deployment?", scope="project_shared", scope_descriptions=descriptions, weight=0.12
    )
    assert boost == pytest.approx(0.08)


def test_scope_boost_matches_whole_ascii_tokens_case_insensitively():
    descriptions = {"org_shared": "MongoDB operational notes.", "project_shared": "DEPLOY runbooks"}
    assert scope_boost(query="go", scope="org_shared", scope_descriptions=descriptions, weight=0.1) == 0.0
    assert scope_boost(
        query="deploy a service", scope="project_shared", scope_descriptions=descriptions, weight=0.1
    ) == pytest.approx(0.1 / 2)  # "a" is too short to be a token: tokens are deploy, service


def test_scope_boost_counts_distinct_query_tokens():
    descriptions = {"project_shared": "policy"}
    assert scope_boost(
        query="policy policy deploy", scope="project_shared", scope_descriptions=descriptions, weight=0.1
    ) == pytest.approx(0.05)


def test_scope_boost_is_zero_without_weight_description_or_tokens():
    descriptions = {"project_shared": "Security policy notes."}
    kwargs = {"scope_descriptions": descriptions}
    assert scope_boost(query="security", scope="project_shared", weight=0.0, **kwargs) == 0.0
    assert scope_boost(query="security", scope="agent_private", weight=0.1, **kwargs) == 0.0
    assert scope_boost(query="a ? !", scope="project_shared", weight=0.1, **kwargs) == 0.0
    assert scope_boost(query="security", scope="project_shared", weight=0.1, scope_descriptions={}) == 0.0


@pytest.mark.parametrize("rank,weight", [(1, 0.8), (3, 0.8), (4, 0.5), (10, 0.5), (11, 0.2), (500, 0.2)])
def test_blend_weight_bands(rank, weight):
    assert blend_weight(rank) == weight


def test_rank_norm():
    assert rank_norm(1, 5) == 1.0
    assert rank_norm(3, 5) == 0.5
    assert rank_norm(5, 5) == 0.0
    assert rank_norm(1, 1) == 1.0
    with pytest.raises(ValueError):
        rank_norm(0, 5)
    with pytest.raises(ValueError):
        rank_norm(6, 5)
    with pytest.raises(ValueError):
        blend_weight(0)


# --- rank_items ------------------------------------------------------------------------------------------


def test_rank_items_blends_retrieval_and_rerank_ranks():
    items = [candidate(f"n{i}", f"c{i}") for i in range(4)]
    ranked = rank_items(items, rerank_scores=[0.1, 0.9, 0.5, 0.5], query="q", now=NOW, params=PLAIN)
    assert [r.retrieval_rank for r in ranked] == [1, 2, 3, 4]
    # Rerank ties (items 2 and 3 at 0.5) keep retrieval order.
    assert [r.rerank_rank for r in ranked] == [4, 1, 2, 3]
    values = [term_values(r) for r in ranked]
    assert values[0]["blend.retrieval"] == pytest.approx(0.8) and values[0]["blend.rerank"] == 0.0
    assert values[1]["blend.retrieval"] == pytest.approx(0.8 * 2 / 3)
    assert values[1]["blend.rerank"] == pytest.approx(0.2)
    assert values[3]["blend.retrieval"] == 0.0
    assert values[3]["blend.rerank"] == pytest.approx(0.5 / 3)
    assert ranked[1].final_score == pytest.approx(0.8 * 2 / 3 + 0.2)
    assert ranked[1].rerank_score == 0.9


def test_explain_terms_follow_v2_shape_and_sum_to_final_score():
    params = RankingParams(
        recency_tau_days=60,
        tie_breaker_weight=0.1,
        scope_boost_weight=0.2,
        scope_descriptions={"project_shared": "Deployment runbooks and release steps."},
        formula="rank_blend",
    )
    items = [
        candidate(
            f"n{i}", f"c{i}", scope=("project_shared" if i % 2 else "agent_private"), importance=i / 13, age_days=i
        )
        for i in range(13)
    ]
    scores = [math.sin(i) for i in range(13)]
    ranked = rank_items(items, rerank_scores=scores, query="release deployment steps", now=NOW, params=params)
    for item in ranked:
        explain = item.ranking_explain()
        assert explain["schema"] == RANKING_EXPLAIN_SCHEMA == "search_ranking_explain/v2"
        assert explain["policy_id"].startswith("ranking_v2:rank_blend:")
        assert [t["name"] for t in explain["terms"]] == BLEND_TERMS
        assert sum(t["value"] for t in explain["terms"]) == explain["final_score"] == item.final_score
        values = term_values(item)
        expected_boost = 0.2 if item.candidate.scope == "project_shared" else 0.0
        assert values["context.scope_boost"] == pytest.approx(expected_boost)
        c = item.candidate
        assert values["tie_breaker"] == pytest.approx(
            0.1 * (1 + 0.6 * c.importance) * math.exp(-(NOW - c.updated_at).days / 60)
        )


def test_rank_items_uses_weight_per_retrieval_band():
    items = [candidate(f"n{i}", f"c{i}") for i in range(12)]
    ranked = rank_items(items, rerank_scores=[0.0] * 12, query="q", now=NOW, params=PLAIN)
    for item in ranked:
        w = blend_weight(item.retrieval_rank)
        assert term_values(item)["blend.retrieval"] == pytest.approx(w * rank_norm(item.retrieval_rank, 12))
        assert term_values(item)["blend.rerank"] == pytest.approx((1 - w) * rank_norm(item.rerank_rank, 12))


def test_quick_find_ranking_without_rerank_uses_retrieval_rank_alone():
    items = [candidate(f"n{i}", f"c{i}") for i in range(5)]
    ranked = rank_items(items, rerank_scores=None, query="q", now=NOW, params=PLAIN)
    assert [r.final_score for r in ranked] == [1.0, 0.75, 0.5, 0.25, 0.0]
    for item in ranked:
        assert item.rerank_rank is None and item.rerank_score is None
        names = [t.name for t in item.terms]
        assert names == [n for n in BLEND_TERMS if n != "blend.rerank"]
        assert sum(t["value"] for t in item.ranking_explain()["terms"]) == item.final_score
    reranked = rank_items(items, rerank_scores=[0.0] * 5, query="q", now=NOW, params=PLAIN)
    assert ranked[0].policy_id != reranked[0].policy_id


def test_tie_breaker_prefers_recent_important_notes_and_clamps_future_timestamps():
    params = RankingParams(recency_tau_days=60, tie_breaker_weight=0.1, scope_boost_weight=0.0, scope_descriptions={},
                           formula="rank_blend")
    items = [
        candidate("old", "c1", importance=0.0, age_days=120),
        candidate("future", "c2", importance=1.0, age_days=-5),
    ]
    ranked = rank_items(items, rerank_scores=None, query="q", now=NOW, params=params)
    assert term_values(ranked[0])["tie_breaker"] == pytest.approx(0.1 * math.exp(-2))
    assert term_values(ranked[1])["tie_breaker"] == pytest.approx(0.16)


def test_rank_items_rejects_misaligned_or_non_finite_rerank_scores():
    items = [candidate("n1", "c1"), candidate("n2", "c2")]
    with pytest.raises(ValueError):
        rank_items(items, rerank_scores=[0.5], query="q", now=NOW, params=PLAIN)
    with pytest.raises(ValueError):
        rank_items(items, rerank_scores=[0.5, math.nan], query="q", now=NOW, params=PLAIN)
    assert rank_items([], rerank_scores=[], query="q", now=NOW, params=PLAIN) == []


def test_policy_id_is_stable_and_tracks_parameters():
    a = RankingParams(recency_tau_days=60, tie_breaker_weight=0.1, scope_boost_weight=0.0, scope_descriptions={},
                      formula="rank_blend")
    same = RankingParams(recency_tau_days=60.0, tie_breaker_weight=0.1, scope_boost_weight=0, scope_descriptions={},
                         formula="rank_blend")
    assert a.policy_id(reranked=True) == same.policy_id(reranked=True)
    assert len(a.policy_id(reranked=True)) == len("ranking_v2:rank_blend:") + 16
    other_tau = RankingParams(
        recency_tau_days=30, tie_breaker_weight=0.1, scope_boost_weight=0.0, scope_descriptions={}, formula="rank_blend"
    )
    assert other_tau.policy_id(reranked=True) != a.policy_id(reranked=True)
    # Descriptions only shape the score when the boost weight is positive.
    unused = RankingParams(60, 0.1, 0.0, {"org_shared": "Org policies."}, "rank_blend")
    assert unused.policy_id(reranked=True) == a.policy_id(reranked=True)
    used = RankingParams(60, 0.1, 0.1, {"org_shared": "Org policies."}, "rank_blend")
    edited = RankingParams(60, 0.1, 0.1, {"org_shared": "Org runbooks."}, "rank_blend")
    assert used.policy_id(reranked=True) != edited.policy_id(reranked=True)
    # The formula is part of the id, readable and hashed; spec_additive tells rerank from retrieval scores.
    spec = dataclasses.replace(a, formula="spec_additive")
    assert spec.policy_id(reranked=True).startswith("ranking_v2:spec_additive:")
    assert spec.policy_id(reranked=True)[-16:] != a.policy_id(reranked=True)[-16:]
    assert spec.policy_id(reranked=True) != spec.policy_id(reranked=False)


# --- spec_additive: final = rerank_score + tie_breaker_weight * base (+ scope boost) -----------------------


def test_spec_additive_adds_the_raw_rerank_score_and_the_weighted_base():
    params = dataclasses.replace(additive(), scope_boost_weight=0.3, scope_descriptions={"project_shared": "release"})
    items = [candidate("n1", "c1", importance=0.5, age_days=30, retrieval_score=0.9),
             candidate("n2", "c2", scope="project_shared", importance=0.0, age_days=0, retrieval_score=0.4)]
    ranked = rank_items(items, rerank_scores=[0.42, -1.25], query="release notes", now=NOW, params=params)
    assert [t.name for t in ranked[0].terms] == ["rerank_score", "tie_breaker", "context.scope_boost"]
    assert term_values(ranked[0]) == pytest.approx(
        {"rerank_score": 0.42, "tie_breaker": 0.1 * 1.3 * math.exp(-0.5), "context.scope_boost": 0.0})
    assert ranked[0].final_score == pytest.approx(0.42 + 0.1 * 1.3 * math.exp(-0.5))  # 0.4988
    # A negative rerank score (cross-encoder logits) is used as it is: no rank or clamp in between.
    assert ranked[1].final_score == pytest.approx(-1.25 + 0.1 + 0.3 * 1 / 2)
    for item in ranked:
        assert sum(t.value for t in item.terms) == item.final_score
        assert item.policy_id.startswith("ranking_v2:spec_additive:")


def test_spec_additive_follows_score_gaps_the_rank_blend_ignores():
    items = [candidate(f"n{i}", f"c{i}") for i in range(3)]
    scores = [0.10, 0.90, 0.11]
    blend = aggregate_by_note(rank_items(items, rerank_scores=scores, query="q", now=NOW, params=PLAIN))
    spec = aggregate_by_note(rank_items(items, rerank_scores=scores, query="q", now=NOW, params=additive(0.0)))
    # rank blend: 0.8, 0.8 * 0.5 + 0.2, 0.2 * 0.5 (retrieval rank 1 keeps the head); additive: the raw scores
    assert [r.candidate.note_id for r in blend] == ["n0", "n1", "n2"]
    assert [r.candidate.note_id for r in spec] == ["n1", "n2", "n0"]
    assert [r.final_score for r in spec] == pytest.approx([0.90, 0.11, 0.10])


def test_spec_additive_tie_breaker_can_overturn_a_small_rerank_gap():
    items = [
        candidate("fresh", "c1", importance=1.0, age_days=0),
        candidate("stale", "c2", importance=0.0, age_days=120),
    ]
    ranked = rank_items(items, rerank_scores=[0.50, 0.52], query="q", now=NOW, params=additive(0.1))
    assert [r.final_score for r in ranked] == pytest.approx([0.50 + 0.16, 0.52 + 0.1 * math.exp(-2)])
    assert aggregate_by_note(ranked)[0].candidate.note_id == "fresh"


def test_spec_additive_without_rerank_ranks_by_the_fused_retrieval_score():
    items = [
        candidate("a", "c1", retrieval_score=1.0),
        candidate("b", "c2", retrieval_score=0.35, age_days=60),
        candidate("c", "c3", retrieval_score=0.5),
    ]
    ranked = rank_items(items, rerank_scores=None, query="q", now=NOW, params=additive(0.1))
    assert [t.name for t in ranked[0].terms] == ["retrieval_score", "tie_breaker", "context.scope_boost"]
    assert [term_values(r)["retrieval_score"] for r in ranked] == [1.0, 0.35, 0.5]
    assert [r.final_score for r in ranked] == pytest.approx([1.1, 0.35 + 0.1 * math.exp(-1), 0.6])
    assert [r.candidate.note_id for r in aggregate_by_note(ranked)] == ["a", "c", "b"]
    assert all(r.rerank_score is None and r.rerank_rank is None for r in ranked)


def test_spec_additive_rejects_non_finite_scores_and_unknown_formulas_are_refused():
    with pytest.raises(ValueError):
        rank_items(
            [candidate("a", "c1", retrieval_score=math.inf)], rerank_scores=None, query="q", now=NOW, params=additive()
        )
    with pytest.raises(ValueError):
        rank_items([candidate("a", "c1")], rerank_scores=[math.nan], query="q", now=NOW, params=additive())
    with pytest.raises(ValueError):
        dataclasses.replace(PLAIN, formula="linear")


# --- aggregation -----------------------------------------------------------------------------------------


def test_aggregation_keeps_each_notes_best_chunk_and_sorts_by_score():
    params = RankingParams(
        recency_tau_days=60,
        tie_breaker_weight=0.0,
        scope_boost_weight=0.5,
        scope_descriptions={"project_shared": "release runbooks"},
        formula="rank_blend",
    )
    items = [
        candidate("note-b", "b1"),
        candidate("note-a", "a1"),
        candidate("note-b", "b2", scope="project_shared"),
        candidate("note-a", "a2"),
        candidate("note-c", "c1"),
    ]
    ranked = rank_items(items, rerank_scores=[0.0, 0.2, 0.9, 0.3, 0.1], query="release", now=NOW, params=params)
    # b1 0.8, a1 0.6 + 0.1, b2 0.4 + 0.2 + 0.5 (scope boost), a2 0.125 + 0.375, c1 0.0 + 0.125
    assert [r.final_score for r in ranked] == pytest.approx([0.8, 0.7, 1.1, 0.5, 0.125])
    notes = aggregate_by_note(ranked)
    assert [(r.candidate.note_id, r.candidate.chunk_id) for r in notes] == [
        ("note-b", "b2"),
        ("note-a", "a1"),
        ("note-c", "c1"),
    ]


def test_aggregation_breaks_ties_by_note_id_then_retrieval_rank():
    ids = sorted(uuid.uuid4() for _ in range(3))
    items = [candidate(ids[2], "x"), candidate(ids[0], "y"), candidate(ids[1], "z"), candidate(ids[0], "w")]
    ranked = rank_items(items, rerank_scores=None, query="q", now=NOW, params=PLAIN)
    notes = aggregate_by_note([dataclasses.replace(r, final_score=1.0) for r in ranked])
    assert [r.candidate.note_id for r in notes] == ids
    assert notes[0].candidate.chunk_id == "y"  # the better retrieval rank of note ids[0]


# --- explain.match ---------------------------------------------------------------------------------------


def test_matched_terms_reports_tokens_and_fields():
    match = matched_terms("When is the Postgres backup_schedule?", "We back up Postgres nightly.", "backup_schedule")
    assert match == {"matched_terms": ["postgres", "backup", "schedule"], "matched_fields": ["text", "key"]}
    assert matched_terms("Postgres", "postgres rocks", None) == {
        "matched_terms": ["postgres"],
        "matched_fields": ["text"],
    }
    assert matched_terms("zebra", "postgres rocks", "pg") == {"matched_terms": [], "matched_fields": []}


# --- snippets --------------------------------------------------------------------------------------------

NOTE = "Café opens at nine. Bring the key. Lock the door at six. Leave the café."


def chunk(start: str, end: str) -> ChunkText:
    """The chunk of NOTE from the first occurrence of ``start`` to the end of the first ``end`` after it."""
    data = NOTE.encode("utf-8")
    a = data.index(start.encode("utf-8"))
    b = data.index(end.encode("utf-8"), a) + len(end.encode("utf-8"))
    return ChunkText(a, b, data[a:b].decode("utf-8"))


CHUNKS = {
    0: chunk("Café", "the key."),
    1: chunk("Bring", "at six."),  # overlaps chunk 0 by "Bring the key."
    2: chunk("Lock", "the café."),  # overlaps chunk 1 by "Lock the door at six."
}


def test_stitching_merges_overlapping_neighbours_once():
    assert stitch_snippet(1, CHUNKS) == NOTE
    assert stitch_snippet(0, CHUNKS) == "Café opens at nine. Bring the key. Lock the door at six."
    assert stitch_snippet(2, CHUNKS) == "Bring the key. Lock the door at six. Leave the café."


def test_stitching_with_missing_neighbours():
    assert stitch_snippet(1, {1: CHUNKS[1]}) == CHUNKS[1].text
    assert stitch_snippet(1, {1: CHUNKS[1], 2: CHUNKS[2]}) == "Bring the key. Lock the door at six. Leave the café."
    with pytest.raises(KeyError):
        stitch_snippet(3, CHUNKS)


def test_stitching_fills_a_gap_between_chunks_with_one_space():
    first = chunk("Café", "nine.")
    second = chunk("Bring", "key.")
    assert second.start_offset == first.end_offset + 1
    assert stitch_snippet(0, {0: first, 1: second}) == "Café opens at nine. Bring the key."


def test_stitching_rejects_text_that_does_not_match_offsets():
    assert stitch_snippet(0, {0: ChunkText(0, 5, "Café")}) == "Café"  # "é" is 2 bytes in UTF-8
    with pytest.raises(ValueError):
        stitch_snippet(0, {0: ChunkText(0, 4, "Café")})


def test_bounded_snippet_keeps_the_chunk_centred_and_utf8_whole():
    full = stitch_snippet(1, CHUNKS)
    assert stitch_snippet(1, CHUNKS, max_bytes=10_000) == full
    hit = CHUNKS[1].text
    for max_bytes in range(len(hit.encode()), len(full.encode())):
        snippet = stitch_snippet(1, CHUNKS, max_bytes=max_bytes)
        assert len(snippet.encode("utf-8")) <= max_bytes
        assert hit in snippet and snippet in full
    # The chunk alone is longer than the bound: its head is kept.
    assert stitch_snippet(1, CHUNKS, max_bytes=9) == "Bring the"
    # A cut through "é" (2 bytes) drops the partial character instead of breaking UTF-8.
    for max_bytes in range(1, 12):
        snippet = stitch_snippet(0, {0: CHUNKS[0]}, max_bytes=max_bytes)
        assert NOTE.startswith(snippet) and len(snippet.encode()) <= max_bytes
    assert stitch_snippet(0, {0: CHUNKS[0]}, max_bytes=4) == "Caf"
    with pytest.raises(ValueError):
        stitch_snippet(0, CHUNKS, max_bytes=0)
