"""Operator admin for search traces: read-only (traces are written by the trace outbox worker)."""

import json

from django.contrib import admin

from elf_kernel.admin import ReadOnlyAdmin, html_table
from traces.models import SearchTrace, SearchTraceItem, SearchTraceOutbox, SearchTraceStage

PAYLOAD_SUMMARY_CHARS = 300


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
    readonly_fields = ("result_items", "stages")

    @admin.display(description="result items (by rank)")
    def result_items(self, obj):
        items = SearchTraceItem.objects.filter(trace_id=obj.trace_id).order_by("rank")
        return html_table(
            ("rank", "item (result_handle)", "note", "chunk", "final_score", "ranking terms"),
            ((i.rank, i.item_id, i.note_id, i.chunk_id or "", i.final_score, _ranking_terms(i.explain))
             for i in items),
        )

    @admin.display(description="stages (trajectory)")
    def stages(self, obj):
        stages = SearchTraceStage.objects.filter(trace_id=obj.trace_id).order_by("stage_order", "stage_name")
        return html_table(
            ("order", "stage", "payload"),
            ((st.stage_order, st.stage_name, _summary(st.stage_payload)) for st in stages),
        )


def _ranking_terms(explain):
    """The item's ``explain.ranking.terms`` as a name/value table (empty when the explain has none)."""
    ranking = explain.get("ranking") if isinstance(explain, dict) else None
    terms = ranking.get("terms") if isinstance(ranking, dict) else None
    if not isinstance(terms, list):
        return ""
    rows = ((t.get("name", ""), t.get("value", "")) for t in terms if isinstance(t, dict))
    return html_table(("term", "value"), rows)


def _summary(payload) -> str:
    text = json.dumps(payload, sort_keys=True)
    return text if len(text) <= PAYLOAD_SUMMARY_CHARS else text[: PAYLOAD_SUMMARY_CHARS - 1] + "…"


@admin.register(SearchTraceOutbox)
class SearchTraceOutboxAdmin(ReadOnlyAdmin):
    list_display = ("outbox_id", "trace_id", "status", "attempts", "available_at", "updated_at")
    list_filter = ("status",)
    search_fields = ("trace_id__exact", "last_error")
    ordering = ("-created_at",)
