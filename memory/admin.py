"""Operator admin for memory tables: read-only.

Writes must go through the services, which keep each note change, its version row and its outbox row in
one transaction; editing rows here would bypass that.
"""

from django.contrib import admin, messages

from elf_kernel.admin import ReadOnlyAdmin, html_table
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError
from elf_kernel.runtime import get_config
from memory.indexing.outbox import retry_now
from memory.models import IndexingOutbox, MemoryIngestDecision, MemoryNote, MemoryNoteVersion, MemorySpaceGrant
from memory.selectors import note_readers
from memory.services.note_changes import deprecate_note


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
    readonly_fields = ("who_can_read", "versions", "ingest_decisions")
    actions = ["deprecate_selected"]

    @admin.action(description="Deprecate (no longer searched; purged after purge_deprecated_after_days)",
                  permissions=["view"])
    def deprecate_selected(self, request, queryset):
        """Through the same service as POST /v2/notes/{id}/deprecate, as the note's owner, audited as the
        operator: a version row and an outbox DELETE per note."""
        done, failed = 0, []
        for note in queryset:
            owner = RequestContext(tenant_id=note.tenant_id, project_id=note.project_id, agent_id=note.agent_id,
                                   read_profile=None)
            try:
                result = deprecate_note(cfg=get_config(), ctx=owner, note_id=note.note_id,
                                        actor=f"admin:{request.user.get_username()}")
                done += result["op"] != "NONE"
            except ElfError as exc:
                failed.append(f"{note.note_id}: {exc.message}")
        self.message_user(request, f"{done} note(s) deprecated.", messages.SUCCESS)
        if failed:
            self.message_user(request, "Not deprecated: " + "; ".join(failed), messages.WARNING)

    @admin.display(description="who can read this note (owner and active grants)")
    def who_can_read(self, obj):
        return html_table(("who", "through"), note_readers(obj))

    @admin.display(description="versions (newest first)")
    def versions(self, obj):
        rows = MemoryNoteVersion.objects.filter(note_id=obj.note_id).order_by("-ts")[:50]
        return html_table(
            ("when", "op", "reason", "actor", "text before", "text after"),
            (
                (v.ts, v.op, v.reason, v.actor, (v.prev_snapshot or {}).get("text", ""),
                 (v.new_snapshot or {}).get("text", ""))
                for v in rows
            ),
        )

    @admin.display(description="ingest decisions (newest first)")
    def ingest_decisions(self, obj):
        rows = MemoryIngestDecision.objects.filter(note_id=obj.note_id).order_by("-ts")[:50]
        return html_table(
            ("when", "pipeline", "base", "policy", "op", "reason", "similarity"),
            (
                (d.ts, d.pipeline, d.base_decision, d.policy_decision, d.note_op, d.reason_code or "",
                 d.details.get("similarity_best"))
                for d in rows
            ),
        )


class GrantStateFilter(admin.SimpleListFilter):
    title, parameter_name = "state", "state"

    def lookups(self, request, model_admin):
        return (("active", "active"), ("revoked", "revoked"))

    def queryset(self, request, queryset):
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(MemorySpaceGrant)
class MemorySpaceGrantAdmin(ReadOnlyAdmin):
    """Grants are given and revoked through the API (POST /v2/spaces/{space}/grants[/revoke]); history is kept."""

    list_display = ("tenant_id", "project_id", "scope", "space_owner_agent_id", "grantee_kind", "grantee_agent_id",
                    "granted_by_agent_id", "granted_at", "state", "revoked_by_agent_id", "revoked_at")
    list_filter = (GrantStateFilter, "scope", "grantee_kind", "tenant_id", "project_id")
    search_fields = ("space_owner_agent_id", "grantee_agent_id", "project_id")
    ordering = ("-granted_at",)

    @admin.display(description="state")
    def state(self, obj):
        return "revoked" if obj.revoked_at else "active"


@admin.register(IndexingOutbox)
class IndexingOutboxAdmin(ReadOnlyAdmin):
    list_display = ("outbox_id", "note_id", "op", "status", "attempts", "available_at", "updated_at")
    list_filter = ("status", "op")
    search_fields = ("note_id__exact", "last_error")
    ordering = ("-created_at",)
    actions = ["retry_selected_now"]

    @admin.action(description="Retry now (PENDING/FAILED rows)", permissions=["view"])
    def retry_selected_now(self, request, queryset):
        n = retry_now(queryset.values_list("outbox_id", flat=True))
        self.message_user(request, f"{n} row(s) made due and dispatched.", messages.SUCCESS)


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


# --- add_event ingestion profiles (supplement section 6): versions are immutable, set through the admin API ---
# MemoryIngestionProfileDefault has a composite primary key, which the Django admin cannot register; each
# profile row shows instead whether its profile_id is its project's default.

from memory.models import MemoryIngestionProfile, MemoryIngestionProfileDefault  # noqa: E402


@admin.register(MemoryIngestionProfile)
class MemoryIngestionProfileAdmin(ReadOnlyAdmin):
    list_display = (
        "profile_id", "version", "tenant_id", "project_id", "pipeline", "project_default", "created_by", "created_at"
    )
    list_filter = ("tenant_id", "project_id", "profile_id", "pipeline")
    search_fields = ("profile_id",)
    ordering = ("tenant_id", "project_id", "profile_id", "-version")

    @admin.display(description="project default")
    def project_default(self, obj):
        default = MemoryIngestionProfileDefault.objects.filter(
            tenant_id=obj.tenant_id, project_id=obj.project_id, pipeline=obj.pipeline, profile_id=obj.profile_id
        ).first()
        if default is None:
            return ""
        return "default (latest)" if default.version is None else f"default (v{default.version})"
