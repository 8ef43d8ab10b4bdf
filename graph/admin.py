"""Operator admin for graph memory: entities, the predicate registry and facts, read-only.

Facts and entities (with their aliases) are written by the note ingest path, predicate aliases and
cardinality by the admin API; the only change made here is a predicate's status, through the same service as
PATCH /v2/admin/graph/predicates/{id}, so the registry's rules hold (deprecated ones final, only the allowed
moves). The operator here may also deprecate a global predicate, shipped ones included (graph.domain.predicate_seed:
the start-up seed never undoes it); the API may not (global predicates are immutable there). The predicate pages are
rendered from templates/admin/graph/graphpredicate/.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from elf_kernel.admin import ReadOnlyAdmin, html_table
from elf_kernel.errors import ElfError

from .domain.rules import GLOBAL_SCOPE_KEY, PredicateStatus, fact_state
from .models import (
    GraphEntity,
    GraphEntityAlias,
    GraphFact,
    GraphFactEvidence,
    GraphFactSupersession,
    GraphPredicate,
)
from .selectors.predicates import predicate_aliases
from .services.predicate_admin import update_predicate

NOTE_TEXT_CHARS = 200
RECENT_FACTS = 20


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class EntityAliasInline(ReadOnlyInline):
    model = GraphEntityAlias
    fields = ("alias", "alias_norm", "created_at")
    ordering = ("created_at", "alias_norm")


@admin.register(GraphEntity)
class GraphEntityAdmin(ReadOnlyAdmin):
    list_display = ("canonical", "kind", "tenant_id", "project_id", "created_at", "updated_at")
    list_filter = ("tenant_id", "project_id", "kind")
    search_fields = ("canonical", "canonical_norm", "aliases__alias", "aliases__alias_norm", "entity_id__exact")
    ordering = ("tenant_id", "project_id", "canonical_norm")
    inlines = (EntityAliasInline,)


# --- predicates -----------------------------------------------------------------------------------------------


class PredicateScopeFilter(admin.SimpleListFilter):
    title, parameter_name = "scope", "scope_kind"

    def lookups(self, request, model_admin):
        return (("tenant_project", "tenant:project"), ("project", "__project__"), ("global", "__global__"))

    def queryset(self, request, queryset):
        if self.value() == "global":
            return queryset.filter(scope_key=GLOBAL_SCOPE_KEY)
        if self.value() == "project":
            return queryset.filter(tenant_id__isnull=True, project_id__isnull=False)
        if self.value() == "tenant_project":
            return queryset.filter(tenant_id__isnull=False)
        return queryset


@admin.register(GraphPredicate)
class GraphPredicateAdmin(ReadOnlyAdmin):
    """The list (templates/admin/graph/graphpredicate/change_list.html) shows each predicate's aliases and fact
    counts; a predicate's page (change_form.html there) its aliases, fact counts and most recent facts."""

    list_display = (
        "canonical",
        "alias_list",
        "scope_key",
        "cardinality",
        "status",
        "fact_total",
        "open_facts",
        "updated_at",
    )
    list_filter = ("status", "cardinality", PredicateScopeFilter, "tenant_id", "project_id")
    search_fields = ("canonical", "canonical_norm", "aliases__alias", "aliases__alias_norm", "scope_key")
    ordering = ("scope_key", "canonical_norm")
    actions = ("activate", "deprecate")
    change_list_template = "admin/graph/graphpredicate/change_list.html"
    change_form_template = "admin/graph/graphpredicate/change_form.html"

    def get_queryset(self, request):
        open_facts = Q(facts__valid_to__isnull=True)
        return (
            super()
            .get_queryset(request)
            .prefetch_related("aliases")
            .annotate(
                fact_count=Count("facts", distinct=True),
                open_fact_count=Count("facts", filter=open_facts, distinct=True),
            )
        )

    @admin.display(description="aliases")
    def alias_list(self, obj):
        return ", ".join(a.alias for a in sorted(obj.aliases.all(), key=lambda a: (a.created_at, a.alias_norm)))

    # not "facts": that is the predicate's reverse relation, which the list would sort by instead
    @admin.display(description="facts", ordering="fact_count")
    def fact_total(self, obj):
        return obj.fact_count

    @admin.display(description="open facts", ordering="open_fact_count")
    def open_facts(self, obj):
        return obj.open_fact_count

    def change_view(self, request, object_id, form_url="", extra_context=None):
        predicate = self.get_object(request, unquote(object_id))
        if predicate is not None:
            extra_context = {**(extra_context or {}), **_predicate_context(predicate)}
        return super().change_view(request, object_id, form_url, extra_context)

    # permissions=["view"]: the admin's change permission is off (ReadOnlyAdmin); the service decides.
    @admin.action(description="Activate (pending predicates)", permissions=["view"])
    def activate(self, request, queryset):
        self._move(request, queryset, PredicateStatus.ACTIVE)

    @admin.action(description="Deprecate (pending or active predicates; final)", permissions=["view"])
    def deprecate(self, request, queryset):
        self._move(request, queryset, PredicateStatus.DEPRECATED)

    def _move(self, request, queryset, status: PredicateStatus) -> None:
        """Each predicate in its own transaction through the service: one refusal does not undo the others."""
        moved, skipped = 0, []
        for predicate in queryset.order_by("scope_key", "canonical_norm"):
            if predicate.status == status:
                skipped.append(f"Skipped {predicate.canonical} [{predicate.scope_key}]: already {status}.")
                continue
            try:
                update_predicate(ctx=None, predicate_id=predicate.predicate_id, status=status)
            except ElfError as exc:  # FORBIDDEN (global), PREDICATE_DEPRECATED, a move not allowed
                label = f"{predicate.canonical} [{predicate.scope_key}]"
                self.message_user(request, f"Refused for {label}: {exc.message}", messages.ERROR)
                continue
            moved += 1
        if moved:
            self.message_user(request, f"{moved} predicate(s) now {status}.", messages.SUCCESS)
        for line in skipped:
            self.message_user(request, line, messages.INFO)


