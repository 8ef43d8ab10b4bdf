"""Operator admin for the event log and Active Context Bundles, read-only: every write goes through record_event
(POST /api/v1/events) and build (POST /api/v1/acb/build); the log itself is append-only in the database.

Sessions show their event timeline, decisions, tasks and bundles; events their content and chunks; decisions their
supersession chain; artifacts their meta and a 2 KB escaped preview (never the whole bytes); bundles each section
with its items, and the omissions and provenance. Ids in refs link to their pages (a chunk id to its event).

Sensitivity-high content is encrypted at rest (``sealing``): superusers read it opened, other staff read
"[encrypted: high sensitivity]" in its place.
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.db import connection
from django.db.models.functions import Length
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from elf_kernel.admin import ReadOnlyAdmin, html_table

from .domain.event_text import event_text
from .models import AcbArtifact, AcbBundle, AcbDecision, AcbEvent, AcbSession, AcbTask
from .sealing import ARTIFACT_FLAG, PLACEHOLDER, reveal

PREVIEW_CHARS, ITEM_PREVIEW_CHARS, ARTIFACT_PREVIEW_BYTES = 160, 300, 2048
TIMELINE_ROWS, SESSION_ROWS, MAX_REFS, CHAIN_MAX = 200, 100, 20, 50
_REF_PAGES = {"evt_": "acbevent", "dec_": "acbdecision", "tsk_": "acbtask", "art_": "acbartifact", "acb_": "acbbundle"}
_ITEM_KEYS = ("type", "text", "refs", "token_est")
APP_LABEL = AcbEvent._meta.app_label  # "context" (acb.apps): the admin's URL names are built from it


def _clip(text: str, limit: int = PREVIEW_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pre(text: str):
    return format_html('<pre style="white-space:pre-wrap;max-width:110em">{}</pre>', text)


def _json(value):
    return _pre(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str))


def _link(model: str, pk, label=None):
    return format_html('<a href="{}">{}</a>', reverse(f"admin:{APP_LABEL}_{model}_change", args=[pk]), label or pk)


def _ref(ref: str):
    """A ref as a link to its page when it names an event-log row (a chunk links to its event), else as text."""
    if ref.startswith("chk_") and "_" in ref[4:]:
        return _link("acbevent", "evt_" + ref[4:].rsplit("_", 1)[0], ref)
    model = _REF_PAGES.get(ref[:4])
    return _link(model, ref) if model else ref


def _refs(refs) -> str:
    refs = list(refs or [])
    shown = format_html_join(", ", "{}", ((_ref(str(r)),) for r in refs[:MAX_REFS]))
    more = len(refs) - MAX_REFS
    return format_html("{} (+{} more)", shown, more) if more > 0 else shown


def _preview(e: AcbEvent) -> str:
    if e.content.get("encrypted") == PLACEHOLDER:
        return PLACEHOLDER
    if e.content.get("withheld"):
        return "(withheld: sensitivity secret, never stored)"
    return _clip(event_text(e.kind, e.content))


def _rendered(response):
    """A TemplateResponse renders (and loads its rows) after the view returns: render it inside ``reveal``."""
    if hasattr(response, "render") and not getattr(response, "is_rendered", True):
        response.render()
    return response


class AcbAdmin(ReadOnlyAdmin):
    show_full_result_count = False  # the log grows without bound: no COUNT(*) of the whole table per page

    def changelist_view(self, request, extra_context=None):
        with reveal(request.user.is_superuser):
            return _rendered(super().changelist_view(request, extra_context))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        with reveal(request.user.is_superuser):
            return _rendered(super().change_view(request, object_id, form_url, extra_context))

    @admin.display(description="refs")
    def ref_links(self, obj):
        return _refs(obj.refs)

    @admin.display(description="session page")
    def session_link(self, obj):
        sessions = AcbSession.objects.filter(tenant_id=obj.tenant_id, session_id=obj.session_id)
        if getattr(obj, "project_id", None):  # a session id is named within its project (a kept bundle has none)
            sessions = sessions.filter(project_id=obj.project_id)
        s = sessions.only("sid").first()
        return _link("acbsession", s.sid, obj.session_id) if s else "-"


@admin.register(AcbSession)
class AcbSessionAdmin(AcbAdmin):
    list_display = ("tenant_id", "session_id", "project_id", "agents", "event_count", "first_ts", "last_ts")
    list_filter = ("tenant_id", "project_id")
    search_fields = ("session_id", "tenant_id", "project_id")
    ordering = ("-last_ts",)
    readonly_fields = ("timeline", "decisions", "tasks", "bundles")

    def _of(self, model, obj):
        """The session's rows (a session id is named within its project; a kept bundle has no project column)."""
        rows = model.objects.filter(tenant_id=obj.tenant_id, session_id=obj.session_id)
        return rows if model is AcbBundle else rows.filter(project_id=obj.project_id)

    @admin.display(description=f"event timeline (newest {TIMELINE_ROWS})")
    def timeline(self, obj):
        rows = self._of(AcbEvent, obj).order_by("-ts", "-event_id")[:TIMELINE_ROWS]
        return html_table(("ts", "event", "kind", "channel", "sensitivity", "actor", "agent", "text", "refs"), (
            (e.ts, _link("acbevent", e.event_id), e.kind, e.channel, e.sensitivity, f"{e.actor_type}:{e.actor_id}",
             e.agent_id, _preview(e), _refs(e.refs)) for e in rows))

    @admin.display(description=f"decisions (newest {SESSION_ROWS})")
    def decisions(self, obj):
        rows = self._of(AcbDecision, obj).defer("tsv").order_by("-ts")[:SESSION_ROWS]
        return html_table(("ts", "decision", "status", "scope", "agent", "text", "superseded by"), (
            (d.ts, _link("acbdecision", d.decision_id), d.status, d.scope, d.agent_id, _clip(d.decision),
             _ref(d.superseded_by_id) if d.superseded_by_id else "") for d in rows))

    @admin.display(description=f"tasks (newest {SESSION_ROWS})")
    def tasks(self, obj):
        rows = self._of(AcbTask, obj).order_by("-ts")[:SESSION_ROWS]
        return html_table(("ts", "task", "status", "title", "agent"), (
            (t.ts, _link("acbtask", t.task_id), t.status, _clip(t.title), t.agent_id) for t in rows))

    @admin.display(description="bundles (newest 20)")
    def bundles(self, obj):
        rows = self._of(AcbBundle, obj).defer("body").order_by("-created_at")[:20]
        return html_table(("created", "bundle", "agent", "channel", "used/budget"), (
            (b.created_at, _link("acbbundle", b.acb_id), b.agent_id, b.channel,
             f"{b.token_used_est}/{b.budget_tokens}") for b in rows))


