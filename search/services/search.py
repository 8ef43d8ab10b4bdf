"""The one search use case, the entry point every search route calls (POST /v2/searches, the raw explain search
POST /v2/admin/searches/raw, the deprecated POST /v1/memory/search, and elf-mcp's tools through them): the
English gate on the query, its filter parsed, the config's defaults, then the pipeline, then what a search
leaves behind. Every caller gets a trace; POST /v2/searches also a session, written with the trace's outbox row
in one statement."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from elf_config import ElfConfig
from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import InvalidRequest
from traces.services.enqueue import enqueue_trace

from ..domain import search_filter
from .pipeline import SearchOutcome, SearchRequest, run_search
from .sessions import create_session
from .trace import trace_payload


def search(*, cfg: ElfConfig, ctx: RequestContext, query: str, top_k: int | None = None,
           candidate_k: int | None = None, filter_raw: Any = None, mode: str | None = None,
           as_of: datetime | None = None, record_hits: bool = False, open_session: bool = False) -> SearchOutcome:
    """Search as ``ctx`` (its read_profile set) from a request's validated fields (None: not given): the query
    meets the English gate and must not be blank; ``filter_raw`` (a search_filter_expr/v1 envelope) is parsed
    (400 naming the offending element); top_k, candidate_k (at least top_k) and mode default to the config's.
    With ``record_hits`` the returned notes' hits are recorded; with ``open_session`` the outcome carries the new
    search session (``out.session``)."""
    require_english([("$.query", query, NATURAL)])
    if not query.strip():
        raise InvalidRequest("query must not be empty.", ["$.query"])
    expr = None
    if filter_raw is not None:
        try:
            expr = search_filter.parse_filter(filter_raw, "$.filter")
        except search_filter.FilterError as exc:
            raise InvalidRequest(exc.message, [exc.path]) from None
    top_k = top_k if top_k is not None else cfg.memory.top_k
    req = SearchRequest(
        query=query.strip(), read_profile=ctx.read_profile, top_k=top_k,
        candidate_k=max(candidate_k if candidate_k is not None else cfg.memory.candidate_k, top_k),
        mode=mode if mode is not None else cfg.search.default_mode, filter_expr=expr, filter_raw=filter_raw,
        record_hits=record_hits, as_of=as_of,
    )
    return _run_and_record(cfg=cfg, ctx=ctx, req=req, open_session=open_session)


def _run_and_record(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest, open_session: bool) -> SearchOutcome:
    """Search, then write what it leaves behind, best effort for the trace (a trace that cannot be queued never
    fails the search): with ``open_session`` the search session and the trace's outbox row in one statement
    (``out.session``), else the trace's outbox row alone. ``out.timings`` gains ``session`` (building and
    writing the session with its trace row, when opened) and ``trace`` (the trace's payload, and its own
    insert when no session carried it)."""
    out = run_search(cfg=cfg, ctx=ctx, req=req)
    started = time.perf_counter()
    payload = trace_payload(cfg=cfg, ctx=ctx, req=req, out=out)
    write_mode = cfg.search.explain.write_mode or "outbox"
    trace_ms = (time.perf_counter() - started) * 1000
    carried = False
    if open_session:
        started = time.perf_counter()
        out.session, carried = create_session(ctx=ctx, read_profile=req.read_profile, query=req.query,
                                              trace_id=out.trace_id, outcome_items=out.items,
                                              trace=payload if write_mode == "outbox" else None)
        out.timings["session"] = (time.perf_counter() - started) * 1000
    if not carried:
        started = time.perf_counter()
        enqueue_trace(payload, write_mode=write_mode)
        trace_ms += (time.perf_counter() - started) * 1000
    out.timings["trace"] = trace_ms
    return out
