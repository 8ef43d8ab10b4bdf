"""The per-process LRU of query vectors (search.services.recall.QueryVectorCache): one embedding call for the
misses only, never a vector of another embedding_version, bounded size."""

from __future__ import annotations

from search.services.recall import QueryVectorCache


class CountingEmbedder:
    def __init__(self):
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]


def test_misses_are_embedded_in_one_call_and_hits_not_at_all():
    cache, emb = QueryVectorCache(size=8), CountingEmbedder()
    first = cache.embed(emb, "v1", ["alpha", "beta"])
    again = cache.embed(emb, "v1", ["beta", "gamma", "alpha", "gamma"])
    assert emb.calls == [["alpha", "beta"], ["gamma"]]  # a duplicate in one request is embedded once
    assert again == [first[1], emb.embed(["gamma"])[0], first[0], emb.embed(["gamma"])[0]]


def test_a_new_embedding_version_never_meets_an_old_vector():
    cache, emb = QueryVectorCache(size=8), CountingEmbedder()
    cache.embed(emb, "v1", ["alpha"])
    cache.embed(emb, "v2", ["alpha"])
    assert emb.calls == [["alpha"], ["alpha"]]


def test_least_recently_used_is_evicted_first():
    cache, emb = QueryVectorCache(size=2), CountingEmbedder()
    cache.embed(emb, "v1", ["a1"])
    cache.embed(emb, "v1", ["b2"])
    cache.embed(emb, "v1", ["a1"])  # a1 is now the most recent
    cache.embed(emb, "v1", ["c3"])  # evicts b2
    emb.calls.clear()
    cache.embed(emb, "v1", ["a1", "c3", "b2"])
    assert emb.calls == [["b2"]]
