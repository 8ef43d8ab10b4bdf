"""Search ranking (spec v2 section 13, steps 15-17; supplement section 4 blend; section 14 explain), pure.

Per candidate chunk, in the fused retrieval order, ``ranking.formula`` chooses the relevance terms; both
formulas then add the same tie-breaker and scope boost:

    rank_blend (default):  final = blend.retrieval + blend.rerank + tie_breaker + context.scope_boost
    spec_additive:         final = rerank_score + tie_breaker + context.scope_boost

- rank_blend (supplement section 4): ``blend.retrieval = w * rank_norm(retrieval_rank, n)`` and
  ``blend.rerank = (1 - w) * rank_norm(rerank_rank, n)`` with ``w = blend_weight(retrieval_rank)``: 0.8 for
  retrieval ranks 1-3, 0.5 for 4-10, 0.2 after, and ``rank_norm(rank, n) = 1 - (rank - 1) / (n - 1)`` (1.0
  when n = 1). Blending ranks rather than raw scores keeps the result independent of the reranker's score
  scale, and the high ``w`` at the top protects the retrieval head from a reranker that disagrees.
  Without rerank (``quick_find``, or a failed rerank call: ``rerank_scores=None``) the retrieval rank is the
  only relevance evidence, so ``blend.retrieval = rank_norm(retrieval_rank, n)`` (full weight) and the
  ``blend.rerank`` term is left out, so that "not reranked" is never confused with "reranked last" (which
  also scores 0). Scaling by ``w`` instead would shrink the relevance gaps past rank 10 to a fifth and let the
  tie-breaker reorder them for no reason.
- spec_additive (v2 section 13 step 15, ``final = rerank_score + tie_breaker_weight * base``): the term
  ``rerank_score`` is the reranker's raw score. Without rerank the step has no rerank score, so the relevance
  term is ``retrieval_score``: the candidate's fused retrieval score (``Candidate.retrieval_score``; in
  quick_find the min-max normalised dense + BM25 fusion of search.domain.score_fusion, in 0..1; after query
  expansion the RRF score across queries).
- ``tie_breaker = tie_breaker_weight * base`` with ``base = (1 + 0.6 * importance) * exp(-age_days /
  recency_tau_days)`` (step 15), age from the note's updated_at (clamped at 0 for timestamps ahead of ``now``).
- ``context.scope_boost`` per step 16 (see ``scope_boost``).

The explain lists only the terms the formula computes (the section 14 example's ``deterministic.*`` terms
are not part of either formula, so they are not listed). ``final_score`` is the left-to-right sum of the
term values, so ``sum(term values) == final_score`` exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from elf_domain.cache_keys import material_hash
from elf_domain.vocabulary import RANKING_FORMULAS, RankingFormula

RANKING_EXPLAIN_SCHEMA = "search_ranking_explain/v2"
POLICY_ID_PREFIX = "ranking_v2:"

TERM_BLEND_RETRIEVAL = "blend.retrieval"
TERM_BLEND_RERANK = "blend.rerank"
TERM_RERANK_SCORE = "rerank_score"
TERM_RETRIEVAL_SCORE = "retrieval_score"
TERM_TIE_BREAKER = "tie_breaker"
TERM_SCOPE_BOOST = "context.scope_boost"

# (last retrieval rank of the band, retrieval weight w); ranks after the last band get BLEND_WEIGHT_TAIL.
BLEND_BANDS: tuple[tuple[int, float], ...] = ((3, 0.8), (10, 0.5))
BLEND_WEIGHT_TAIL = 0.2
IMPORTANCE_FACTOR = 0.6
SECONDS_PER_DAY = 86400.0

_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]+")


def tokens(text: str) -> list[str]:
    """Distinct lowercase ASCII alphanumeric tokens of length >= 2, in order of first occurrence. Any other
    character separates tokens, so ``MongoDB`` never matches ``go`` and ``db_backup`` gives ``db``, ``backup``."""
    seen: dict[str, None] = {}
    for match in _ASCII_ALNUM.finditer(text):
        token = match.group().lower()
        if len(token) >= 2:
            seen.setdefault(token, None)
    return list(seen)


def blend_weight(retrieval_rank: int) -> float:
    """Retrieval share ``w`` of the blend for a 1-based retrieval rank: 0.8 for 1-3, 0.5 for 4-10, 0.2 after."""
    if retrieval_rank < 1:
        raise ValueError("ranks are 1-based")
    for last_rank, weight in BLEND_BANDS:
        if retrieval_rank <= last_rank:
            return weight
    return BLEND_WEIGHT_TAIL


def rank_norm(rank: int, n: int) -> float:
    """``1 - (rank - 1) / (n - 1)`` for a 1-based ``rank`` among ``n`` items: 1.0 for the first, 0.0 for the
    last, and 1.0 for a single item."""
    if not 1 <= rank <= n:
        raise ValueError("rank must be between 1 and n")
    if n == 1:
        return 1.0
    return 1.0 - (rank - 1) / (n - 1)


def recency_base(*, importance: float, age_days: float, recency_tau_days: float) -> float:
    """Step 15's ``base = (1 + 0.6 * importance) * exp(-age_days / recency_tau_days)``."""
    return (1.0 + IMPORTANCE_FACTOR * importance) * math.exp(-age_days / recency_tau_days)