@admin.register(AcbEvent)
class AcbEventAdmin(AcbAdmin):
    list_display = ("event_id", "ts", "kind", "channel", "sensitivity", "actor", "text", "session_id", "agent_id",
                    "tenant_id")
    list_filter = ("kind", "channel", "sensitivity", "actor_type", "tenant_id")
    search_fields = ("event_id__exact", "session_id", "actor_id", "agent_id")
    ordering = ("-ts",)
    exclude = ("content", "refs")
    readonly_fields = ("session_link", "ref_links", "content_json", "chunks_table")

    actor = admin.display(description="actor")(lambda self, obj: f"{obj.actor_type}:{obj.actor_id}")

    text = admin.display(description="text")(lambda self, obj: _preview(obj))

    content_json = admin.display(description="content")(lambda self, obj: _json(obj.content))

    @admin.display(description="chunks")
    def chunks_table(self, obj):
        rows = obj.chunks.defer("tsv").order_by("ord")
        return html_table(("ord", "chunk", "tokens", "importance", "text"), (
            (c.ord, c.chunk_id, c.token_est, c.importance, _clip(c.text, ITEM_PREVIEW_CHARS)) for c in rows))


@admin.register(AcbDecision)
class AcbDecisionAdmin(AcbAdmin):
    list_display = ("decision_id", "status", "scope", "text", "session_id", "agent_id", "ts", "tenant_id")
    list_filter = ("status", "scope", "channel", "tenant_id")
    search_fields = ("decision", "decision_id__exact", "session_id")
    ordering = ("-ts",)
    exclude = ("tsv", "search_text", "refs")
    readonly_fields = ("session_link", "chain", "ref_links")

    def get_queryset(self, request):
        return super().get_queryset(request).defer("tsv", "search_text")

    text = admin.display(description="decision")(lambda self, obj: _clip(obj.decision))

    @admin.display(description="supersession chain (oldest first)")
    def chain(self, obj):
        older, newer = self._walk(obj, "supersedes_id"), self._walk(obj, "superseded_by_id")
        rows = [*reversed(older), obj, *newer]
        return html_table(("", "decision", "status", "ts", "agent", "text"), (
            ("this one" if d.pk == obj.pk else "", _link("acbdecision", d.decision_id), d.status, d.ts, d.agent_id,
             _clip(d.decision)) for d in rows))

    @staticmethod
    def _walk(obj, attr: str) -> list[AcbDecision]:
        out, seen, cur = [], {obj.pk}, obj
        while getattr(cur, attr) and getattr(cur, attr) not in seen and len(out) < CHAIN_MAX:
            cur = AcbDecision.objects.defer("tsv").filter(pk=getattr(cur, attr)).first()
            if cur is None:
                break
            seen.add(cur.pk)
            out.append(cur)
        return out


