"""Rerank with cache support (spec v2 section 13 step 14).

Scores are cached per query and candidate signature ``[(chunk_id, note_updated_at_iso), ...]``: an edited
note changes its updated_at and so the key, which keeps scores of stale snippets from being reused. A failed
rerank call never fails the search: the result has no scores and says why, and the caller keeps the
retrieval order.

This is the path of HTTP rerank providers. planned_search with the local reranker does not come here: it
scores with stored vectors (search.services.stored_rerank).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from elf_config import ElfConfig
from elf_domain.cache_keys import rerank_cache_key
from elf_infra.providers.errors import ProviderError
from elf_infra.providers.factory import build_rerank
from search.services.llm_cache import CACHE_KIND_RERANK, cache_get, cache_put

log = logging.getLogger(__name__)


METHOD_PROVIDER, METHOD_STORED_VECTORS = "provider", "stored_vectors"


@dataclass(frozen=True)
class RerankResult:
    """``scores`` is aligned to the docs, or None when the provider failed (``error`` says why). ``method``:
    ``provider`` (a rerank provider call or its cached scores, ``rerank_with_cache``) or ``stored_vectors``
    (the local reranker's formula on stored note vectors, search.services.stored_rerank: never cached;
    ``called`` then says the ``embedded_docs`` docs without a stored vector were embedded)."""

    scores: list[float] | None
    cache_hit: bool
    called: bool
    error: str | None = None
    method: str = METHOD_PROVIDER
    embedded_docs: int = 0

    def trace(self) -> dict:
        """The rerank stage's payload keys for this result."""
        out = {"method": self.method, "cache_hit": self.cache_hit, "called": self.called, "error": self.error}
        if self.method == METHOD_STORED_VECTORS:
            out["embedded_docs"] = self.embedded_docs
        return out


def rerank_with_cache(
    cfg: ElfConfig, query: str, docs: list[str], signature: Sequence[tuple[Hashable, str]]
) -> RerankResult:
    """Scores of ``docs`` for ``query`` (trimmed): from the cache when ``search.cache.enabled`` holds a live
    entry for this query and ``signature`` (one ``(chunk_id, note_updated_at_iso)`` per doc, same order),
    else from one ``rerank`` call, cached for ``search.cache.rerank_ttl_days`` (when it fits
    ``max_payload_bytes``). No docs: no scores to compute, no call."""
    if len(signature) != len(docs):
        raise ValueError(f"signature has {len(signature)} entries for {len(docs)} docs")
    if not docs:
        return RerankResult(scores=[], cache_hit=False, called=False)

    original = query.strip()
    provider, cache = cfg.providers.rerank, cfg.search.cache
    key = rerank_cache_key(query=original, provider_id=provider.provider_id, model=provider.model, candidates=signature)
    if cache.enabled:
        cached = _cached_scores(cache_get(CACHE_KIND_RERANK, key), len(docs))
        if cached is not None:
            return RerankResult(scores=cached, cache_hit=True, called=False)

    try:
        scores = build_rerank(cfg).rerank(original, docs)
    except ProviderError as exc:
        log.warning("search rerank failed; keeping the retrieval order: %s", exc)
        return RerankResult(scores=None, cache_hit=False, called=True, error=str(exc))

    if cache.enabled:
        cache_put(
            CACHE_KIND_RERANK,
            key,
            {"scores": scores},
            ttl_days=cache.rerank_ttl_days,
            max_payload_bytes=cache.max_payload_bytes,
        )
    return RerankResult(scores=scores, cache_hit=False, called=True)


def _cached_scores(payload: dict[str, Any] | None, doc_count: int) -> list[float] | None:
    # An entry of another shape (hand-edited, or written by a buggy build) is a miss, not a crash.
    scores = payload.get("scores") if payload is not None else None
    if not isinstance(scores, list) or len(scores) != doc_count:
        return None
    if not all(type(s) in (int, float) and math.isfinite(s) for s in scores):
        return None
    return [float(s) for s in scores]
