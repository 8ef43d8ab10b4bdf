"""The search pipeline (spec v2 section 13). ``quick_find``: no expansion, no rerank (the fast path);
``planned_search``: every step. Postgres is authoritative: Qdrant only proposes chunk ids.

``run_search`` reads as the section's steps, one named function each; every step appends its stage to the
trace (``_Stages``) so the explain of a ranking shows what each step did.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from elf_config import ElfConfig
from elf_config.rules import LOCAL_PROVIDER
from elf_domain.speakers import speaker_label
from elf_domain.time_ids import uuid7
from elf_domain.vocabulary import SEARCH_MODES as MODES
from elf_infra.index import collection_facts
from elf_infra.index.search_breadth import dense_params
from elf_infra.providers.factory import build_embedding
from elf_kernel.context import RequestContext
from graph.selectors.note_currency import ONLY_PAST_FACTS
from graph.selectors.relation_context import IS_EVIDENCE, relation_context
from memory.indexing.index import notes_index
from memory.models import MemoryNote, MemoryNoteChunk
from memory.selectors_search import revalidated_chunks
from memory.services.hits import record_hits

from ..domain import conversation, current_facts, ranking, search_filter
from ..domain.expansion import should_expand_dynamic
from ..domain.snippets import ChunkText, stitch_snippet
from ..domain.ties import settle_ties
from . import recall
from .expansion import expand_query
from .rerank import rerank_with_cache
from .stored_rerank import stored_vector_rerank

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
    as_of: datetime | None = None  # asks about that time: superseded facts are not demoted (current_facts)


@dataclass
class ResultItem:
    note: MemoryNote
    chunk: MemoryNoteChunk
    snippet: str
    ranked: ranking.Ranked
    match: dict
    result_handle: uuid.UUID = field(default_factory=uuid7)  # time-ordered: the trace items' key (time_ids)
    relation_context: list[dict] | None = None  # set only when search.graph_context is enabled

    def explain(self) -> dict:
        out = {"match": self.match, "ranking": self.ranked.ranking_explain()}
        if self.relation_context is not None:
            out["relation_context"] = self.relation_context
        return out


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
    timings: dict[str, float] = field(default_factory=dict)  # ms per stage (Server-Timing), see _Stages.timed
    session: Any = None  # the search session (search.models.SearchSession) when the search use case opened one


class _Stages:
    """The trace's stages of one search, and the wall time of its steps (``ms``, for Server-Timing)."""

    TIMED = ("embed", "recall", "validate", "rerank", "rank")  # always reported, 0 when a step did nothing

    def __init__(self) -> None:
        self.stages: list[dict] = []
        self.ms: dict[str, float] = dict.fromkeys(self.TIMED, 0.0)
        self._open: list[float] = []  # per open ``timed`` block: the time its nested blocks took

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Add the block's wall time to ``ms[name]``, less the time of ``timed`` blocks nested in it, so the
        entries never count the same millisecond twice (the embedding inside recall is ``embed``, not ``recall``)."""
        started = time.perf_counter()
        self._open.append(0.0)
        try:
            yield
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            self.ms[name] = self.ms.get(name, 0.0) + elapsed - self._open.pop()
            if self._open:
                self._open[-1] += elapsed

    def add(self, name: str, payload: dict, items: list[dict] | None = None) -> None:
        self.stages.append({"stage_order": len(self.stages) + 1, "stage_name": name, "stage_payload": payload,
                            "items": items or []})

    def payload(self, name: str) -> dict:
        """The payload of the stage added as ``name``, for a later step that reports into it."""
        return next(s["stage_payload"] for s in self.stages if s["stage_name"] == name)


@dataclass
class _Candidates:
    """The Postgres view of the recalled chunks: rows by chunk id, their notes, the chunk ids still in play (in
    retrieval order), every chunk's text of those notes (for the snippets), and each note's speaker label
    (elf_domain.speakers; read by the rerank and the conversation cues)."""

    chunks: dict[str, MemoryNoteChunk]
    notes: dict[uuid.UUID, MemoryNote]
    valid: list[str]
    texts: dict[uuid.UUID, dict[int, ChunkText]] = field(default_factory=dict)
    speakers: dict[uuid.UUID, str | None] = field(default_factory=dict)

    def note_of(self, cid: str) -> MemoryNote:
        return self.notes[self.chunks[cid].note_id]


def run_search(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest) -> SearchOutcome:
    started = time.perf_counter()
    stages = _Stages()
    allowed = list(cfg.scopes.read_profiles[req.read_profile])
    limit = (search_filter.effective_candidate_k(req.candidate_k, req.top_k) if req.filter_expr is not None
             else req.candidate_k)
    with stages.timed("recall"):
        recall_queries = _recaller(cfg, ctx, allowed, limit, stages)
        mode, queries, hits = _expand_and_recall(cfg, req, recall_queries, stages)
        fused = _fuse(cfg, req, hits, limit, stages)
    past = current_facts.past_query(req.query, as_of=req.as_of, now=timezone.now())
    with stages.timed("validate"):
        marks = ((IS_EVIDENCE,) if cfg.search.relation_context_on else ()) + (() if past else (ONLY_PAST_FACTS,))
        cands = _revalidate(ctx, allowed, [cid for cid, _ in fused], marks, stages)
        cands.valid = _settled(cands, fused)
        _filter(req, limit, cands, stages)
        snippets = _snippets(cands)
    with stages.timed("rerank"):
        scores = _rerank(cfg, ctx, req, cands, snippets, stages)
    with stages.timed("rank"):
        items = _rank(cfg, req, cands, snippets, scores, dict(fused), stages, past)
        if cfg.search.relation_context_on and items:
            _relate(cfg, ctx, items)
    if req.record_hits and items:
        with stages.timed("hits"):
            record_hits(req.query, [(i.note.note_id, i.chunk.chunk_id, i.ranked.final_score) for i in items])
    return SearchOutcome(uuid7(), items, queries, mode, len(fused), stages.stages,
                         (time.perf_counter() - started) * 1000, fused, stages.ms)


class _TimedEmbedder:
    """The embedding provider, its calls timed as the ``embed`` step (a query vector cache hit makes none)."""

    def __init__(self, embedder, stages: _Stages):
        self._embedder, self._stages = embedder, stages

    def embed(self, texts: list[str]) -> list:
        with self._stages.timed("embed"):
            return self._embedder.embed(texts)


def _recaller(cfg: ElfConfig, ctx: RequestContext, allowed: list[str], limit: int, stages: _Stages):
    """Step 6 bound to this request: queries -> per-query hits under the caller's payload filter."""
    handle = notes_index(cfg).handle  # ensured once per process, and again if Qdrant answers 404; the query
    # itself goes through the handle's plain-HTTP ``points`` (elf_infra.index.points_query)
    embedder = _TimedEmbedder(build_embedding(cfg), stages)
    corpus = recall.lexical_corpus(ctx)
    context_description = recall.project_context(cfg, ctx)
    return lambda queries: handle.call(lambda client, collection: recall.recall(
        client=handle.points, collection=collection, embedder=embedder, embedding_version=cfg.embedding_version,
        queries=queries, corpus=corpus,
        flt=recall.payload_filter(ctx, allowed, by=collection_facts.facts(client, collection).read_by),
        limit=limit, context_description=context_description,
        dense_params=dense_params(client, collection)))


