"""Operator admin for core memory: PROFILE.md, SESSION.md and POLICY.md with their entries, versions and diffs,
and the audit trail and pending entries, read-only.

A document's content is editable here (this is how operators write POLICY.md outside the admin API), but only
through services.entries.put_document, which validates every line and keeps the version, the derived entries and
the audit rows in one transaction; the row itself is never saved by the admin. CoreMemoryEntry has a composite
primary key, which the Django admin cannot register: a document's page shows its entries instead.
"""

from __future__ import annotations

import difflib

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.template import engines
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from elf_config.identifiers import ORG_PROJECT_ID, identifier_problem
from elf_kernel.admin import ReadOnlyAdmin, html_table
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError

from .domain.vocabulary import FILE_NAMES, TITLES, MemoryScope
from .models import CoreMemoryAudit, CoreMemoryDocument, CoreMemoryPending, CoreMemoryVersion
from .selectors import Workspace, document
from .services.entries import put_document

MAX_VERSION_ROWS = 50
_LINE_STYLES = {"+": "background:#e6ffed", "-": "background:#ffeef0", "@": "color:#6f42c1"}
DIFF_PAGE = """{% extends "admin/base_site.html" %}
{% block breadcrumbs %}<div class="breadcrumbs"><a href="{% url 'admin:index' %}">Home</a> &rsaquo;
<a href="{{ change_url }}">{{ original }}</a> &rsaquo; diff</div>{% endblock %}
{% block content %}<form method="get">Compare <select name="a">{{ options_a }}</select> with
<select name="b">{{ options_b }}</select> <input type="submit" value="Show diff"></form>
<pre style="font-size:13px">{{ diff }}</pre>{% endblock %}"""


def _pre(text: str):
    return format_html('<pre style="white-space:pre-wrap">{}</pre>', text)


def _diff_link(doc_id, version: int):
    """A link to the diff that made ``version`` (from the one before it)."""
    url = reverse("admin:core_memory_corememorydocument_diff", args=[doc_id]) + f"?a={version - 1}&b={version}"
    return format_html('<a href="{}">v{} &rarr; v{}</a>', url, version - 1, version) if version > 0 else "-"


class DocumentForm(forms.ModelForm):
    # strip=False: a document is stored exactly, trailing newline included.
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "cols": 120, "style": "font-family:monospace"}),
                              strip=False)
    base_version = forms.IntegerField(widget=forms.HiddenInput, required=False)
    editor = "unknown"  # the operator's username, set per request by get_form

    class Meta:
        model = CoreMemoryDocument
        fields = ("scope", "tenant_id", "project_id", "run_id", "content")
        widgets = {f: forms.TextInput(attrs={"size": 60}) for f in ("tenant_id", "project_id", "run_id")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)  # base_version: the one being edited; a write since then is refused
        self.fields["base_version"].initial = None if self.instance._state.adding else self.instance.version

    def clean(self):
        """Write through put_document here, the only hook whose refusal can still become a form error: the
        service is the validator (parse, English gate, secrets, version, ended run) and nothing is stored when it
        refuses. The admin's change view is one transaction, and after a valid form it only logs the change."""
        data = super().clean()
        if self.errors:
            return data
        adding = self.instance._state.adding
        ws = self._new_workspace(data) if adding else Workspace(
            self.instance.tenant_id, self.instance.project_id, MemoryScope(self.instance.scope), self.instance.run_id)
        if self.errors:
            return data
        if adding and document(ws) is not None:
            raise ValidationError(f"This {ws.scope} document already exists: open it from the list and edit it.")
        text = data["content"]
        # A browser's textarea always sends CRLF; keep the stored document's own line endings instead.
        if "\r\n" not in (self.instance.content or ""):
            text = text.replace("\r\n", "\n")
        ctx = RequestContext(tenant_id=ws.tenant_id, project_id=ws.project_id, agent_id="admin", read_profile=None)
        try:
            self.written = put_document(ctx=ctx, scope=ws.scope, run_id=ws.run_id or None, text=text, actor="admin",
                                        reason=f"edited in the Django admin by {self.editor}",
                                        if_version=0 if adding else data.get("base_version"))
        except ElfError as exc:
            where = f" ({', '.join(exc.fields)})" if exc.fields else ""
            raise ValidationError(f"Not saved: {exc.message}{where}") from None
        return data

    def _new_workspace(self, data) -> Workspace:
        """The add form's workspace, with the identifier rules the API applies to the same ids."""
        scope = MemoryScope(data["scope"])
        ids = {f: data.get(f) or "" for f in ("tenant_id", "project_id", "run_id")}
        needed = {"tenant_id": True, "project_id": scope is not MemoryScope.POLICY,
                  "run_id": scope is MemoryScope.SESSION}
        for f, value in ids.items():
            problem = identifier_problem(value) if needed[f] else value and f"must be empty for {FILE_NAMES[scope]}"
            if f == "project_id" and value == ORG_PROJECT_ID:
                problem = "is reserved"
            if problem:
                self.add_error(f, f"{f} {problem}")
        return Workspace(ids["tenant_id"], ids["project_id"], scope, ids["run_id"])