@admin.register(AcbTask)
class AcbTaskAdmin(AcbAdmin):
    list_display = ("task_id", "status", "title", "session_id", "agent_id", "ts", "tenant_id")
    list_filter = ("status", "tenant_id")
    search_fields = ("title", "task_id__exact", "session_id")
    ordering = ("-ts",)
    exclude = ("refs",)
    readonly_fields = ("session_link", "ref_links")


@admin.register(AcbArtifact)
class AcbArtifactAdmin(AcbAdmin):
    list_display = ("artifact_id", "kind", "size", "tool", "session_id", "ts", "tenant_id")
    list_filter = ("kind", "tenant_id")
    search_fields = ("artifact_id__exact", "session_id")
    ordering = ("-ts",)
    exclude = ("bytes", "meta", "refs")
    readonly_fields = ("size", "session_link", "ref_links", "meta_json", "preview")

    def get_queryset(self, request):  # the bytes stay in the database: only their size is read
        return super().get_queryset(request).defer("bytes").annotate(size_bytes=Length("bytes"))

    @admin.display(description="size (bytes)", ordering="size_bytes")
    def size(self, obj):
        return obj.size_bytes if obj.size_bytes is not None else "-"

    @admin.display(description="tool / path")
    def tool(self, obj):
        return " ".join(str(obj.meta.get(k)) for k in ("tool", "path") if obj.meta.get(k))

    meta_json = admin.display(description="meta")(lambda self, obj: _json(obj.meta))

    @admin.display(description=f"preview (first {ARTIFACT_PREVIEW_BYTES} bytes, as UTF-8)")
    def preview(self, obj):
        if obj.meta.get(ARTIFACT_FLAG):  # encrypted at rest: opened whole (or the placeholder), then cut
            head = bytes(AcbArtifact.objects.only("bytes", "meta", "tenant_id").get(pk=obj.pk).bytes or b"")
            return _pre(head[:ARTIFACT_PREVIEW_BYTES].decode("utf-8", errors="replace"))
        with connection.cursor() as cur:
            cur.execute("SELECT substring(bytes FROM 1 FOR %s) FROM acb_artifacts WHERE artifact_id = %s",
                        [ARTIFACT_PREVIEW_BYTES, obj.artifact_id])
            row = cur.fetchone()
        if not row or row[0] is None:
            return "-"
        head = bytes(row[0]).decode("utf-8", errors="replace")
        more = (obj.size_bytes or 0) - ARTIFACT_PREVIEW_BYTES
        return format_html("{}{}", _pre(head), f"… {more} more bytes not shown" if more > 0 else "")


@admin.register(AcbBundle)
class AcbBundleAdmin(AcbAdmin):
    list_display = ("acb_id", "tenant_id", "session_id", "agent_id", "channel", "used", "created_at")
    list_filter = ("channel", "tenant_id")
    search_fields = ("acb_id__exact", "session_id", "agent_id", "bundle_hash__exact")
    ordering = ("-created_at",)
    exclude = ("body",)
    readonly_fields = ("used", "session_link", "sections", "omissions", "provenance")

    def get_queryset(self, request):  # the list never loads bodies; a bundle's page reads its own
        return super().get_queryset(request).defer("body")

    @admin.display(description="used / budget (tokens)", ordering="token_used_est")
    def used(self, obj):
        return f"{obj.token_used_est} / {obj.budget_tokens}"

    @admin.display(description="sections")
    def sections(self, obj):
        parts = []
        for s in obj.body.get("sections", []):
            items = s.get("items", [])
            rows = ((i, it.get("type", ""), it.get("token_est", ""), _refs(it.get("refs")),
                     _clip(str(it.get("text", "")), ITEM_PREVIEW_CHARS),
                     ", ".join(f"{k}={v}" for k, v in sorted(it.items()) if k not in _ITEM_KEYS))
                    for i, it in enumerate(items, 1))
            parts.append(format_html("<h3>{}: {} of cap {} tokens, {} item(s)</h3>{}", s.get("name"),
                                     s.get("token_est"), s.get("cap"), len(items),
                                     html_table(("#", "type", "tokens", "refs", "text", "more"), rows)))
        return format_html_join("", "{}", ((p,) for p in parts)) or "-"

    omissions = admin.display(description="omissions")(lambda self, obj: _json(obj.body.get("omissions", [])))
    provenance = admin.display(description="provenance")(lambda self, obj: _json(obj.body.get("provenance", {})))
