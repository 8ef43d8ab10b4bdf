"""Retrieval metrics with binary relevance. Pure functions, no I/O.

Notation for one query: ``ranked`` is the list of returned item ids, best first, after duplicates were
removed (``dedupe_ranked``: the first rank of an item is kept, so an item split into several notes counts
once); ``expected`` is the set of relevant item ids (never empty); ``ranked[:k]`` its first k entries.

- recall@k = |expected ∩ ranked[:k]| / |expected|
- hit@k    = 1 if expected ∩ ranked[:k] is non-empty, else 0
- MRR@k    = 1 / r for the smallest rank r <= k (1-based) with ranked[r-1] in expected, else 0
- nDCG@k   = DCG@k / IDCG@k with DCG@k = sum over r <= k of rel(r) / log2(r + 1), rel(r) = 1 when
             ranked[r-1] is in expected else 0, and IDCG@k = sum over r <= min(|expected|, k) of
             1 / log2(r + 1) (every relevant item ranked first)

Each is averaged over queries (macro average), overall and per category. A query answered with fewer
than k results is scored on what it got.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence

METRICS = ("recall@5", "recall@10", "hit@10", "mrr@10", "ndcg@10")


def dedupe_ranked(ranked: Iterable[Hashable]) -> list:
    """``ranked`` with repeats removed, each value at its first rank."""
    return list(dict.fromkeys(ranked))


def recall_at(ranked: Sequence, expected: set, k: int) -> float:
    if not expected:
        raise ValueError("expected must not be empty")
    return len(expected.intersection(ranked[:k])) / len(expected)


def hit_at(ranked: Sequence, expected: set, k: int) -> float:
    return 1.0 if expected.intersection(ranked[:k]) else 0.0


def mrr_at(ranked: Sequence, expected: set, k: int) -> float:
    for rank, item in enumerate(ranked[:k], start=1):
        if item in expected:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranked: Sequence, expected: set, k: int) -> float:
    if not expected:
        raise ValueError("expected must not be empty")
    dcg = sum(1.0 / math.log2(rank + 1) for rank, item in enumerate(ranked[:k], start=1) if item in expected)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(expected), k) + 1))
    return dcg / ideal


def query_metrics(ranked: Sequence, expected: Iterable) -> dict[str, float]:
    """Every metric of METRICS for one query; ``ranked`` is deduplicated here."""
    ranked, exp = dedupe_ranked(ranked), set(expected)
    return {
        "recall@5": recall_at(ranked, exp, 5),
        "recall@10": recall_at(ranked, exp, 10),
        "hit@10": hit_at(ranked, exp, 10),
        "mrr@10": mrr_at(ranked, exp, 10),
        "ndcg@10": ndcg_at(ranked, exp, 10),
    }


def mean_metrics(per_query: Sequence[dict[str, float]]) -> dict[str, float]:
    """The macro average of each metric over queries (an empty list gives an empty dict)."""
    if not per_query:
        return {}
    return {m: sum(q[m] for q in per_query) / len(per_query) for m in METRICS}


def by_category(per_query: Sequence[dict[str, float]], categories: Sequence[str]) -> dict[str, dict]:
    """mean_metrics per category name, with the query count as ``queries``; names sorted."""
    groups: dict[str, list] = {}
    for metrics, name in zip(per_query, categories, strict=True):
        groups.setdefault(name, []).append(metrics)
    return {name: {"queries": len(g), **mean_metrics(g)} for name, g in sorted(groups.items())}
