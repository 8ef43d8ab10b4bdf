"""Reciprocal rank fusion across the candidate lists of the expanded queries (spec v2 section 13, step 8), pure.

Each query (the original and each LLM variant) gives a list of chunk ids, best first, already fused by the
service from its dense and BM25 legs (min-max normalised scores, ``score_fusion``). ``rrf_fuse`` merges those lists: an
id at 1-based rank ``r`` in list
``i`` contributes ``weights[i] / (k + r)``; an id's score is the sum over the lists that hold it.

Why ``k = 60`` here when Qdrant's own RRF defaults to ``k = 2`` (used for documents' L0 search): inside one
query two unlike legs are fused, where a small ``k`` (or, for notes, score fusion) lets a leg's clear top hit
lead. Across expanded queries the lists are paraphrases of
one intent and overlap heavily, so agreement between them is the stronger signal. A large ``k`` flattens
the per-rank curve and rewards consensus: with ``k = 60`` an id ranked 5th by two queries (2/65 = 0.031)
beats one ranked 1st by a single query (1/61 = 0.016), whereas with ``k = 2`` the lone top hit would win
(1/3 = 0.333 against 2/7 = 0.286). That keeps one drifting LLM variant from pushing its own top hit above
what the original query and the other variants agree on. 60 is the value of the original RRF paper
(Cormack, Clarke and Buettcher, SIGIR 2009), which found it robust across collections.

Fused scores are small (at most ``sum(weights) / (k + 1)``), so thresholds on them (the optional
prefilter) are relative to the list, never absolute.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

DEFAULT_RRF_K = 60

Id = TypeVar("Id", bound=Hashable)


def rrf_fuse(
    rankings: Sequence[Sequence[Id]], *, k: int = DEFAULT_RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[Id, float]]:
    """Fuse ranked id lists (best first) into ``[(id, score)]``, score descending.

    Score of an id: ``sum(weights[i] / (k + rank_i))`` over the lists ``i`` holding it, ``rank_i`` 1-based.
    An id repeated within one list counts once, at its best rank. ``weights`` defaults to 1.0 per list.
    Ties keep the order of first appearance, reading list 0 top to bottom, then list 1, and so on, so the
    original query's list (list 0 by convention) decides ties and the result is deterministic.

    Raises ValueError when ``k`` is negative, or ``weights`` is not one finite non-negative number per list.
    """
    if k < 0:
        raise ValueError("rrf k must be zero or greater")
    if weights is None:
        weights = [1.0] * len(rankings)
    elif len(weights) != len(rankings):
        raise ValueError("rrf needs exactly one weight per ranking")
    elif any(not math.isfinite(w) or w < 0 for w in weights):
        raise ValueError("rrf weights must be finite and non-negative")

    scores: dict[Id, float] = {}  # insertion order = order of first appearance
    for ranking, weight in zip(rankings, weights, strict=False):
        seen: set[Id] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    # sorted() is stable, so equal scores stay in first-appearance order.
    return sorted(scores.items(), key=lambda pair: -pair[1])