def _expansion_mode(cfg: ElfConfig, mode: str) -> str:
    return "off" if mode == QUICK_FIND else cfg.search.expansion.mode


def _expand_and_recall(cfg: ElfConfig, req: SearchRequest, recall_queries, stages: _Stages):
    """Steps 3-6: expansion (off / always / dynamic after a baseline recall), then recall of every query not
    recalled yet. Returns the expansion mode, the queries and their hits. Dynamic mode judges the baseline by
    its best dense cosine similarity (see should_expand_dynamic), which the stage names."""
    mode = _expansion_mode(cfg, req.mode)
    hits, queries, expansion_info = [], [req.query], {"mode": mode, "expanded": False}
    if mode == "dynamic":
        hits = recall_queries([req.query])
        dyn, baseline = cfg.search.dynamic, hits[0]
        expand = should_expand_dynamic(candidate_count=len(baseline.chunk_ids),
                                       baseline_top_score=baseline.top_dense_score,
                                       min_candidates=dyn.min_candidates, min_top_score=dyn.min_top_score)
        expansion_info.update(baseline_candidates=len(baseline.chunk_ids),
                              baseline_top_score=baseline.top_dense_score, baseline_score_kind="dense_cosine",
                              min_candidates=dyn.min_candidates, min_top_score=dyn.min_top_score)
    else:
        expand = mode == "always"
    if expand:
        with stages.timed("expand"):
            result = expand_query(cfg, req.query)
        queries = result.queries or [req.query]
        expansion_info.update(expanded=True, cache_hit=result.cache_hit, llm_called=result.llm_called,
                              error=result.error)
    expansion_info["queries"] = queries
    stages.add("rewrite.expansion", expansion_info)
    done = {h.query for h in hits}
    hits += recall_queries([q for q in queries if q not in done])
    return mode, queries, [h for h in hits if h.query in queries]


