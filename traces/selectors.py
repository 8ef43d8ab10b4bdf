"""Scoped reads of search traces for the admin trace endpoints (spec v2 section 14).

Every read starts from ``traces_for(ctx)``: access is decided by tenant_id + project_id only (the agent_id
of the request need not own the trace), and a trace past its ``expires_at`` is gone even before the
retention sweep deletes it. A trace of another tenant or project is simply not found. Within a trace, the
rows that name a note (items, stage items, candidates) are shown only when the caller may read that note
now, through the same ``memory.selectors.readable_notes`` every other read path uses.
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound
from memory.models import MemoryNoteChunk
from memory.selectors import readable_notes

from .models import SearchTrace, SearchTraceCandidate, SearchTraceItem, SearchTraceStage, SearchTraceStageItem


@dataclass(frozen=True)
class RecentCursor:
    created_at: datetime
    trace_id: uuid.UUID


@dataclass(frozen=True)
class StageView:
    stage: SearchTraceStage
    item_count: int
    items: list[SearchTraceStageItem]


def traces_for(ctx: RequestContext) -> QuerySet[SearchTrace]:
    return SearchTrace.objects.filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, expires_at__gt=timezone.now())


def recent_traces(
    ctx: RequestContext,
    *,
    limit: int,
    cursor: RecentCursor | None = None,
    agent_id: str | None = None,
    read_profile: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
) -> tuple[list[SearchTrace], RecentCursor | None]:
    """A page ordered by (created_at, trace_id) descending, and the cursor of the next page (None at the end)."""
    qs = traces_for(ctx)
    if agent_id is not None:
        qs = qs.filter(agent_id=agent_id)
    if read_profile is not None:
        qs = qs.filter(read_profile=read_profile)
    if created_after is not None:
        qs = qs.filter(created_at__gt=created_after)
    if created_before is not None:
        qs = qs.filter(created_at__lt=created_before)
    if cursor is not None:
        qs = qs.filter(
            Q(created_at__lt=cursor.created_at) | Q(created_at=cursor.created_at, trace_id__lt=cursor.trace_id)
        )
    page = list(qs.order_by("-created_at", "-trace_id")[: limit + 1])
    if len(page) <= limit:
        return page, None
    page = page[:limit]
    return page, RecentCursor(page[-1].created_at, page[-1].trace_id)


def get_trace(ctx: RequestContext, trace_id: uuid.UUID) -> SearchTrace:
    trace = traces_for(ctx).filter(trace_id=trace_id).first()
    if trace is None:
        raise NotFound("Trace not found.", ["$.path.trace_id"])
    return trace


def _readable(ctx: RequestContext) -> Q:
    return Q(note_id__in=readable_notes(ctx).values("note_id"))


def get_trace_item(ctx: RequestContext, item_id: uuid.UUID) -> SearchTraceItem:
    item = (
        SearchTraceItem.objects.select_related("trace")
        .filter(item_id=item_id, trace__in=traces_for(ctx))
        .filter(_readable(ctx))
        .first()
    )
    if item is None:
        raise NotFound("Trace item not found.", ["$.path.item_id"])
    return item


def trace_items(ctx: RequestContext | None, trace: SearchTrace) -> list[SearchTraceItem]:
    """The trace's result items by rank; ``ctx`` None is an operator in the Django admin, who reads them all."""
    qs = SearchTraceItem.objects.filter(trace_id=trace.trace_id)
    if ctx is not None:
        qs = qs.filter(_readable(ctx))
    return list(qs.order_by("rank", "item_id"))


def trace_stages(ctx: RequestContext | None, trace: SearchTrace, *, items_limit: int | None) -> list[StageView]:
    """The stages in order, each with its item count and its first ``items_limit`` items (all when None);
    ``ctx`` None is an operator in the Django admin, who reads every row."""
    stages = list(SearchTraceStage.objects.filter(trace_id=trace.trace_id).order_by("stage_order", "stage_name"))
    views = []
    for stage in stages:
        qs = SearchTraceStageItem.objects.filter(stage_id=stage.stage_id).order_by("id")
        if ctx is not None:
            qs = qs.filter(Q(note_id__isnull=True) | _readable(ctx))
        items = list(qs if items_limit is None else qs[:items_limit])
        count = len(items) if items_limit is None or len(items) < items_limit else qs.count()
        views.append(StageView(stage, count, items))
    return views


def trace_candidates(ctx: RequestContext, trace: SearchTrace, *, limit: int) -> list[SearchTraceCandidate]:
    """The first ``limit`` captured candidates (index hits before Postgres re-validation), less those whose
    note the caller cannot read now. A snapshot names its chunk (the search pipeline) or its note."""
    rows = list(
        SearchTraceCandidate.objects.filter(trace_id=trace.trace_id, expires_at__gt=timezone.now()).order_by(
            "rank", "candidate_id"
        )[:limit]
    )
    readable = readable_notes(ctx)
    snap = [r.candidate_snapshot for r in rows]
    chunks = {
        str(c)
        for c in MemoryNoteChunk.objects.filter(
            chunk_id__in=_uuids({str(x.get("chunk_id")) for x in snap}), note__in=readable
        ).values_list("chunk_id", flat=True)
    }
    notes = {
        str(n)
        for n in readable.filter(note_id__in=_uuids({str(x.get("note_id")) for x in snap})).values_list(
            "note_id", flat=True
        )
    }
    return [
        r
        for r in rows
        if str(r.candidate_snapshot.get("chunk_id")) in chunks or str(r.candidate_snapshot.get("note_id")) in notes
    ]


def _uuids(values) -> list[uuid.UUID]:
    out = []
    for v in values:
        with contextlib.suppress(TypeError, ValueError):
            out.append(uuid.UUID(v))
    return out


def item_trajectory(item: SearchTraceItem) -> list[tuple[SearchTraceStage, SearchTraceStageItem]]:
    """The item's row in each stage it reached: matched by item_id, else (before item ids exist in the
    pipeline) by note_id and chunk_id."""
    by_handle = Q(item_id=item.item_id)
    by_chunk = Q(item_id__isnull=True, note_id=item.note_id, chunk_id=item.chunk_id)
    rows = (
        SearchTraceStageItem.objects.select_related("stage")
        .filter(stage__trace_id=item.trace_id)
        .filter(by_handle | by_chunk)
        .order_by("stage__stage_order", "id")
    )
    seen: set[uuid.UUID] = set()
    path = []
    for row in rows:
        if row.stage_id not in seen:  # one row per stage: the first (best-placed) match
            seen.add(row.stage_id)
            path.append((row.stage, row))
    return path
