"""Rerank over HTTP (spec section 7.2): Cohere/Jina/vLLM-style ``/rerank`` endpoints."""

from __future__ import annotations

import math
import sys
from typing import Any

from elf_config.schema import RerankProviderConfig

from .errors import ProviderCountMismatchError, ProviderResponseError
from .http_client import JsonPostClient


class HttpRerankProvider:
    """POSTs ``{model, query, documents}``; answers are mapped to scores aligned with ``docs``.

    Accepted answers: ``{"results": [{"index": i, "relevance_score": s}, ...]}`` in any order (every doc
    must be scored; no ``top_n`` is sent, so a subset is an error), or ``{"scores": [s0, s1, ...]}``
    already aligned with the documents.
    """

    def __init__(self, cfg: RerankProviderConfig):
        self.provider_id = cfg.provider_id
        self.model = cfg.model
        self._client = JsonPostClient(
            provider_kind="rerank",
            api_base=cfg.api_base,
            path=cfg.path,
            api_key=cfg.api_key,
            timeout_ms=cfg.timeout_ms,
            default_headers=cfg.default_headers,
        )

    def rerank(self, query: str, docs: list[str]) -> list[float]:
        """One score per doc, aligned to ``docs``; ``[]`` for no docs (no request sent)."""
        if not docs:
            return []
        payload = self._client.post_json({"model": self.model, "query": query, "documents": docs})
        return parse_rerank_response(payload, doc_count=len(docs))


def parse_rerank_response(payload: Any, *, doc_count: int) -> list[float]:
    """Scores aligned to document positions from either accepted answer shape."""
    if isinstance(payload, dict) and isinstance(payload.get("results"), list):
        return _from_results(payload["results"], doc_count)
    if isinstance(payload, dict) and isinstance(payload.get("scores"), list):
        scores = payload["scores"]
        if len(scores) != doc_count:
            raise ProviderCountMismatchError("rerank", doc_count, len(scores))
        if not all(_is_number(s) for s in scores):
            raise ProviderResponseError("rerank", '"scores" must hold only finite numbers')
        return [float(s) for s in scores]
    raise ProviderResponseError("rerank", 'response has neither a "results" list nor a "scores" list')


def _from_results(results: list[Any], doc_count: int) -> list[float]:
    scores: list[float | None] = [None] * doc_count
    for position, item in enumerate(results):
        index = item.get("index") if isinstance(item, dict) else None
        score = item.get("relevance_score") if isinstance(item, dict) else None
        if type(index) is not int or not _is_number(score):
            raise ProviderResponseError(
                "rerank", f'results[{position}] needs an integer "index" and a finite number "relevance_score"'
            )
        if not 0 <= index < doc_count:
            raise ProviderResponseError("rerank", f"results[{position}].index {index} is outside 0..{doc_count - 1}")
        if scores[index] is not None:
            raise ProviderResponseError("rerank", f"document index {index} is scored twice")
        scores[index] = float(score)
    missing = [i for i, s in enumerate(scores) if s is None]
    if missing:
        shown = ", ".join(str(i) for i in missing[:10]) + (", ..." if len(missing) > 10 else "")
        raise ProviderCountMismatchError("rerank", doc_count, doc_count - len(missing), f"no score for index {shown}")
    return [s for s in scores if s is not None]


def _is_number(value: Any) -> bool:
    # type() rather than isinstance(): bool is an int subclass. Infinite/NaN scores would break ranking, and
    # an int beyond float range could not be converted.
    if type(value) is float:
        return math.isfinite(value)
    return type(value) is int and abs(value) < sys.float_info.max