def _fuse(cfg: ElfConfig, req: SearchRequest, hits, limit: int, stages: _Stages) -> list[tuple[str, float]]:
    """Steps 7-9: fusion across queries and the prefilter. The recall stage's ``filter_impact`` is filled in
    by the filter step (supplement section 1: the recall stage of the trajectory carries it)."""
    stages.add(
        "recall.hybrid",
        {
            "limit": limit,
            "queries": [{"query": h.query, "count": len(h.chunk_ids),
                         **({"speaker_leg": h.speaker_leg()} if h.speaker_query else {})} for h in hits],
            "filter_impact": None,
        },
    )
    fused = recall.fuse(hits, prefilter_max=cfg.search.prefilter.max_candidates, candidate_k=req.candidate_k)
    legs = hits[0].legs if hits else {}  # the original query's dense cosine and BM25 score per candidate
    stages.add(
        "fusion",
        {
            "candidate_count": len(fused),
            "within_query": "minmax_convex",
            "across_queries": "rrf" if len(hits) > 1 else None,
        },
        [
            {
                "chunk_id": cid,
                "metrics": {
                    "fusion_score": score,
                    "fusion_rank": i + 1,
                    **{f"{leg}_score": v for leg, v in legs.get(cid, {}).items()},
                },
            }
            for i, (cid, score) in enumerate(fused)
        ],
    )
    stages.add("prefilter", {"max_candidates": cfg.search.prefilter.max_candidates, "kept": len(fused)})
    return fused


def _revalidate(
    ctx: RequestContext, allowed: list[str], chunk_ids: list[str], marks: tuple, stages: _Stages
) -> _Candidates:
    """Step 10: Postgres re-validation (status, TTL, scope, agent, grants) through the one read rule, in one
    round trip that also brings every chunk of the surviving notes (steps 12-13 stitch snippets from them),
    each note's summary and ``marks`` (whether it is graph evidence, for relation_context).
    ``revalidated_chunks`` runs the rule's SQL compiled once per scope list (no queryset built per request)."""
    wanted = set(chunk_ids)
    chunks, notes, texts = {}, {}, {}
    for c in revalidated_chunks(ctx, allowed, chunk_ids, marks):
        texts.setdefault(c.note_id, {})[c.chunk_index] = ChunkText(c.start_offset, c.end_offset, c.text)
        notes.setdefault(c.note_id, c.note)
        if str(c.chunk_id) in wanted:
            chunks[str(c.chunk_id)] = c
    valid = [cid for cid in chunk_ids if cid in chunks]
    stages.add("validate.postgres", {"before": len(chunk_ids), "after": len(valid)})
    return _Candidates(chunks, notes, valid, texts, {i: speaker_label(n.text) for i, n in notes.items()})


def _settled(cands: _Candidates, fused: list[tuple[str, float]]) -> list[str]:
    """The valid candidates in retrieval order, equal fused scores ordered by chunk text and then the note's key
    (two notes may hold the same text: "See you!") (search.domain.ties)."""
    valid = set(cands.valid)
    return settle_ties(
        [h for h in fused if h[0] in valid], lambda cid: (cands.chunks[cid].text, cands.note_of(cid).key or "")
    )


def _note_row(note: MemoryNote) -> dict:
    return {
        "type": note.type,
        "key": note.key,
        "scope": note.scope,
        "agent_id": note.agent_id,
        "importance": note.importance,
        "confidence": note.confidence,
        "updated_at": note.updated_at,
        "expires_at": note.expires_at,
        "hit_count": note.hit_count,
        "last_hit_at": note.last_hit_at,
    }


