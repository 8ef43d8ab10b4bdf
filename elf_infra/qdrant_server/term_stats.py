"""BM25 document frequencies per IDF corpus, kept by the embedded server so a query does not count them.

A query on a sparse vector with the `idf` modifier may name `params.idf.corpus`: the points whose statistics
give its IDF (the service names the caller's project, one keyword value: `lexical_scope == "<tenant>\\t<project>"`,
elf_infra/index/hybrid.py). qdrant-edge counts that corpus on every request, walking each query term's posting
list through the filter: about 10 ms at 1M points in one project, most of quick_find's Qdrant time (issue 35).

For a corpus named by one keyword value, this module keeps the number of its points that have the vector and
each term's document frequency, and answers such a query itself: each query weight is multiplied by the term's
IDF over the corpus, divided by ln 2, and the request names instead a corpus that admits no point
(`has_id: []`), over which qdrant-edge's IDF is ln((0 - 0 + 0.5) / (0 + 0.5) + 1) = ln 2 for every term. The
scores are qdrant-edge's own to float rounding (tests/infra/test_qdrant_idf_stats.py compares them).

- Kept exact: a kept corpus is built by one scan of its points, holding the collection's write lock; every
  write after it, under the same lock, first reads the points it replaces or deletes and moves the counts by
  the difference. A write whose outcome is not known in advance (a conditional upsert) forgets every corpus.
- Built in the background on a corpus's first query; until then, and for corpora under `min_points` points
  (which cost qdrant-edge little), requests go to qdrant-edge unchanged.
- Bounded: at most `max_terms` (corpus, term) counts; the least recently queried corpora are dropped first.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import qdrant_edge as qe

log = logging.getLogger(__name__)

LN2 = math.log(2.0)
NO_POINT: dict[str, Any] = {"must": [{"has_id": []}]}  # the corpus whose IDF is ln 2 for every term
# Points per scroll page of a scan (a corpus build, a write reading the points it replaces). qdrant-edge holds the
# GIL through a scroll call, and a scan yields it after each page: a page of 2,000 held it 10-25 ms at a time and
# the server's request threads waited for whole pages, so quick_finds during a 100k build took up to 400 ms; a
# page of 200 holds it about 1 ms, and the whole scan took no longer (0.54 s against 0.81 for 100k points).
SCAN_PAGE = 200
Key = tuple[str, str, str]  # (sparse vector name, payload field, keyword value)


@dataclass(frozen=True)
class IdfStatsPolicy:
    min_points: int = 20_000  # corpora smaller than this are left to qdrant-edge
    max_terms: int = 5_000_000  # (corpus, term) counts kept in all, per collection
    recheck_s: float = 60.0  # a corpus found too small is counted again after this long


@dataclass(frozen=True)
class StatsWrite:
    """What a write does to points, for the kept corpora: the ids it replaces or deletes, the filter it deletes
    by, the points it adds; `unknown` when its effect depends on stored points (a conditional upsert)."""
    ids: list[Any] = field(default_factory=list)
    filter: Any = None
    added: list[qe.Point] = field(default_factory=list)
    unknown: bool = False

    @classmethod
    def upsert(cls, points: list[qe.Point], *, conditional: bool) -> StatsWrite:
        """An upsert of `points`: an id given twice is one point, its last one (as the shard applies them)."""
        last = {point.id: point for point in points}
        return cls(ids=list(last), added=list(last.values()), unknown=conditional)

    @classmethod
    def delete(cls, ids: list[Any]) -> StatsWrite:
        """A delete by ids: an id given twice removes one point."""
        return cls(ids=list(dict.fromkeys(ids)))


def idf(points: int, df: int) -> float:
    """Qdrant's BM25 IDF of a term found in `df` of a corpus's `points` points."""
    return math.log((points - df + 0.5) / (df + 0.5) + 1.0)


@dataclass
class _Corpus:
    points: int = 0
    df: dict[int, int] = field(default_factory=dict)
    used: float = field(default_factory=time.monotonic)

    def count(self, vector: qe.SparseVector, sign: int) -> None:
        self.points += sign
        df = self.df
        for term in vector.indices:
            n = df.get(term, 0) + sign
            if n:
                df[term] = n
            else:
                del df[term]


def _no_nones(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if v is not None and v != []}
    return value


def _one_keyword(corpus: Any) -> tuple[str, str] | None:
    """(field, value) when the corpus filter is exactly one keyword match, else None."""
    corpus = _no_nones(corpus)
    if not isinstance(corpus, dict) or set(corpus) != {"must"} or not isinstance(corpus["must"], list):
        return None
    if len(corpus["must"]) != 1:
        return None
    cond = _no_nones(corpus["must"][0])
    if not isinstance(cond, dict):
        return None
    match = _no_nones(cond.get("match"))
    if set(cond) != {"key", "match"} or not isinstance(match, dict) or set(match) != {"value"}:
        return None
    if not isinstance(cond["key"], str) or not isinstance(match["value"], str):
        return None
    return cond["key"], match["value"]


def _sparse_query(query: Any) -> tuple[dict[str, Any], str | None] | None:
    """The query's sparse vector and the key it sits under (`nearest` or None for a bare vector)."""
    if isinstance(query, dict) and set(query) == {"nearest"}:
        inner = _sparse_query(query["nearest"])
        return (inner[0], "nearest") if inner and inner[1] is None else None
    if isinstance(query, dict) and set(_no_nones(query)) == {"indices", "values"}:
        indices, values = query["indices"], query["values"]
        if isinstance(indices, list) and isinstance(values, list) and len(indices) == len(values):
            return query, None
    return None


