"""The one search use case: run the pipeline, then write what a search leaves behind. Every caller (the
session endpoints, the raw explain search, the v1 search) gets a trace; POST /v2/searches also a session,
written with the trace's outbox row in one statement."""

from __future__ import annotations

import time

from elf_config import ElfConfig
from elf_kernel.context import RequestContext
from traces.services.enqueue import enqueue_trace

from .pipeline import SearchOutcome, SearchRequest, run_search
from .sessions import create_session
from .trace import trace_payload


def search(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest, open_session: bool = False) -> SearchOutcome:
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