def _filter(req: SearchRequest, limit: int, cands: _Candidates, stages: _Stages) -> None:
    """Step 11: the filter expression, evaluated in the service on the authoritative rows; its
    ``search_filter_impact/v1`` goes into the recall stage (null there without a filter)."""
    if req.filter_expr is None:
        return
    kept, reasons = [], []
    for cid in cands.valid:
        reason = search_filter.explain_failure(req.filter_expr, _note_row(cands.note_of(cid)))
        (reasons.append(reason) if reason else kept.append(cid))
    impact = search_filter.filter_impact(
        requested_candidate_k=req.candidate_k,
        effective_candidate_k=limit,
        candidate_count_pre=len(cands.valid),
        candidate_count_post=len(kept),
        drop_reasons=reasons,
        raw_filter=req.filter_raw,
    )
    cands.valid = kept
    stages.payload("recall.hybrid")["filter_impact"] = impact


def _snippets(cands: _Candidates) -> dict[str, str]:
    """Steps 12-13: each candidate's neighbour chunks stitched into its snippet."""
    return {
        cid: stitch_snippet(
            cands.chunks[cid].chunk_index, cands.texts[cands.chunks[cid].note_id], max_bytes=SNIPPET_MAX_BYTES
        )
        for cid in cands.valid
    }


def _rerank(
    cfg: ElfConfig,
    ctx: RequestContext,
    req: SearchRequest,
    cands: _Candidates,
    snippets: dict[str, str],
    stages: _Stages,
) -> list[float] | None:
    """Step 14 (planned_search only), with the original query. The local reranker scores from the notes' stored
    vectors and the query vector recall already has (stored_rerank: no embedding, no cache); any other provider
    gets one rerank call, cached by candidate signature. The cache key is the candidate set in chunk-id order,
    so the same candidates hit the cache whatever order Qdrant returned them in; scores are mapped back to the
    retrieval order. The stage's ``method`` says which way was taken."""
    valid = cands.valid
    scores, rerank_info = None, {"skipped": req.mode == QUICK_FIND or not valid}
    if not rerank_info["skipped"]:
        ordered = sorted(valid)
        docs = [snippets[cid] for cid in ordered]
        if cfg.providers.rerank.provider_id == LOCAL_PROVIDER:
            rr = stored_vector_rerank(
                cfg,
                query=req.query,
                context_description=recall.project_context(cfg, ctx),
                note_ids=[cands.chunks[cid].note_id for cid in ordered],
                docs=docs,
                observed=[cands.note_of(cid).observed_at for cid in ordered],
                speakers=[cands.speakers[cands.chunks[cid].note_id] for cid in ordered],
            )
        else:
            signature = [(cid, cands.note_of(cid).updated_at.isoformat()) for cid in ordered]
            rr = rerank_with_cache(cfg, req.query, docs, signature)
        if rr.scores is not None:
            by_chunk = dict(zip(ordered, rr.scores, strict=False))
            scores = [by_chunk[cid] for cid in valid]
        rerank_info.update(rr.trace())
    stages.add(
        "rerank",
        rerank_info,
        [{"chunk_id": cid, "metrics": {"rerank_score": s}} for cid, s in zip(valid, scores or [], strict=False)],
    )
    return scores


def _relate(cfg: ElfConfig, ctx: RequestContext, items: list[ResultItem]) -> None:
    """relation_context: the graph facts each returned note is evidence of (bounded, evidence-bound). Only the
    notes the re-validation marked as evidence of some fact are looked up: none, no round trip."""
    g = cfg.search.graph_context
    evidence = [i.note.note_id for i in items if i.note.is_fact_evidence]
    by_note = (
        relation_context(
            ctx, evidence, max_facts=g.max_facts_per_item, max_evidence=g.max_evidence_notes_per_fact, at=timezone.now()
        )
        if evidence
        else {}
    )
    for item in items:
        item.relation_context = by_note.get(item.note.note_id, [])


def _ranking_params(cfg: ElfConfig) -> ranking.RankingParams:
    ctx_cfg = cfg.context
    return ranking.RankingParams(
        recency_tau_days=cfg.ranking.recency_tau_days,
        tie_breaker_weight=cfg.ranking.tie_breaker_weight,
        scope_boost_weight=(ctx_cfg.scope_boost_weight if ctx_cfg and ctx_cfg.scope_boost_weight else 0.0),
        scope_descriptions=(ctx_cfg.scope_descriptions if ctx_cfg and ctx_cfg.scope_descriptions else {}),
        formula=cfg.ranking.formula,
        speaker_weight=cfg.ranking.speaker_weight,
        episode_pull=cfg.ranking.episode_pull,
    )