@admin.register(CoreMemoryDocument)
class CoreMemoryDocumentAdmin(admin.ModelAdmin):
    form = DocumentForm
    list_display = ("tenant_id", "project_id", "scope", "run_id", "version", "run_ended_at", "updated_at")
    list_filter = ("scope", ("run_ended_at", admin.EmptyFieldListFilter), "tenant_id", "project_id")  # run ended?
    search_fields = ("tenant_id", "project_id", "run_id", "doc_id__exact")
    ordering = ("-updated_at",)
    shown = ("doc_id", "tenant_id", "project_id", "scope", "run_id", "version", "run_ended_at", "created_at",
             "updated_at", "diff_link", "current_content")
    details = ("entries_table", "versions_table")

    def has_delete_permission(self, request, obj=None):
        return False  # a document is emptied by editing it; its history stays

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("scope", "tenant_id", "project_id", "run_id", "content")
        editable = ("content", "base_version") if self.has_change_permission(request, obj) else ()
        return self.shown + editable + self.details

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.shown + self.details

    def get_changeform_initial_data(self, request):
        return {"scope": MemoryScope.POLICY, "content": f"# {TITLES[MemoryScope.POLICY]}\n\n## Guardrails\n",
                **super().get_changeform_initial_data(request)}

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"editor": request.user.get_username()})

    def save_model(self, request, obj, form, change):
        """The write happened in the form (DocumentForm.clean); show what it stored."""
        written = form.written
        for f in CoreMemoryDocument._meta.concrete_fields:
            setattr(obj, f.attname, getattr(written.doc, f.attname))
        obj._state.adding = False
        if not written.changed:
            self.message_user(request, "The content is the same as stored: no new version.", messages.INFO)

    def get_urls(self):
        diff = path("<path:object_id>/diff/", self.admin_site.admin_view(self.diff_view),
                    name="core_memory_corememorydocument_diff")
        return [diff, *super().get_urls()]  # before the change view's catch-all <path:object_id>/

    @admin.display(description="current content")
    def current_content(self, obj):
        return _pre(obj.content)

    @admin.display(description="diff (choose any two versions there)")
    def diff_link(self, obj):
        return _diff_link(obj.doc_id, obj.version)

    @admin.display(description="entries (derived from the content)")
    def entries_table(self, obj):
        rows = obj.entries.order_by("line_no")
        return html_table(("line", "key", "kind", "value", "priority", "ttl", "source", "updated", "expires"), (
            (e.line_no, e.key, e.kind, e.value, e.priority, e.ttl, e.source, e.updated_at,
             e.expires_at or ("session end" if e.until_session_end else "")) for e in rows))

    @admin.display(description=f"versions (newest {MAX_VERSION_ROWS})")
    def versions_table(self, obj):
        rows = obj.versions.order_by("-version")[:MAX_VERSION_ROWS]
        return html_table(("version", "written", "actor", "reason", "diff"), (
            (v.version, v.created_at, v.actor, v.reason, _diff_link(obj.doc_id, v.version)) for v in rows))

    def diff_view(self, request, object_id):
        """``?a=N&b=M``: the unified diff of version a to version b (default the last two; v0 is empty)."""
        doc = self.get_object(request, unquote(object_id))
        if doc is None:
            raise Http404("No such core memory document.")
        if not self.has_view_or_change_permission(request, doc):
            raise PermissionDenied
        texts = {0: "", **dict(doc.versions.values_list("version", "content"))}
        try:
            b = int(request.GET.get("b", doc.version))
            a = int(request.GET.get("a", b - 1))
        except ValueError:
            raise Http404("Versions are integers.") from None
        if a not in texts or b not in texts:
            raise Http404(f"This document has versions 0..{doc.version}.")
        lines = list(difflib.unified_diff(texts[a].splitlines(), texts[b].splitlines(), f"v{a}", f"v{b}",
                                          lineterm=""))
        diff = format_html_join("\n", '<span style="{}">{}</span>', (
            ("font-weight:bold" if i < 2 else _LINE_STYLES.get(line[:1], ""), line) for i, line in enumerate(lines)))
        context = {**self.admin_site.each_context(request), "opts": self.opts, "original": doc,
                   "title": f"{doc}: v{a} \u2192 v{b}", "diff": diff or "The two versions are identical.",
                   "change_url": reverse("admin:core_memory_corememorydocument_change", args=[doc.doc_id]),
                   "options_a": _options(texts, a), "options_b": _options(texts, b)}
        return TemplateResponse(request, engines["django"].from_string(DIFF_PAGE), context)


def _options(texts: dict[int, str], selected: int):
    return format_html_join("", '<option value="{}"{}>v{}</option>', (
        (v, " selected" if v == selected else "", v) for v in sorted(texts)))


@admin.register(CoreMemoryVersion)
class CoreMemoryVersionAdmin(ReadOnlyAdmin):
    list_display = ("doc", "version", "actor", "reason", "created_at")
    list_filter = ("doc__scope", "doc__tenant_id")
    list_select_related = ("doc",)
    search_fields = ("doc__tenant_id", "doc__run_id", "reason", "doc__doc_id__exact")
    ordering = ("-created_at",)
    exclude = ("content",)
    readonly_fields = ("diff_link", "text")

    @admin.display(description="diff")
    def diff_link(self, obj):
        return _diff_link(obj.doc_id, obj.version)

    @admin.display(description="content")
    def text(self, obj):
        return _pre(obj.content)


@admin.register(CoreMemoryAudit)
class CoreMemoryAuditAdmin(ReadOnlyAdmin):
    list_display = ("ts", "op", "scope", "key", "old_value", "new_value", "actor", "reason", "run_id", "doc_version",
                    "tenant_id", "project_id")
    list_filter = ("op", "scope", "tenant_id")
    search_fields = ("key", "run_id")
    ordering = ("-audit_id",)


@admin.register(CoreMemoryPending)
class CoreMemoryPendingAdmin(ReadOnlyAdmin):
    """Pending (inferred) entries are confirmed or rejected through the run's API, which writes SESSION/PROFILE."""

    list_display = ("created_at", "status", "scope", "kind", "key", "value", "confidence", "run_id", "tenant_id",
                    "project_id", "decided_at")
    list_filter = ("status", "scope", "tenant_id")
    search_fields = ("key", "run_id")
    ordering = ("-created_at",)
