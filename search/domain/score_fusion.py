"""Fusion of one query's dense and BM25 candidate lists by normalised scores (spec v2 section 13, step 7), pure.

Each leg's scores are min-max normalised over the candidates that leg returned (its best hit gets 1.0, its
worst returned hit 0.0; a leg whose hits all score the same gives each 1.0), and a candidate's fused score
is the weighted sum over the legs that returned it (a leg that did not return it adds 0). With the default
equal weights this is the convex combination of normalised scores that Bruch, Gai and Ingber ("An
Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023) found better than reciprocal rank
fusion: unlike RRF it keeps how far ahead a leg's top hit is, so a clear lexical match on a rare name is
not averaged away by a weak dense ranking, and it needs no rank constant.

Fused scores lie in [0, 1]; ties are broken by id so a search always ranks the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

EQUAL_WEIGHT = 0.5  # two legs weighing the same

# The legs' relative weights in recall (issue 32; tuned on LoCoMo's dev split, kept because the paired test
# split agreed: docs/benchmarks.md, "Ablation"): BM25 a little above dense, since the small offline embedder
# blurs the names and rare words a lexical match keeps, and the dense search among the notes observed on a date
# the query names (elf_domain.time_phrases) between them; the dense search among the notes of the speaker the query
# asks about, with the query in their words (elf_domain.speakers), below both (0.15-0.3 all gained on dev).
LEG_WEIGHTS = {"dense": 0.4, "bm25": 0.6, "dense_observed": 0.5, "dense_speaker": 0.2}


def leg_weights(legs) -> dict[str, float]:
    """LEG_WEIGHTS of the legs present, scaled to sum to 1 (so fused scores stay in [0, 1]; one leg weighs 1)."""
    total = sum(LEG_WEIGHTS[name] for name in legs)
    return {name: LEG_WEIGHTS[name] / total for name in legs}


@dataclass(frozen=True)
class FusedHit:
    id: str
    score: float
    legs: dict[str, float] = field(default_factory=dict)  # leg name -> raw score of that leg


def _normalised(hits: Sequence[tuple[str, float]]) -> dict[str, float]:
    if not hits:
        return {}
    scores = [s for _, s in hits]
    lo, hi = min(scores), max(scores)
    if hi <= lo:
        return {i: 1.0 for i, _ in hits}
    return {i: (s - lo) / (hi - lo) for i, s in hits}


def fuse_scores(legs: dict[str, Sequence[tuple[str, float]]], weights: dict[str, float]) -> list[FusedHit]:
    """``legs``: leg name -> [(id, raw score)] as the leg returned them. Every leg must have a weight."""
    fused: dict[str, float] = {}
    raw: dict[str, dict[str, float]] = {}
    for name, hits in legs.items():
        w = weights[name]
        for i, norm in _normalised(hits).items():
            fused[i] = fused.get(i, 0.0) + w * norm
        for i, s in hits:
            raw.setdefault(i, {})[name] = s
    ordered = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
    return [FusedHit(i, score, raw[i]) for i, score in ordered]