def _conversation_cues(
    req: SearchRequest, cands: _Candidates, ranked: list[ranking.Ranked], params: ranking.RankingParams
) -> tuple[list[ranking.Ranked], dict]:
    """Issue 32: the speaker the query names and the episode of a strong match lift their notes
    (search.domain.conversation). Returns the scores and what the rank.score stage reports of it."""
    in_play = {r.candidate.note_id for r in ranked}
    speakers = {i: cands.speakers[i] for i in in_play}
    ranked, named = conversation.speaker_boost(ranked, query=req.query, speakers=speakers,
                                               weight=params.speaker_weight)
    ranked = conversation.episode_pull(ranked, episodes={i: cands.notes[i].observed_at for i in in_play},
                                       share=params.episode_pull)
    return ranked, {"speakers_named": named, "speaker_weight": params.speaker_weight,
                    "episode_pull": params.episode_pull}


def _current_first(
    cands: _Candidates, ranked: list[ranking.Ranked], past: current_facts.PastQuery | None
) -> tuple[list[ranking.Ranked], dict]:
    """Issue 32: a note whose every graph fact is historical (the re-validation's ``only_past_facts`` mark) ranks
    below the others, unless the query asks about the ``past``. Returns the scores and what the rank.score stage
    reports of it (which notes, the penalty, or why none)."""
    in_play = {r.candidate.note_id for r in ranked}
    demoted = set() if past else {i for i in in_play if getattr(cands.notes[i], "only_past_facts", False)}
    info = {
        "past_query": past.as_dict() if past else None,
        "demoted_notes": sorted(str(i) for i in demoted),
        "penalty": current_facts.demotion_penalty(ranked) if demoted else 0.0,
    }
    return current_facts.demote(ranked, demoted), info


def _rank(
    cfg: ElfConfig,
    req: SearchRequest,
    cands: _Candidates,
    snippets: dict[str, str],
    scores: list[float] | None,
    retrieval_scores: dict[str, float],
    stages: _Stages,
    past: current_facts.PastQuery | None = None,
) -> list[ResultItem]:
    """Steps 15-17: relevance by ``ranking.formula``, tie-break, scope boost, the conversation cues
    (``_conversation_cues``), then notes whose facts are all superseded demoted unless the query asks about the
    ``past`` (``_current_first``); aggregate per note by its best chunk; top_k. ``retrieval_scores``: chunk id ->
    fused score (what spec_additive ranks by without rerank)."""
    params = _ranking_params(cfg)
    candidates = [
        ranking.Candidate(
            note_id=cands.chunks[cid].note_id,
            chunk_id=cid,
            scope=cands.note_of(cid).scope,
            importance=cands.note_of(cid).importance,
            updated_at=cands.note_of(cid).updated_at,
            retrieval_score=retrieval_scores[cid],
        )
        for cid in cands.valid
    ]
    ranked = ranking.rank_items(candidates, rerank_scores=scores, query=req.query, now=timezone.now(), params=params)
    ranked, cues = _conversation_cues(req, cands, ranked, params)
    ranked, current = _current_first(cands, ranked, past)
    stages.add(
        "rank.score",
        {
            "formula": params.formula,
            "policy_id": params.policy_id(reranked=scores is not None),
            "conversation": cues,
            "current_facts": current,
        },
        [
            {
                "chunk_id": r.candidate.chunk_id,
                "note_id": str(r.candidate.note_id),
                "metrics": {"final_score": r.final_score, "retrieval_rank": r.retrieval_rank},
            }
            for r in ranked
        ],
    )
    best = ranking.aggregate_by_note(ranked, cfg.scopes.precedence)
    stages.add("aggregate.note", {"notes": len(best)})
    items = []
    for r in best[: req.top_k]:
        note, chunk = cands.notes[r.candidate.note_id], cands.chunks[str(r.candidate.chunk_id)]
        items.append(
            ResultItem(
                note, chunk, snippets[str(chunk.chunk_id)], r, ranking.matched_terms(req.query, note.text, note.key)
            )
        )
    stages.add(
        "select.top_k",
        {"top_k": req.top_k, "returned": len(items)},
        [
            {
                "item_id": str(i.result_handle),
                "note_id": str(i.note.note_id),
                "chunk_id": str(i.chunk.chunk_id),
                "metrics": {"rank": n + 1, "final_score": i.ranked.final_score},
            }
            for n, i in enumerate(items)
        ],
    )
    return items
