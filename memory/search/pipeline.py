"""The search pipeline (spec v2 section 13). ``quick_find``: no expansion, no rerank (the fast path);
``planned_search``: every step. Postgres is authoritative: Qdrant only proposes chunk ids."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from blake3 import blake3
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from elf_infra.providers.factory import build_embedding
from elf_project.config import ElfConfig
from elf_project.config.rules import SEARCH_MODES as MODES
from elf_project.context import RequestContext

from ..domain import ranking, search_filter
from ..domain.expansion import should_expand_dynamic
from ..domain.snippets import ChunkText, stitch_snippet
from ..indexing.index import notes_index
from ..models import MemoryHit, MemoryNote, MemoryNoteChunk, NoteStatus
from ..selectors import not_expired, readable_notes
from . import recall
from .expansion import expand_query
from .rerank import rerank_with_cache

QUICK_FIND, PLANNED_SEARCH = MODES
SNIPPET_MAX_BYTES = 2048


@dataclass(frozen=True)
class SearchRequest:
    query: str
    read_profile: str
    top_k: int
    candidate_k: int
    mode: str
    filter_expr: Any = None  # parsed search_filter_expr/v1
    filter_raw: dict | None = None
    record_hits: bool = False


@dataclass
class ResultItem:
    note: MemoryNote
    chunk: MemoryNoteChunk
    snippet: str
    ranked: ranking.Ranked
    match: dict
    result_handle: uuid.UUID = field(default_factory=uuid.uuid4)

    def explain(self) -> dict:
        return {"match": self.match, "ranking": self.ranked.ranking_explain()}


@dataclass
class SearchOutcome:
    trace_id: uuid.UUID
    items: list[ResultItem]
    expanded_queries: list[str]
    expansion_mode: str
    candidate_count: int
    stages: list[dict]
    server_ms: float
    fused: list[tuple[str, float]] = field(default_factory=list)


class _Stages:
    def __init__(self) -> None:
        self.stages: list[dict] = []

    def add(self, name: str, payload: dict, items: list[dict] | None = None) -> None:
        self.stages.append({"stage_order": len(self.stages) + 1, "stage_name": name, "stage_payload": payload,
                            "items": items or []})


def _note_row(note: MemoryNote) -> dict:
    return {"type": note.type, "key": note.key, "scope": note.scope, "agent_id": note.agent_id,
            "importance": note.importance, "confidence": note.confidence, "updated_at": note.updated_at,
            "expires_at": note.expires_at, "hit_count": note.hit_count, "last_hit_at": note.last_hit_at}


def _expansion_mode(cfg: ElfConfig, mode: str) -> str:
    return "off" if mode == QUICK_FIND else cfg.search.expansion.mode


def run_search(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest) -> SearchOutcome:
    started = time.perf_counter()
    stages = _Stages()
    allowed = list(cfg.scopes.read_profiles[req.read_profile])
    index = notes_index(cfg)
    index.ensure()
    embedder = build_embedding(cfg)
    flt = recall.payload_filter(ctx, allowed)
    limit = (search_filter.effective_candidate_k(req.candidate_k, req.top_k) if req.filter_expr is not None
             else req.candidate_k)
    context_description = recall.project_context(cfg, ctx)
    run = lambda queries: recall.recall(  # noqa: E731
        client=index.client, collection=index.collection, embedder=embedder, queries=queries, flt=flt,
        limit=limit, context_description=context_description)

    # Steps 3-4: expansion (off / always / dynamic after a baseline).
    mode = _expansion_mode(cfg, req.mode)
    hits, queries, expansion_info = [], [req.query], {"mode": mode, "expanded": False}
    if mode == "dynamic":
        hits = run([req.query])
        dyn = cfg.search.dynamic
        expand = should_expand_dynamic(candidate_count=len(hits[0].chunk_ids), top1_fusion_score=hits[0].top_score,
                                       min_candidates=dyn.min_candidates, min_top_score=dyn.min_top_score)
        expansion_info.update(baseline_candidates=len(hits[0].chunk_ids), baseline_top_score=hits[0].top_score)
    else:
        expand = mode == "always"
    if expand:
        result = expand_query(cfg, req.query)
        queries = result.queries or [req.query]
        expansion_info.update(expanded=True, cache_hit=result.cache_hit, llm_called=result.llm_called,
                              error=result.error)
    expansion_info["queries"] = queries
    stages.add("rewrite.expansion", expansion_info)

    # Steps 6-9: recall per query, fusion across queries, prefilter.
    done = {h.query for h in hits}
    hits += run([q for q in queries if q not in done])
    hits = [h for h in hits if h.query in queries]
    stages.add("recall.hybrid", {"limit": limit, "queries": [{"query": h.query, "count": len(h.chunk_ids)} for h in hits]})
    fused = recall.fuse(hits, prefilter_max=cfg.search.prefilter.max_candidates, candidate_k=req.candidate_k)
    legs = hits[0].legs if hits else {}  # the original query's dense cosine and BM25 score per candidate
    stages.add("fusion", {"candidate_count": len(fused), "within_query": "minmax_convex",
                          "across_queries": "rrf" if len(hits) > 1 else None},
               [{"chunk_id": cid, "metrics": {"fusion_score": score, "fusion_rank": i + 1,
                                              **{f"{leg}_score": v for leg, v in legs.get(cid, {}).items()}}}
                for i, (cid, score) in enumerate(fused)])
    stages.add("prefilter", {"max_candidates": cfg.search.prefilter.max_candidates, "kept": len(fused)})

    # Step 10: Postgres re-validation (status, TTL, scope, agent, grants).
    chunk_ids = [cid for cid, _ in fused]
    chunks = {str(c.chunk_id): c for c in MemoryNoteChunk.objects.filter(chunk_id__in=chunk_ids)}
    notes = {n.note_id: n for n in not_expired(readable_notes(ctx, scopes=allowed).filter(
        status=NoteStatus.ACTIVE, note_id__in={c.note_id for c in chunks.values()}))}
    valid = [cid for cid in chunk_ids if cid in chunks and chunks[cid].note_id in notes]
    stages.add("validate.postgres", {"before": len(chunk_ids), "after": len(valid)})

    # Step 11: filter expression, evaluated in the service on the authoritative rows.
    if req.filter_expr is not None:
        kept, reasons = [], []
        for cid in valid:
            reason = search_filter.explain_failure(req.filter_expr, _note_row(notes[chunks[cid].note_id]))
            (reasons.append(reason) if reason else kept.append(cid))
        impact = search_filter.filter_impact(
            requested_candidate_k=req.candidate_k, effective_candidate_k=limit, candidate_count_pre=len(valid),
            candidate_count_post=len(kept), drop_reasons=reasons, raw_filter=req.filter_raw)
        valid = kept
        stages.add("filter.expr", {"filter_impact": impact})
    else:
        stages.add("filter.expr", {"filter_impact": None})

    # Steps 12-13: neighbour chunks, stitched snippets.
    by_note: dict = {}
    for c in MemoryNoteChunk.objects.filter(note_id__in={chunks[cid].note_id for cid in valid}):
        by_note.setdefault(c.note_id, {})[c.chunk_index] = ChunkText(c.start_offset, c.end_offset, c.text)
    snippets = {cid: stitch_snippet(chunks[cid].chunk_index, by_note[chunks[cid].note_id], max_bytes=SNIPPET_MAX_BYTES)
                for cid in valid}

    # Step 14: one rerank call with the original query (planned_search only), cached by candidate signature.
    scores, rerank_info = None, {"skipped": req.mode == QUICK_FIND or not valid}
    if not rerank_info["skipped"]:
        # The cache key is the candidate set in chunk-id order, so the same candidates hit the cache whatever
        # order Qdrant returned them in; scores are mapped back to the retrieval order.
        ordered = sorted(valid)
        signature = [(cid, notes[chunks[cid].note_id].updated_at.isoformat()) for cid in ordered]
        rr = rerank_with_cache(cfg, req.query, [snippets[cid] for cid in ordered], signature)
        if rr.scores is not None:
            by_chunk = dict(zip(ordered, rr.scores))
            scores = [by_chunk[cid] for cid in valid]
        rerank_info.update(cache_hit=rr.cache_hit, called=rr.called, error=rr.error)
    stages.add("rerank", rerank_info, [{"chunk_id": cid, "metrics": {"rerank_score": s}}
                                       for cid, s in zip(valid, scores or [])])

    # Steps 15-17: blend, tie-break, scope boost; aggregate per note by its best chunk; top_k.
    now = timezone.now()
    ctx_cfg = cfg.context
    params = ranking.RankingParams(
        recency_tau_days=cfg.ranking.recency_tau_days, tie_breaker_weight=cfg.ranking.tie_breaker_weight,
        scope_boost_weight=(ctx_cfg.scope_boost_weight if ctx_cfg and ctx_cfg.scope_boost_weight else 0.0),
        scope_descriptions=(ctx_cfg.scope_descriptions if ctx_cfg and ctx_cfg.scope_descriptions else {}),
    )
    candidates = [ranking.Candidate(note_id=chunks[cid].note_id, chunk_id=cid, scope=notes[chunks[cid].note_id].scope,
                                    importance=notes[chunks[cid].note_id].importance,
                                    updated_at=notes[chunks[cid].note_id].updated_at) for cid in valid]
    ranked = ranking.rank_items(candidates, rerank_scores=scores, query=req.query, now=now, params=params)
    stages.add("rank.blend", {"policy_id": params.policy_id(reranked=scores is not None)},
               [{"chunk_id": r.candidate.chunk_id, "note_id": str(r.candidate.note_id),
                 "metrics": {"final_score": r.final_score, "retrieval_rank": r.retrieval_rank}} for r in ranked])
    best = ranking.aggregate_by_note(ranked)
    stages.add("aggregate.note", {"notes": len(best)})
    top = best[: req.top_k]
    items = []
    for r in top:
        note, chunk = notes[r.candidate.note_id], chunks[str(r.candidate.chunk_id)]
        items.append(ResultItem(note, chunk, snippets[str(chunk.chunk_id)], r,
                                ranking.matched_terms(req.query, note.text, note.key)))
    stages.add("select.top_k", {"top_k": req.top_k, "returned": len(items)},
               [{"item_id": str(i.result_handle), "note_id": str(i.note.note_id), "chunk_id": str(i.chunk.chunk_id),
                 "metrics": {"rank": n + 1, "final_score": i.ranked.final_score}} for n, i in enumerate(items)])

    if req.record_hits and items:
        record_hits(req.query, [(i.note.note_id, i.chunk.chunk_id, i.ranked.final_score) for i in items])
    return SearchOutcome(uuid.uuid4(), items, queries, mode, len(fused), stages.stages,
                         (time.perf_counter() - started) * 1000, fused)


@transaction.atomic
def record_hits(query: str, hits: list[tuple]) -> None:
    """Step 18: hit_count + 1, last_hit_at and one memory_hits row per (note_id, chunk_id | None, final_score),
    ranked in the given order."""
    now = timezone.now()
    query_hash = blake3(query.strip().encode()).hexdigest()
    MemoryNote.objects.filter(note_id__in=[h[0] for h in hits]).update(hit_count=F("hit_count") + 1, last_hit_at=now)
    MemoryHit.objects.bulk_create([
        MemoryHit(note_id=note_id, chunk_id=chunk_id, query_hash=query_hash, rank=n + 1, final_score=score, ts=now)
        for n, (note_id, chunk_id, score) in enumerate(hits)])


def trace_payload(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest, out: SearchOutcome) -> dict:
    """Step 19: the trace payload (traces/domain/trace_payload.py)."""
    from traces.domain.trace_payload import TRACE_PAYLOAD_SCHEMA, TRACE_VERSION

    now = timezone.now()
    explain_cfg = cfg.search.explain
    return {
        "schema": TRACE_PAYLOAD_SCHEMA,
        "trace": {
            "trace_id": str(out.trace_id), "tenant_id": ctx.tenant_id, "project_id": ctx.project_id,
            "agent_id": ctx.agent_id, "read_profile": req.read_profile, "query": req.query,
            "expansion_mode": out.expansion_mode, "expanded_queries": out.expanded_queries,
            "allowed_scopes": list(cfg.scopes.read_profiles[req.read_profile]), "candidate_count": out.candidate_count,
            "top_k": req.top_k, "trace_version": TRACE_VERSION, "created_at": now.isoformat(),
            "expires_at": (now + timedelta(days=explain_cfg.retention_days)).isoformat(),
            "config_snapshot": {"mode": req.mode, "candidate_k": req.candidate_k, "filter": req.filter_raw,
                                "server_ms": round(out.server_ms, 3), "embedding_version": cfg.embedding_version},
        },
        "items": [{"item_id": str(i.result_handle), "note_id": str(i.note.note_id), "chunk_id": str(i.chunk.chunk_id),
                   "rank": n + 1, "final_score": i.ranked.final_score, "explain": i.explain()}
                  for n, i in enumerate(out.items)],
        "stages": out.stages,
        **_candidates(explain_cfg, out, now),
    }


def _candidates(explain_cfg, out: SearchOutcome, now) -> dict:
    """The fused candidate list, kept only when search.explain.capture_candidates is true."""
    if not explain_cfg.capture_candidates:
        return {"candidates": None, "candidate_expires_at": None}
    days = explain_cfg.candidate_retention_days or explain_cfg.retention_days
    return {
        "candidates": [{"rank": n + 1, "snapshot": {"chunk_id": cid, "fusion_score": score}}
                       for n, (cid, score) in enumerate(out.fused)],
        "candidate_expires_at": (now + timedelta(days=days)).isoformat(),
    }
