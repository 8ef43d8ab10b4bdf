"""Equal scores settled by the data alone, never by ids or storage order, pure (issue 36): the same notes give
the same ranking, run after run and tenant after tenant.

``cut_at_limit``: a lexical leg's candidates cut at the leg's limit without splitting a group of equal scores.

BM25 scores of short texts tie often: two turns that share the query's one matching word and have the same
length score the same. Qdrant returns tied points in the order of its segments, so when a tie group crosses
the limit, which of its points make the cut depends on how the collection happened to be laid out (other
tenants' writes, optimizer merges), and two runs over the same data rank differently.

So the leg asks for ``elf_infra.index.hybrid.TIE_FETCH`` times its limit and keeps the first ``limit`` hits
plus every hit tied with the last of them. When that group may go on past what was fetched (the answer is full
and its last hit still ties), no one can know the whole group, and it is left out whole: the candidates are
then those strictly better. Either way the set depends only on the scores, never on the order among equals.

``settle_ties``: equal fused scores ordered by what the candidates hold, not by their (random) ids.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def cut_at_limit(hits: Sequence[tuple[str, float]], limit: int, fetched: int) -> list[tuple[str, float]]:
    """``hits``: (id, score) best first as the leg returned them, at most ``fetched`` (what it asked for)."""
    if len(hits) <= limit:
        return list(hits)
    edge = hits[limit - 1][1]
    if len(hits) >= fetched and hits[-1][1] == edge:
        return [h for h in hits if h[1] > edge]
    return [h for h in hits if h[1] >= edge]


def settle_ties(ranked: Sequence[tuple[str, float]], content: Callable[[str], Any]) -> list[str]:
    """Ids best first, equal scores ordered by their ``content`` (a chunk's text and its note's key; ids are
    random, so ordering equals by id would order them differently in every copy of the same data), then id (only
    equal content is left to it). Fusion gives equal scores to, for example, two chunks only BM25 found that
    share their BM25 score."""
    return [i for i, _ in sorted(ranked, key=lambda hit: (-hit[1], content(hit[0]), hit[0]))]
