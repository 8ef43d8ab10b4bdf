"""Operator admin for Doc Extension tables: read-only (documents are written through the docs API), plus
the doc outbox's "retry now" action."""

from django.contrib import admin, messages

from docs_ext.indexing.outbox import retry_now
from docs_ext.models import DocDocument, DocIndexingOutbox
from elf_kernel.admin import ReadOnlyAdmin


@admin.register(DocDocument)
class DocDocumentAdmin(ReadOnlyAdmin):
    list_display = (
        "doc_id",
        "title",
        "tenant_id",
        "project_id",
        "agent_id",
        "scope",
        "status",
        "content_bytes",
        "updated_at",
    )
    list_filter = ("tenant_id", "project_id", "agent_id", "scope", "status")
    search_fields = ("title", "content_hash", "doc_id__exact")
    exclude = ("content",)
    ordering = ("-updated_at",)


@admin.register(DocIndexingOutbox)
class DocIndexingOutboxAdmin(ReadOnlyAdmin):
    list_display = ("outbox_id", "doc_id", "chunk_id", "op", "status", "attempts", "available_at")
    list_filter = ("status", "op")
    search_fields = ("doc_id__exact", "last_error")
    ordering = ("-created_at",)
    actions = ["retry_selected_now"]

    @admin.action(description="Retry now (PENDING/FAILED rows)", permissions=["view"])
    def retry_selected_now(self, request, queryset):
        n = retry_now(queryset.values_list("outbox_id", flat=True))
        self.message_user(request, f"{n} row(s) made due and dispatched.", messages.SUCCESS)