def tie_breaker(*, importance: float, age_days: float, recency_tau_days: float, weight: float) -> float:
    """``weight * base`` (step 15; see ``recency_base``)."""
    return weight * recency_base(importance=importance, age_days=age_days, recency_tau_days=recency_tau_days)


def _scope_boost(query_tokens: Sequence[str], description: str | None, weight: float) -> float:
    if weight <= 0 or not query_tokens or not description:
        return 0.0
    described = set(tokens(description))
    matched = sum(1 for token in query_tokens if token in described)
    return weight * matched / len(query_tokens)


def scope_boost(*, query: str, scope: str, scope_descriptions: Mapping[str, str], weight: float) -> float:
    """Step 16: ``weight * matched / total`` over the query's distinct tokens (see ``tokens``), a token matching
    when it is one of the tokens of ``scope_descriptions[scope]``. 0.0 when ``weight`` is 0, the scope has no
    (or a blank) description, or the query has no tokens."""
    return _scope_boost(tokens(query), scope_descriptions.get(scope), weight)


def matched_terms(query: str, text: str, key: str | None) -> dict[str, list[str]]:
    """``explain.match``: the query's tokens found among the tokens of the note text or key, in query order,
    and the fields (``"text"``, ``"key"``, in that order) where at least one was found."""
    query_tokens = tokens(query)
    fields = {"text": set(tokens(text)), "key": set(tokens(key)) if key else set()}
    return {
        "matched_terms": [t for t in query_tokens if any(t in found for found in fields.values())],
        "matched_fields": [name for name, found in fields.items() if any(t in found for t in query_tokens)],
    }


@dataclass(frozen=True)
class Candidate:
    """A candidate chunk after the consistency checks, with the note fields ranking reads and its fused
    retrieval score (what spec_additive ranks by when there is no rerank score)."""

    note_id: Hashable
    chunk_id: Hashable
    scope: str
    importance: float
    updated_at: datetime
    retrieval_score: float


@dataclass(frozen=True)
class RankingParams:
    """The ranking policy: ``ranking.*`` (``formula`` one of elf_domain.vocabulary.RANKING_FORMULAS) and
    ``context.scope_*`` from elf.toml (``scope_boost_weight`` 0.0 when the config omits it)."""

    recency_tau_days: float
    tie_breaker_weight: float
    scope_boost_weight: float
    scope_descriptions: Mapping[str, str]
    formula: str
    # The conversation cues (search.domain.conversation), 0 = off.
    speaker_weight: float = 0.0
    episode_pull: float = 0.0

    def __post_init__(self) -> None:
        if self.formula not in RANKING_FORMULAS:
            raise ValueError(f"unknown ranking formula {self.formula!r}")

    def _relevance_material(self, reranked: bool) -> dict[str, Any]:
        if self.formula == RankingFormula.SPEC_ADDITIVE:
            return {"score": TERM_RERANK_SCORE if reranked else TERM_RETRIEVAL_SCORE}
        return {"bands": [[last, float(w)] for last, w in BLEND_BANDS], "tail": BLEND_WEIGHT_TAIL,
                "reranked": reranked}

    def policy_id(self, *, reranked: bool) -> str:
        """``ranking_v2:<formula>:`` + the first 16 hex characters of the BLAKE3 hash of every parameter that
        shapes the score: the formula and its relevance inputs (rank_blend: the bands and whether rerank took
        part; spec_additive: which score), the tie-breaker constants and, only when the boost weight is
        positive, the scope descriptions, and the conversation cues' weights when either is positive. Equal
        policies give equal ids across processes."""
        boost_weight = float(self.scope_boost_weight)
        material = {
            "schema": RANKING_EXPLAIN_SCHEMA,
            "formula": self.formula,
            "relevance": self._relevance_material(reranked),
            "tie_breaker": {
                "weight": float(self.tie_breaker_weight),
                "recency_tau_days": float(self.recency_tau_days),
                "importance_factor": IMPORTANCE_FACTOR,
            },
            "scope_boost": {
                "weight": boost_weight,
                "descriptions": dict(self.scope_descriptions) if boost_weight > 0 else {},
            },
        }
        if self.speaker_weight > 0 or self.episode_pull > 0:
            material["conversation"] = {"speaker_weight": float(self.speaker_weight),
                                        "episode_pull": float(self.episode_pull)}
        return f"{POLICY_ID_PREFIX}{self.formula}:{material_hash(material)[:16]}"


@dataclass(frozen=True)
class RankingTerm:
    name: str
    value: float


