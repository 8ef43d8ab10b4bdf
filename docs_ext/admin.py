"""Operator admin for Doc Extension tables: read-only (documents are written through the docs API), with each
document's chunks and its latest indexing outbox rows, a "verify" action (content hash, each chunk's byte
offsets and hash), and the doc outbox's "retry now" action."""

from django.contrib import admin, messages

from docs_ext.domain.integrity import integrity_problems
from docs_ext.indexing.outbox import retry_now
from docs_ext.models import DocChunk, DocDocument, DocIndexingOutbox
from elf_kernel.admin import ReadOnlyAdmin, html_table

CHUNK_PREVIEW_CHARS = 120
CHUNK_HASH_CHARS = 16
OUTBOX_ROWS = 10


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
    readonly_fields = ("chunks", "indexing")
    ordering = ("-updated_at",)
    actions = ["verify_selected"]

    @admin.display(description="chunks")
    def chunks(self, obj):
        rows = DocChunk.objects.filter(doc=obj).order_by("chunk_index")
        headers = ("index", "byte offsets (start-end)", f"chunk_hash (first {CHUNK_HASH_CHARS} hex)",
                   f"text (first {CHUNK_PREVIEW_CHARS} characters)")
        return html_table(headers, (
            (c.chunk_index, f"{c.start_offset}-{c.end_offset}", c.chunk_hash[:CHUNK_HASH_CHARS],
             c.chunk_text[:CHUNK_PREVIEW_CHARS]) for c in rows))

    @admin.display(description=f"indexing outbox (latest {OUTBOX_ROWS} rows)")
    def indexing(self, obj):
        rows = DocIndexingOutbox.objects.filter(doc_id=obj.doc_id).order_by("-created_at")[:OUTBOX_ROWS]
        return html_table(("op", "status", "attempts", "last error", "created"), (
            (r.op, r.status, r.attempts, r.last_error or "", r.created_at) for r in rows))

    @admin.action(description="Verify content hash, chunk byte offsets and chunk hashes", permissions=["view"])
    def verify_selected(self, request, queryset):
        for doc in queryset:
            chunks = DocChunk.objects.filter(doc=doc).order_by("chunk_index").values_list(
                "chunk_index", "start_offset", "end_offset", "chunk_text", "chunk_hash")
            problems = integrity_problems(doc.content, doc.content_hash, chunks)
            if problems:
                self.message_user(request, f"{doc}: {'; '.join(problems)}", messages.ERROR)
            else:
                self.message_user(request, f"{doc}: content and {len(chunks)} chunk(s) verified.", messages.SUCCESS)


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
