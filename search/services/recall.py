"""Candidate recall from Qdrant (spec v2 section 13 steps 6-9): per query one batch of a dense and a BM25
search under the caller's payload filter, fused here in the service by min-max normalised scores
(search.domain.score_fusion; Qdrant does no fusion); then RRF across expanded queries, and the prefilter."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from qdrant_client import models

from elf_domain.speakers import first_person, query_subjects
from elf_domain.time_phrases import observed_ranges
from elf_infra.index import bm25
from elf_infra.index.hybrid import TIE_FETCH, recall_batch
from elf_infra.index.notes_collection import observed_between, read_filter, spoken_by
from elf_infra.index.scope_filter import idf_corpus
from elf_kernel.context import RequestContext

from ..domain.rrf import rrf_fuse
from ..domain.score_fusion import fuse_scores, leg_weights
from ..domain.ties import cut_at_limit

PROJECT_CONTEXT_SEPARATOR = "\n\nProject context:\n"
OBSERVED_LEG = "dense_observed"
SPEAKER_LEG = "dense_speaker"
QUERY_VECTOR_CACHE_SIZE = 2048  # per API process; a 384-dim vector is about 3 KB as a list of floats


class QueryVectorCache:
    """An LRU of query vectors keyed by (embedding_version, dense input text): agents repeat their searches,
    and an embedding is the largest single cost of a quick_find. Thread-safe (gunicorn threads share it); a
    new embedding_version never meets an old vector."""

    def __init__(self, size: int = QUERY_VECTOR_CACHE_SIZE):
        self.size, self._lock, self._items = size, threading.Lock(), OrderedDict()

    def embed(self, embedder, embedding_version: str, texts: list[str]) -> list:
        keys = [(embedding_version, t) for t in texts]
        with self._lock:
            found = {k: self._items[k] for k in keys if k in self._items}
            for k in found:
                self._items.move_to_end(k)
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            for k, vec in zip(missing, embedder.embed([t for _, t in missing]), strict=False):
                found[k] = vec
            with self._lock:
                for k in missing:
                    self._items[k] = found[k]
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        return [found[k] for k in keys]


QUERY_VECTORS = QueryVectorCache()


def payload_filter(ctx: RequestContext, allowed_scopes: list[str], *, by: str) -> models.Filter:
    """The caller's own private notes and the project's shared notes in its project, org-shared notes in the org
    space (notes_collection.read_filter; ``by``: what the collection's points are searched by,
    elf_infra.index.collection_facts); status, TTL and grants are checked in Postgres (selectors.readable_notes)."""
    return read_filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id,
                       scopes=allowed_scopes, by=by)


def lexical_corpus(ctx: RequestContext) -> models.Filter:
    """Whose term statistics the caller's BM25 reads: its project's (elf_infra.index.hybrid says why)."""
    return idf_corpus(ctx.tenant_id, ctx.project_id)


def project_context(cfg, ctx: RequestContext) -> str | None:
    descriptions = (cfg.context.project_descriptions if cfg.context else None) or {}
    return descriptions.get(f"{ctx.tenant_id}:{ctx.project_id}") or descriptions.get(ctx.project_id)


def dense_input(query: str, context_description: str | None) -> str:
    """The text embedded for ``query``'s dense search: the query, with the project context when there is one."""
    return query + PROJECT_CONTEXT_SEPARATOR + context_description if context_description else query


def query_vector(*, embedder, embedding_version: str, query: str, context_description: str | None) -> list:
    """The vector recall searched ``query`` with, from the query vector cache: no embedding call when recall
    embedded it in this process (one, cached, when it did not, e.g. an expansion without the original)."""
    return QUERY_VECTORS.embed(embedder, embedding_version, [dense_input(query, context_description)])[0]


