"""The one search use case: run the pipeline, then hand its trace to the traces service. Every caller (the
session endpoints, the raw explain search, future callers such as context bundles) gets a trace."""

from __future__ import annotations

from elf_config import ElfConfig
from elf_kernel.context import RequestContext
from traces.services.enqueue import enqueue_trace

from .pipeline import SearchOutcome, SearchRequest, run_search
from .trace import trace_payload


def search(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest) -> SearchOutcome:
    """Search, then enqueue its trace best effort (a trace that cannot be queued never fails the search)."""
    out = run_search(cfg=cfg, ctx=ctx, req=req)
    enqueue_trace(trace_payload(cfg=cfg, ctx=ctx, req=req, out=out), write_mode=cfg.search.explain.write_mode or "outbox")
    return out
