"""The offline reranker: embedding cosine fused with stemmed lexical overlap. NOT a cross-encoder.

No cross-encoder ships in a PyPI package and nothing may be downloaded at run time, so the local reranker
re-scores candidates with the bi-encoder that produced them plus a lexical signal, weighted equally (the
same no-tuning choice as the retrieval fusion, search.domain.score_fusion):

    score = EMBEDDING_WEIGHT * cosine(query, doc) + LEXICAL_WEIGHT * overlap(query, doc)

``overlap`` is the share of the query's distinct terms that occur in the doc, with the terms of the BM25
index: Qdrant's tokenizer, English stopwords removed, Snowball-stemmed (so "went to a support group"
matches "support groups"). It rewards names, numbers and exact words that a small embedding model blurs.
With 0.8/0.2 and unstemmed words the reranker leaned on the weaker embedding and undid retrieval's
lexical evidence (LoCoMo recall@10 fell below quick_find's); see docs/benchmarks.md. The result is
deterministic. It is an honest default, not a substitute for a real reranker: for that, point
``providers.rerank`` at an HTTP ``/rerank`` endpoint.
"""

from __future__ import annotations

import numpy as np

from elf_infra.index import bm25

from .base import EmbeddingProvider

EMBEDDING_WEIGHT = 0.5
LEXICAL_WEIGHT = 0.5


def content_terms(text: str) -> set[int]:
    """The distinct BM25 terms of ``text`` (stemmed, stopwords removed), as the index's term ids."""
    return set(bm25.embed_query(text).indices)


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
        query_terms = content_terms(query)
        scores = []
        for doc, cosine in zip(docs, cosines, strict=True):
            overlap = len(query_terms & content_terms(doc)) / len(query_terms) if query_terms else 0.0
            scores.append(EMBEDDING_WEIGHT * float(cosine) + LEXICAL_WEIGHT * overlap)
        return scores