@dataclass(frozen=True)
class QueryHits:
    query: str
    chunk_ids: list[str]
    top_dense_score: float | None  # the dense leg's best cosine similarity (-1..1); None when it found nothing
    legs: dict[str, dict[str, float]]  # chunk id -> {"dense": cosine, "bm25": score, ...} as the legs returned them
    scores: dict[str, float]  # chunk id -> fused score
    subjects: list[str] = field(default_factory=list)  # whom the query asks about (elf_domain.speakers)
    speaker_query: str | None = None  # the query in their words, searched among their notes (leg dense_speaker)

    def speaker_leg(self) -> dict | None:
        """What the recall stage reports of the speaker leg, None when the query asked about no one."""
        return {"subjects": self.subjects, "query": self.speaker_query} if self.speaker_query else None


def recall(*, client, collection: str, embedder, embedding_version: str, queries: list[str], flt: models.Filter,
           corpus: models.Filter, limit: int, context_description: str | None,
           dense_params: models.SearchParams | None = None) -> list[QueryHits]:
    """At most one embedding call for the queries' dense inputs (with the project context suffix) not in the
    query vector cache, BM25 on the raw query; per query one batch of a dense and a BM25 search (ids and scores
    only: Postgres holds what ranking reads; BM25's IDF over ``corpus``, the leg cut without splitting a tie,
    search.domain.ties); when the query names a date, a dense search among the notes observed then (leg
    ``dense_observed``, elf_domain.time_phrases); when it asks about someone ("When did Caroline ...?"), a dense
    search with the query in their words ("When did I ...?") among the notes they said (leg ``dense_speaker``,
    elf_domain.speakers; its vector comes in the same embedding call); dense searches with ``dense_params``
    (elf_infra.index.search_breadth). The legs are fused by normalised scores with their weights
    (search.domain.score_fusion)."""
    subjects = {q: query_subjects(q) for q in queries}
    asked = {q: first_person(q, names) for q, names in subjects.items() if names}
    dense_inputs = [dense_input(q, context_description) for q in [*queries, *asked.values()]]
    vectors = dict(zip(dense_inputs, QUERY_VECTORS.embed(embedder, embedding_version, dense_inputs), strict=True))
    fetched = limit * TIE_FETCH
    out = []
    for query in queries:
        sparse = bm25.embed_query(query)
        ranges = observed_ranges(query)
        speaker = ((vectors[dense_input(asked[query], context_description)], spoken_by(subjects[query]))
                   if query in asked else None)
        found = recall_batch(client, collection, vectors[dense_input(query, context_description)], sparse, flt,
                             limit, with_payload=False, lexical_limit=fetched, idf_corpus=corpus,
                             observed=observed_between(ranges) if ranges else None, dense_params=dense_params,
                             speaker=speaker)
        legs = {"dense": [(str(p.id), p.score) for p in found.dense]}
        if sparse.indices:  # a query of stopwords only has no lexical leg
            legs["bm25"] = cut_at_limit([(str(p.id), p.score) for p in found.bm25], limit, fetched)
        if ranges:
            legs[OBSERVED_LEG] = [(str(p.id), p.score) for p in found.observed]
        if speaker is not None:
            legs[SPEAKER_LEG] = [(str(p.id), p.score) for p in found.speaker]
        fused = fuse_scores(legs, leg_weights(legs))[:limit]
        top_dense = max((p.score for p in found.dense), default=None)
        out.append(QueryHits(query, [h.id for h in fused], top_dense, {h.id: h.legs for h in fused},
                             {h.id: h.score for h in fused}, subjects[query], asked.get(query)))
    return out


def fuse(hits: list[QueryHits], *, prefilter_max: int, candidate_k: int) -> list[tuple[str, float]]:
    """One query keeps its fused scores; several (expansion) are merged by RRF (step 8). Then the prefilter of
    step 9."""
    if len(hits) == 1:
        fused = [(cid, hits[0].scores[cid]) for cid in hits[0].chunk_ids]
    else:
        fused = rrf_fuse([h.chunk_ids for h in hits])
    if 0 < prefilter_max < candidate_k:
        fused = fused[:prefilter_max]
    return fused
