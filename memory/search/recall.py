"""Candidate recall from Qdrant (spec v2 section 13 steps 6-9): per query a dense + BM25 prefetch under
the caller's payload filter, fused by Qdrant with RRF; then RRF across queries and the prefilter."""

from __future__ import annotations

from dataclasses import dataclass

from qdrant_client import models

from elf_infra.index import bm25
from elf_infra.index.notes_collection import hybrid_query
from elf_project.context import RequestContext

from ..domain.rrf import rrf_fuse
from ..domain.spaces import home_project
from ..models import NoteStatus, Scope

PROJECT_CONTEXT_SEPARATOR = "\n\nProject context:\n"


def payload_filter(ctx: RequestContext, allowed_scopes: list[str]) -> models.Filter:
    """tenant, status active (best effort: Postgres re-validates), and per allowed scope its home: the caller's
    own private notes and the project's shared notes in its project, org-shared notes in the org space.
    Grants are checked in Postgres (selectors.readable_notes)."""
    match = lambda key, value: models.FieldCondition(key=key, match=models.MatchValue(value=value))  # noqa: E731
    should: list = []
    for scope in allowed_scopes:
        must = [match("scope", scope), match("project_id", home_project(ctx.project_id, scope))]
        if scope == Scope.AGENT_PRIVATE:
            must.append(match("agent_id", ctx.agent_id))
        should.append(models.Filter(must=must))
    return models.Filter(
        must=[match("tenant_id", ctx.tenant_id), match("status", NoteStatus.ACTIVE)],
        should=should or [match("scope", "__none__")],
    )


def project_context(cfg, ctx: RequestContext) -> str | None:
    descriptions = (cfg.context.project_descriptions if cfg.context else None) or {}
    return descriptions.get(f"{ctx.tenant_id}:{ctx.project_id}") or descriptions.get(ctx.project_id)


@dataclass(frozen=True)
class QueryHits:
    query: str
    chunk_ids: list[str]
    payloads: dict[str, dict]
    top_score: float | None


def recall(*, client, collection: str, embedder, queries: list[str], flt: models.Filter, limit: int,
           context_description: str | None) -> list[QueryHits]:
    """One embedding call for every query's dense input (with the project context suffix), BM25 on the raw
    query, one hybrid query per query."""
    dense_inputs = [q + PROJECT_CONTEXT_SEPARATOR + context_description if context_description else q for q in queries]
    vectors = embedder.embed(dense_inputs)
    out = []
    for query, vec in zip(queries, vectors):
        # RRF scores tie often (dense rank 1 + BM25 rank 3 equals the reverse); ties go by chunk id so the same
        # search always ranks the same way, whatever order the index returned them in.
        points = sorted(hybrid_query(client, collection, vec, bm25.embed_query(query), flt, limit),
                        key=lambda p: (-p.score, str(p.id)))
        out.append(QueryHits(query, [str(p.id) for p in points], {str(p.id): p.payload or {} for p in points},
                             points[0].score if points else None))
    return out


def fuse(hits: list[QueryHits], *, prefilter_max: int, candidate_k: int) -> list[tuple[str, float]]:
    """RRF across queries (a single query keeps Qdrant's order), then the prefilter of step 9."""
    fused = rrf_fuse([h.chunk_ids for h in hits])
    if 0 < prefilter_max < candidate_k:
        fused = fused[:prefilter_max]
    return fused
