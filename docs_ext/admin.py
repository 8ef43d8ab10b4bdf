"""Operator admin for Doc Extension tables: read-only (documents are written through the docs API)."""

from django.contrib import admin

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