def _predicate_context(predicate: GraphPredicate) -> dict:
    """A predicate's page: its aliases, fact counts (from get_queryset's annotations) and its RECENT_FACTS
    most recently recorded facts (one ingest records several at once: the latest valid_from first among
    them), each with a link to its fact page and its state now."""
    now = timezone.now()
    facts = (
        GraphFact.objects.filter(predicate_ref_id=predicate.predicate_id)
        .select_related("subject_entity", "object_entity")
        .order_by("-created_at", "-valid_from", "fact_id")[:RECENT_FACTS]
    )
    return {
        "aliases": predicate_aliases(predicate.predicate_id),
        "fact_count": predicate.fact_count,
        "open_fact_count": predicate.open_fact_count,
        "recent_facts": [
            {
                "fact": f,
                "url": reverse("admin:graph_graphfact_change", args=[f.fact_id]),
                "object": f.object_value if f.object_value is not None else f.object_entity,
                "state": fact_state(f.valid_from, f.valid_to, now).value,
            }
            for f in facts
        ],
        "recent_limit": RECENT_FACTS,
    }


# --- facts ----------------------------------------------------------------------------------------------------


class FactWindowFilter(admin.SimpleListFilter):
    title, parameter_name = "validity window", "window"

    def lookups(self, request, model_admin):
        return (("open", "open (valid_to empty)"), ("closed", "closed"))

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.filter(valid_to__isnull=True)
        if self.value() == "closed":
            return queryset.filter(valid_to__isnull=False)
        return queryset


@admin.register(GraphFact)
class GraphFactAdmin(ReadOnlyAdmin):
    list_display = (
        "subject_entity",
        "predicate",
        "fact_object",
        "valid_from",
        "valid_to",
        "state",
        "scope",
        "tenant_id",
        "project_id",
    )
    list_filter = ("tenant_id", "project_id", "scope", FactWindowFilter)
    list_select_related = ("subject_entity", "object_entity")
    search_fields = (
        "subject_entity__canonical",
        "predicate",
        "object_value",
        "object_entity__canonical",
        "fact_id__exact",
    )
    ordering = ("-valid_from",)
    readonly_fields = ("fact_object", "state", "evidence_notes", "supersession_history")

    @admin.display(description="object")
    def fact_object(self, obj):
        return obj.object_value if obj.object_value is not None else obj.object_entity

    @admin.display(description="state now")
    def state(self, obj):
        return fact_state(obj.valid_from, obj.valid_to, timezone.now()).value

    @admin.display(description="evidence notes")
    def evidence_notes(self, obj):
        rows = GraphFactEvidence.objects.filter(fact_id=obj.fact_id).select_related("note").order_by("created_at")
        return html_table(
            ("linked at", "note", "status", "scope", "agent", "text"),
            ((e.created_at, e.note_id, e.note.status, e.note.scope, e.note.agent_id, _clip(e.note.text)) for e in rows),
        )

    @admin.display(description="supersession history")
    def supersession_history(self, obj):
        rows = GraphFactSupersession.objects.filter(from_fact_id=obj.fact_id) | GraphFactSupersession.objects.filter(
            to_fact_id=obj.fact_id
        )
        rows = rows.select_related("from_fact", "to_fact").order_by("effective_at", "created_at")
        return html_table(
            ("effective at", "this fact", "other fact", "its object", "its window", "caused by note"),
            (_supersession_row(obj, s) for s in rows),
        )


def _supersession_row(fact: GraphFact, s: GraphFactSupersession) -> tuple:
    closed = s.from_fact_id == fact.fact_id
    other = s.to_fact if closed else s.from_fact
    obj = other.object_value if other.object_value is not None else other.object_entity_id
    window = f"{other.valid_from} .. {other.valid_to or 'open'}"
    return (s.effective_at, "was superseded by" if closed else "superseded", other.fact_id, obj, window, s.note_id)


def _clip(text: str) -> str:
    return text if len(text) <= NOTE_TEXT_CHARS else text[: NOTE_TEXT_CHARS - 1] + "…"