def _holds(payload: dict[str, Any] | None, key: str, value: str) -> bool:
    got = (payload or {}).get(key)
    return got == value or (isinstance(got, list) and value in got)


class TermStats:
    """The kept corpora of one collection. `scan(key)` yields the points of a corpus (called with the write lock
    held, by `build`); `count(key)` is the corpus's number of points."""

    def __init__(self, idf_vectors: Iterable[str], policy: IdfStatsPolicy) -> None:
        self.idf_vectors = frozenset(idf_vectors)
        self.policy = policy
        self._lock = threading.Lock()
        self._kept: dict[Key, _Corpus] = {}
        self._small: dict[Key, float] = {}  # corpora found under min_points: until when to believe it
        self._wanted: set[Key] = set()  # corpora queried and neither kept, being built nor known small
        self._building: set[Key] = set()
        self.wake = threading.Event()  # set when a corpus is wanted

    # --- queries -------------------------------------------------------------------------------
    def rewrite(self, request: Any) -> Any:
        """The request (a REST query or prefetch body) with the IDF of every kept corpus applied to its query
        weights; the same object when nothing applies."""
        if not isinstance(request, dict) or not self.idf_vectors:
            return request
        out = request
        prefetch = request.get("prefetch")
        if prefetch is not None:
            items = prefetch if isinstance(prefetch, list) else [prefetch]
            rewritten = [self.rewrite(p) for p in items]
            if any(a is not b for a, b in zip(rewritten, items, strict=True)):
                out = {**request, "prefetch": rewritten if isinstance(prefetch, list) else rewritten[0]}
        return self._rewrite_one(out)

    def _rewrite_one(self, request: dict[str, Any]) -> dict[str, Any]:
        params, using = request.get("params"), request.get("using")
        if using not in self.idf_vectors or not isinstance(params, dict) or not isinstance(params.get("idf"), dict):
            return request
        named, sparse = params["idf"], _sparse_query(request.get("query"))
        where = _one_keyword(named.get("corpus")) if set(named) == {"corpus"} else None
        if where is None or sparse is None:
            return request
        key = (using, *where)
        with self._lock:
            corpus = self._kept.get(key)
            if corpus is None:
                self._want(key)
                return request
            corpus.used = time.monotonic()
            vector, wrap = sparse
            try:
                weights = [float(w) * idf(corpus.points, corpus.df.get(t, 0)) / LN2
                           for t, w in zip(vector["indices"], vector["values"], strict=True)]
            except (TypeError, ValueError):  # not a sparse vector: build_query_request answers 400
                return request
        query: dict[str, Any] = {"indices": vector["indices"], "values": weights}
        return {**request, "query": {wrap: query} if wrap else query, "params": {**params, "idf": {"corpus": NO_POINT}}}

    def _want(self, key: Key) -> None:
        if key in self._wanted or key in self._building or self._small.get(key, 0.0) > time.monotonic():
            return
        self._wanted.add(key)
        self.wake.set()

    def describe(self) -> dict[str, Any]:
        """The kept corpora (with their points and terms), those being built and those wanted: the embedded
        server's GET /collections/{name}/idf_corpora, for operators and for benches waiting for a build."""
        def name(key: Key) -> dict[str, str]:
            return {"vector": key[0], "key": key[1], "value": key[2]}
        with self._lock:
            kept = [{**name(k), "points": c.points, "terms": len(c.df)} for k, c in self._kept.items()]
            return {"min_points": self.policy.min_points, "max_terms": self.policy.max_terms, "kept": kept,
                    "building": [name(k) for k in sorted(self._building)],
                    "wanted": [name(k) for k in sorted(self._wanted)]}

    # --- building ------------------------------------------------------------------------------
    def take_wanted(self) -> list[Key]:
        """The corpora queried since the last call, to build (each then `build` once)."""
        with self._lock:
            wanted, self._wanted = list(self._wanted), set()
            self._building.update(wanted)
            self.wake.clear()
            return wanted

    def build(self, key: Key, count: Callable[[Key], int], scan: Callable[[Key], Iterator[qe.Record]]) -> None:
        """Build a wanted corpus (caller holds the collection's write lock), or note that it is too small."""
        try:
            self._build(key, count, scan)
        finally:
            with self._lock:
                self._building.discard(key)

    def _build(self, key: Key, count: Callable[[Key], int], scan: Callable[[Key], Iterator[qe.Record]]) -> None:
        if count(key) < self.policy.min_points:
            with self._lock:
                self._small[key] = time.monotonic() + self.policy.recheck_s
            return
        started, corpus, vector = time.monotonic(), _Corpus(), key[0]
        for record in scan(key):
            sparse = (record.vector or {}).get(vector)
            if sparse is not None:
                corpus.count(sparse, +1)
        with self._lock:
            self._kept[key] = corpus
            self._evict(keep=key)
        log.info("IDF corpus %s=%r of %s: %d points, %d terms counted in %.1f s", key[1], key[2], vector,
                 corpus.points, len(corpus.df), time.monotonic() - started)

    def _evict(self, keep: Key) -> None:
        total = sum(len(c.df) for c in self._kept.values())
        for key in sorted(self._kept, key=lambda k: self._kept[k].used):
            if total <= self.policy.max_terms or key == keep:
                break
            total -= len(self._kept.pop(key).df)
            log.info("IDF corpus %s=%r of %s dropped (over %d terms kept)", key[1], key[2], key[0],
                     self.policy.max_terms)

    # --- writes (the caller holds the collection's write lock) --------------------------------
    @property
    def tracking(self) -> bool:
        return bool(self._kept)

    def fields(self) -> tuple[list[str], list[str]]:
        """The payload fields and vectors a write must read from the points it replaces."""
        with self._lock:
            return sorted({k[1] for k in self._kept}), sorted({k[0] for k in self._kept})

    def move(self, records: Iterable[Any], sign: int) -> None:
        """Count points in (+1) or out (-1) of every kept corpus they belong to (`Record`s or `Point`s)."""
        with self._lock:
            kept = list(self._kept.items())
            for record in records:
                vectors = record.vector if isinstance(record.vector, dict) else {}
                for (vector, key, value), corpus in kept:
                    sparse = vectors.get(vector)
                    if sparse is not None and _holds(record.payload, key, value):
                        corpus.count(sparse, sign)

    def forget_all(self) -> None:
        """Drop every kept corpus (after a write whose effect on them is not known); they are built again."""
        with self._lock:
            self._kept.clear()
