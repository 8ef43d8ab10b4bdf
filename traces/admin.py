"""Operator admin for search traces: read-only (traces are written by the trace outbox worker)."""

from django.contrib import admin

from memory.admin import ReadOnlyAdmin
from traces.models import SearchTrace, SearchTraceOutbox


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
    list_filter = ("tenant_id", "project_id", "agent_id", "read_profile", "expansion_mode")
    search_fields = ("query", "trace_id__exact")
    ordering = ("-created_at",)


@admin.register(SearchTraceOutbox)
class SearchTraceOutboxAdmin(ReadOnlyAdmin):
    list_display = ("outbox_id", "trace_id", "status", "attempts", "available_at", "updated_at")
    list_filter = ("status",)
    search_fields = ("trace_id__exact", "last_error")
    ordering = ("-created_at",)
