"""Operator admin for search traces: read-only (traces are written by the trace outbox worker).

A trace's page (``templates/admin/traces/searchtrace/change_form.html``) shows each returned item's explain
table (its ranking terms drawn as bars, final score, match, the stages it reached) and the trace's stage
trajectory, read through the same selectors as the admin trace endpoints.
"""

from dataclasses import dataclass

from django.contrib import admin
from django.contrib.admin.utils import unquote

from elf_kernel.admin import ReadOnlyAdmin
from traces.domain.explain_table import TermBar, bar_scale, match_rows, policy_id, summary, term_bars
from traces.models import SearchTrace, SearchTraceItem, SearchTraceOutbox
from traces.selectors import item_trajectory, trace_items, trace_stages


@dataclass(frozen=True)
class StageRow:
    order: int
    name: str
    item_count: int
    detail: str  # the stage payload (trajectory) or the item's metrics there (an item's path)


@dataclass(frozen=True)
class ExplainView:
    item: SearchTraceItem
    policy_id: str
    bars: list[TermBar]
    match: list[tuple[str, str]]
    path: list[StageRow]


@admin.register(SearchTrace)
class SearchTraceAdmin(ReadOnlyAdmin):
    list_display = (
        "trace_id",
        "created_at",
        "tenant_id",
        "project_id",
        "agent_id",
        "read_profile",
        "query",
        "expansion_mode",
        "candidate_count",
        "top_k",
        "expires_at",
    )
    list_filter = ("tenant_id", "project_id", "agent_id", "read_profile", "expansion_mode", "created_at")
    date_hierarchy = "created_at"
    search_fields = ("query", "trace_id__exact")
    ordering = ("-created_at",)
    change_form_template = "admin/traces/searchtrace/change_form.html"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        trace = self.get_object(request, unquote(object_id))
        if trace is not None:
            extra_context = {**(extra_context or {}), **explain_context(trace)}
        return super().change_view(request, object_id, form_url, extra_context)


def explain_context(trace: SearchTrace) -> dict:
    """The template's ``trajectory`` (every stage: order, name, item count, payload summary) and
    ``explain_items`` (per returned item, by rank). An operator reads every row (ctx None)."""
    stages = trace_stages(None, trace, items_limit=0)
    counts = {view.stage.stage_id: view.item_count for view in stages}
    items = trace_items(None, trace)
    scale = bar_scale(i.explain for i in items)
    return {
        "trajectory": [StageRow(v.stage.stage_order, v.stage.stage_name, v.item_count, summary(v.stage.stage_payload))
                       for v in stages],
        "explain_items": [
            ExplainView(item, policy_id(item.explain), term_bars(item.explain, scale), match_rows(item.explain),
                        [StageRow(stage.stage_order, stage.stage_name, counts.get(stage.stage_id, 0),
                                  summary(row.metrics)) for stage, row in item_trajectory(item)])
            for item in items
        ],
    }


@admin.register(SearchTraceOutbox)
class SearchTraceOutboxAdmin(ReadOnlyAdmin):
    list_display = ("outbox_id", "trace_id", "status", "attempts", "available_at", "updated_at")
    list_filter = ("status",)
    search_fields = ("trace_id__exact", "last_error")
    ordering = ("-created_at",)
