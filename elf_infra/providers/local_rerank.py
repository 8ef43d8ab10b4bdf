"""The offline reranker: embedding cosine fused with lexical overlap. NOT a cross-encoder.

No cross-encoder ships in a PyPI package and nothing may be downloaded at run time, so the local reranker
re-scores candidates with the bi-encoder that produced them plus a lexical signal:

    score = EMBEDDING_WEIGHT * cosine(query, doc) + LEXICAL_WEIGHT * overlap(query, doc)

``overlap`` is the share of the query's distinct content words (lower-cased, stopwords removed) that occur
in the doc. It rewards exact identifiers, names and numbers that a small embedding model blurs. The result
is deterministic. It is an honest default, not a substitute for a real reranker: for that, point
``providers.rerank`` at an HTTP ``/rerank`` endpoint.
"""

from __future__ import annotations

import re

import numpy as np

from .base import EmbeddingProvider

EMBEDDING_WEIGHT = 0.8
LEXICAL_WEIGHT = 0.2

_WORD = re.compile(r"[a-z0-9][a-z0-9_.\-]*[a-z0-9]|[a-z0-9]")
_STOPWORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being am do does did "
    "i me my we our you your he she it its they them their this that these those what which who whom how "
    "when where why not no so than too very can will just should would could has have had about into "
    "over under again there here all any some".split()
)


def content_words(text: str) -> set[str]:
    """Distinct lower-cased words of ``text`` without stopwords (identifiers like ``v1.2`` stay whole)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


class LocalRerankProvider:
    """``RerankProvider`` (``provider_id = "local"``) scoring with ``embedder`` plus lexical overlap."""

    provider_id = "local"

    def __init__(self, model: str, embedder: EmbeddingProvider):
        self.model = model
        self._embedder = embedder

    def rerank(self, query: str, docs: list[str]) -> list[float]:
        """One score per doc, aligned to ``docs``; ``[]`` for no docs."""
        if not docs:
            return []
        vectors = np.asarray(self._embedder.embed([query, *docs]), dtype=np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        cosines = vectors[1:] @ vectors[0]
        query_words = content_words(query)
        scores = []
        for doc, cosine in zip(docs, cosines, strict=True):
            overlap = len(query_words & content_words(doc)) / len(query_words) if query_words else 0.0
            scores.append(EMBEDDING_WEIGHT * float(cosine) + LEXICAL_WEIGHT * overlap)
        return scores
