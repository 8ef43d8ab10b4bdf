"""Operator admin for memory tables: read-only.

Writes must go through the services, which keep each note change, its version row and its outbox row in
one transaction; editing rows here would bypass that.
"""

from django.contrib import admin

from memory.models import IndexingOutbox, MemoryIngestDecision, MemoryNote


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(MemoryNote)
class MemoryNoteAdmin(ReadOnlyAdmin):
    list_display = (
        "note_id",
        "tenant_id",
        "project_id",
        "agent_id",
        "scope",
        "type",
        "key",
        "status",
        "importance",
        "confidence",
        "hit_count",
        "updated_at",
        "expires_at",
    )
    list_filter = ("tenant_id", "project_id", "agent_id", "scope", "type", "status")
    search_fields = ("text", "key", "note_id__exact")
    ordering = ("-updated_at",)


@admin.register(IndexingOutbox)
class IndexingOutboxAdmin(ReadOnlyAdmin):
    list_display = ("outbox_id", "note_id", "op", "status", "attempts", "available_at", "updated_at")
    list_filter = ("status", "op")
    search_fields = ("note_id__exact", "last_error")
    ordering = ("-created_at",)


@admin.register(MemoryIngestDecision)
class MemoryIngestDecisionAdmin(ReadOnlyAdmin):
    list_display = (
        "ts",
        "tenant_id",
        "project_id",
        "agent_id",
        "scope",
        "pipeline",
        "note_type",
        "base_decision",
        "policy_decision",
        "note_op",
        "reason_code",
        "note_id",
    )
    list_filter = ("pipeline", "policy_decision", "note_op", "reason_code", "tenant_id", "project_id")
    search_fields = ("note_key", "note_id__exact")
    ordering = ("-ts",)
