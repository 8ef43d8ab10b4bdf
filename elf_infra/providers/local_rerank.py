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

The formula lives in ``embed_overlap_scores`` alone. ``LocalRerankProvider`` feeds it vectors it embeds
itself (the query and every doc); planned_search does not call the provider: it feeds the same function the
query vector recall already computed and the candidates' note vectors stored in Postgres
(search.services.stored_rerank), so a search embeds no snippet.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from elf_infra.index import bm25

from .base import EmbeddingProvider

EMBEDDING_WEIGHT = 0.5
LEXICAL_WEIGHT = 0.5


def content_terms(text: str) -> set[int]:
    """The distinct BM25 terms of ``text`` (stemmed, stopwords removed), as the index's term ids."""
    return set(bm25.embed_query(text).indices)


def embed_overlap_scores(query: str, query_vector: Sequence[float], docs: Sequence[str],
                         doc_vectors: Sequence[Sequence[float]]) -> list[float]:
    """``EMBEDDING_WEIGHT * cosine(query_vector, doc_vector) + LEXICAL_WEIGHT * overlap(query, doc)`` per doc,
    aligned to ``docs`` (and ``doc_vectors``, one per doc). Vectors need not be unit length: cosine
    normalises them (a zero vector has cosine 0)."""
    if len(doc_vectors) != len(docs):
        raise ValueError(f"{len(doc_vectors)} vectors for {len(docs)} docs")
    if not docs:
        return []
    q = _unit(np.asarray([query_vector], dtype=np.float32))[0]
    cosines = _unit(np.asarray(doc_vectors, dtype=np.float32)) @ q
    query_terms = content_terms(query)
    scores = []
    for doc, cosine in zip(docs, cosines, strict=True):
        overlap = len(query_terms & content_terms(doc)) / len(query_terms) if query_terms else 0.0
        scores.append(EMBEDDING_WEIGHT * float(cosine) + LEXICAL_WEIGHT * overlap)
    return scores


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


class LocalRerankProvider:
    """``RerankProvider`` (``provider_id = "local"``) scoring with ``embedder`` plus lexical overlap."""

    provider_id = "local"

    def __init__(self, model: str, embedder: EmbeddingProvider):
        self.model = model
        self._embedder = embedder

    def rerank(self, query: str, docs: list[str]) -> list[float]:
        """One score per doc, aligned to ``docs``; ``[]`` for no docs. Embeds the query and the docs in one
        call."""
        if not docs:
            return []
        query_vector, *doc_vectors = self._embedder.embed([query, *docs])
        return embed_overlap_scores(query, query_vector, docs, doc_vectors)