@dataclass(frozen=True)
class Ranked:
    """A scored candidate. ``rerank_rank`` and ``rerank_score`` are None when rerank was skipped."""

    candidate: Candidate
    retrieval_rank: int
    rerank_rank: int | None
    rerank_score: float | None
    final_score: float
    terms: tuple[RankingTerm, ...]
    policy_id: str

    def ranking_explain(self) -> dict[str, Any]:
        """``explain.ranking`` in the section 14 shape."""
        return {
            "schema": RANKING_EXPLAIN_SCHEMA,
            "policy_id": self.policy_id,
            "final_score": self.final_score,
            "terms": [{"name": t.name, "value": t.value} for t in self.terms],
        }


def _rerank_ranks(scores: Sequence[float]) -> list[int]:
    """1-based rank of each position by score descending, ties by position (retrieval order)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    ranks = [0] * len(scores)
    for rank, i in enumerate(order, start=1):
        ranks[i] = rank
    return ranks


def _relevance_terms(formula: str, candidate: Candidate, *, retrieval_rank: int, n: int,
                     rerank_rank: int | None, rerank_score: float | None) -> list[RankingTerm]:
    """The formula's relevance terms for one candidate (see the module docstring)."""
    if formula == RankingFormula.SPEC_ADDITIVE:
        if rerank_score is None:
            return [RankingTerm(TERM_RETRIEVAL_SCORE, float(candidate.retrieval_score))]
        return [RankingTerm(TERM_RERANK_SCORE, rerank_score)]
    if rerank_rank is None:
        return [RankingTerm(TERM_BLEND_RETRIEVAL, rank_norm(retrieval_rank, n))]
    w = blend_weight(retrieval_rank)
    return [RankingTerm(TERM_BLEND_RETRIEVAL, w * rank_norm(retrieval_rank, n)),
            RankingTerm(TERM_BLEND_RERANK, (1.0 - w) * rank_norm(rerank_rank, n))]


def rank_items(
    items: Sequence[Candidate],
    *,
    rerank_scores: Sequence[float] | None,
    query: str,
    now: datetime,
    params: RankingParams,
) -> list[Ranked]:
    """Score ``items`` (the fused candidate list, best first; position = retrieval rank) as in the module
    docstring, returning them in input order. ``rerank_scores`` are aligned with ``items``; None means rerank
    was skipped (quick_find) or failed. Raises ValueError when the scores do not match the items one to one or
    a score the formula uses is not finite."""
    n = len(items)
    if rerank_scores is not None:
        if len(rerank_scores) != n:
            raise ValueError("rerank_scores must hold one score per item")
        if not all(math.isfinite(s) for s in rerank_scores):
            raise ValueError("rerank scores must be finite")
        rerank_ranks: list[int | None] = list(_rerank_ranks(rerank_scores))
    else:
        rerank_ranks = [None] * n
        if params.formula == RankingFormula.SPEC_ADDITIVE and not all(math.isfinite(c.retrieval_score) for c in items):
            raise ValueError("retrieval scores must be finite")
    policy_id = params.policy_id(reranked=rerank_scores is not None)
    query_tokens = tokens(query)
    boost_by_scope: dict[str, float] = {}

    ranked = []
    for i, candidate in enumerate(items):
        rerank_score = None if rerank_scores is None else float(rerank_scores[i])
        terms = _relevance_terms(params.formula, candidate, retrieval_rank=i + 1, n=n, rerank_rank=rerank_ranks[i],
                                 rerank_score=rerank_score)
        age_days = max(0.0, (now - candidate.updated_at).total_seconds() / SECONDS_PER_DAY)
        terms.append(RankingTerm(TERM_TIE_BREAKER, tie_breaker(
            importance=candidate.importance, age_days=age_days, recency_tau_days=params.recency_tau_days,
            weight=params.tie_breaker_weight)))
        if candidate.scope not in boost_by_scope:
            boost_by_scope[candidate.scope] = _scope_boost(
                query_tokens, params.scope_descriptions.get(candidate.scope), params.scope_boost_weight
            )
        terms.append(RankingTerm(TERM_SCOPE_BOOST, boost_by_scope[candidate.scope]))
        ranked.append(Ranked(candidate=candidate, retrieval_rank=i + 1, rerank_rank=rerank_ranks[i],
                             rerank_score=rerank_score, final_score=sum(t.value for t in terms), terms=tuple(terms),
                             policy_id=policy_id))
    return ranked


def aggregate_by_note(ranked: Sequence[Ranked], scope_precedence: Mapping[str, int] | None = None) -> list[Ranked]:
    """Step 17: keep each note's best chunk (highest final score; on a tie the better retrieval rank), then
    sort by final score descending, ties by ``scope_precedence`` (``scopes.precedence``: the higher scope
    first, an unlisted scope counting 0), then by note_id ascending (compared as text; for UUIDs that is their
    numeric order). The caller takes the top_k."""
    precedence = scope_precedence or {}
    best: dict[Hashable, Ranked] = {}
    for item in ranked:
        current = best.get(item.candidate.note_id)
        if current is None or (item.final_score, -item.retrieval_rank) > (
            current.final_score,
            -current.retrieval_rank,
        ):
            best[item.candidate.note_id] = item
    return sorted(best.values(), key=lambda item: (-item.final_score, -precedence.get(item.candidate.scope, 0),
                                                   str(item.candidate.note_id)))
