"""The one search use case: run the pipeline, then write what a search leaves behind. Every caller (the
session endpoints, the raw explain search, the v1 search) gets a trace; POST /v2/searches also a session."""

from __future__ import annotations

import time

from django.db import transaction

from elf_config import ElfConfig
from elf_kernel.context import RequestContext
from traces.services.enqueue import enqueue_trace

from .pipeline import SearchOutcome, SearchRequest, run_search
from .sessions import create_session
from .trace import trace_payload


def search(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest, open_session: bool = False) -> SearchOutcome:
    """Search, then in one transaction (one commit): the search session when ``open_session`` (``out.session``)
    and the trace's outbox row, best effort (a trace that cannot be queued never fails the search: its insert
    is a savepoint). ``out.timings`` gains ``session`` (the session insert) and ``trace`` (the trace's payload,
    its outbox row and the commit)."""
    out = run_search(cfg=cfg, ctx=ctx, req=req)
    with transaction.atomic():
        if open_session:
            started = time.perf_counter()
            out.session = create_session(ctx=ctx, read_profile=req.read_profile, query=req.query,
                                         trace_id=out.trace_id, outcome_items=out.items)
            out.timings["session"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        enqueue_trace(trace_payload(cfg=cfg, ctx=ctx, req=req, out=out),
                      write_mode=cfg.search.explain.write_mode or "outbox")
    out.timings["trace"] = (time.perf_counter() - started) * 1000
    return out
