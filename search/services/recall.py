"""Candidate recall from Qdrant (spec v2 section 13 steps 6-9): per query one batch of a dense and a BM25
search under the caller's payload filter, fused here in the service by min-max normalised scores
(search.domain.score_fusion; Qdrant does no fusion); then RRF across expanded queries, and the prefilter."""

from __future__ import annotations

from dataclasses import dataclass

from qdrant_client import models

from elf_infra.index import bm25
from elf_infra.index.hybrid import dense_and_bm25_query
from elf_infra.index.scope_filter import scope_filter
from elf_kernel.context import RequestContext

from ..domain.rrf import rrf_fuse
from ..domain.score_fusion import EQUAL_WEIGHT, fuse_scores
from memory.models import NoteStatus

PROJECT_CONTEXT_SEPARATOR = "\n\nProject context:\n"


def payload_filter(ctx: RequestContext, allowed_scopes: list[str]) -> models.Filter:
    """tenant, status active (best effort: Postgres re-validates), and per allowed scope its home: the caller's
    own private notes and the project's shared notes in its project, org-shared notes in the org space.
    Grants are checked in Postgres (selectors.readable_notes)."""
    return scope_filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id,
                        scopes=allowed_scopes, status=NoteStatus.ACTIVE)


def project_context(cfg, ctx: RequestContext) -> str | None:
    descriptions = (cfg.context.project_descriptions if cfg.context else None) or {}
    return descriptions.get(f"{ctx.tenant_id}:{ctx.project_id}") or descriptions.get(ctx.project_id)


@dataclass(frozen=True)
class QueryHits:
    query: str
    chunk_ids: list[str]
    payloads: dict[str, dict]
    top_dense_score: float | None  # the dense leg's best cosine similarity (-1..1); None when it found nothing
    legs: dict[str, dict[str, float]]  # chunk id -> {"dense": cosine, "bm25": score} as the legs returned them
    scores: dict[str, float]  # chunk id -> fused score


def recall(*, client, collection: str, embedder, queries: list[str], flt: models.Filter, limit: int,
           context_description: str | None) -> list[QueryHits]:
    """One embedding call for every query's dense input (with the project context suffix), BM25 on the raw
    query; per query one batch of a dense and a BM25 search, fused by normalised scores
    (search.domain.score_fusion)."""
    dense_inputs = [q + PROJECT_CONTEXT_SEPARATOR + context_description if context_description else q for q in queries]
    vectors = embedder.embed(dense_inputs)
    out = []
    for query, vec in zip(queries, vectors):
        sparse = bm25.embed_query(query)
        dense_points, bm25_points = dense_and_bm25_query(client, collection, vec, sparse, flt, limit)
        legs = {"dense": [(str(p.id), p.score) for p in dense_points]}
        weights = {"dense": 1.0}
        if sparse.indices:  # a query of stopwords only has no lexical leg: dense alone decides
            legs["bm25"], weights = [(str(p.id), p.score) for p in bm25_points], {"dense": EQUAL_WEIGHT, "bm25": EQUAL_WEIGHT}
        fused = fuse_scores(legs, weights)[:limit]
        payloads = {str(p.id): p.payload or {} for p in (*dense_points, *bm25_points)}
        top_dense = max((p.score for p in dense_points), default=None)
        out.append(QueryHits(query, [h.id for h in fused], {h.id: payloads[h.id] for h in fused}, top_dense,
                             {h.id: h.legs for h in fused}, {h.id: h.score for h in fused}))
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
