"""Django admin for core memory: document pages with content, entries, versions and the version diff; edits and
new POLICY.md documents saved through put_document (refusals shown as form errors, nothing stored); the audit
and pending lists."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import Permission

from core_memory.domain.vocabulary import MemoryScope
from core_memory.models import CoreMemoryAudit, CoreMemoryDocument, CoreMemoryPending, CoreMemoryVersion
from core_memory.services.entries import put_document
from elf_kernel.context import RequestContext

pytestmark = pytest.mark.django_db
DOCS = "/admin/core_memory/corememorydocument/"
POLICY_V1 = ("# POLICY\n\n## Guardrails\n"
             "- key:policy.reply.tone | value:Answer in a formal tone | priority:100\n"
             "- key:policy.prohibit.secrets | value:Never reveal <b>credentials</b> | priority:100\n")
POLICY_V2 = POLICY_V1.replace("Answer in a formal tone", "Answer in a friendly tone")


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


@pytest.fixture
def tenant() -> str:
    return f"t-cmadm-{uuid.uuid4().hex[:12]}"


def _policy(tenant: str, *texts: str) -> CoreMemoryDocument:
    ctx = RequestContext(tenant_id=tenant, project_id="p-any", agent_id="a", read_profile=None)
    for text in texts:
        result = put_document(ctx=ctx, scope=MemoryScope.POLICY, run_id=None, text=text, actor="admin",
                              reason="test setup", if_version=None)
    return result.doc


def _get(client, port: str, url: str) -> str:
    r = client.get(url, SERVER_PORT=port)
    assert r.status_code == 200, r.status_code
    return r.content.decode()


def test_document_list_and_page_show_the_content_escaped(admin_client, admin_port, tenant):
    doc = _policy(tenant, POLICY_V1)
    listing = _get(admin_client, admin_port, f"{DOCS}?tenant_id={tenant}&run_ended_at__isempty=1")
    assert tenant in listing and "policy" in listing
    page = _get(admin_client, admin_port, f"{DOCS}{doc.doc_id}/change/")
    assert "<pre" in page and "Answer in a formal tone" in page
    assert "Never reveal &lt;b&gt;credentials&lt;/b&gt;" in page and "<b>credentials" not in page
    assert "policy.prohibit.secrets" in page and "test setup" in page  # the entries and versions tables
    assert f"{DOCS}{doc.doc_id}/diff/?a=0&amp;b=1" in page


def test_diff_view_shows_the_removed_and_the_added_line(admin_client, admin_port, tenant):
    doc = _policy(tenant, POLICY_V1, POLICY_V2)
    html = _get(admin_client, admin_port, f"{DOCS}{doc.doc_id}/diff/")  # default: the last two versions
    assert "v1 → v2" in html
    assert "-- key:policy.reply.tone | value:Answer in a formal tone" in html
    assert "+- key:policy.reply.tone | value:Answer in a friendly tone" in html
    whole = _get(admin_client, admin_port, f"{DOCS}{doc.doc_id}/diff/?a=0&b=2")
    assert "+## Guardrails" in whole and "+- key:policy.prohibit.secrets" in whole
    assert admin_client.get(f"{DOCS}{doc.doc_id}/diff/?a=0&b=9", SERVER_PORT=admin_port).status_code == 404


def test_a_view_only_operator_reads_but_gets_no_edit_form(client, django_user_model, admin_port, tenant):
    doc = _policy(tenant, POLICY_V1, POLICY_V2)
    viewer = django_user_model.objects.create_user("cm-viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_corememorydocument"))
    client.force_login(viewer)
    page = _get(client, admin_port, f"{DOCS}{doc.doc_id}/change/")
    assert "Answer in a friendly tone" in page and "<textarea" not in page
    assert "v1 → v2" in _get(client, admin_port, f"{DOCS}{doc.doc_id}/diff/")
    assert _save(client, admin_port, doc, POLICY_V1, 2).status_code == 403


def _save(client, port: str, doc: CoreMemoryDocument, content: str, base_version: int):
    return client.post(f"{DOCS}{doc.doc_id}/change/", {"content": content, "base_version": base_version,
                                                       "_save": "Save"}, SERVER_PORT=port)


def test_saving_an_edited_policy_writes_a_version_and_an_audit_row(admin_client, admin_port, tenant):
    doc = _policy(tenant, POLICY_V1)
    r = _save(admin_client, admin_port, doc, POLICY_V2.replace("\n", "\r\n"), 1)  # a browser sends CRLF
    assert r.status_code == 302, r.content.decode()[:2000]
    doc.refresh_from_db()
    assert doc.version == 2 and doc.content == POLICY_V2
    version = CoreMemoryVersion.objects.get(doc=doc, version=2)
    assert version.actor == "admin" and version.reason == "edited in the Django admin by admin"
    audit = CoreMemoryAudit.objects.get(tenant_id=tenant, doc_version=2)
    assert (audit.op, audit.key, audit.old_value, audit.new_value) == (
        "upsert", "policy.reply.tone", "Answer in a formal tone", "Answer in a friendly tone")


@pytest.mark.parametrize(("bad", "error"), [
    ("- value:a line without a key | priority:100", "Line 6, key: the entry has no key"),
    ("- key:policy.reply.language | value:ตอบเป็นภาษาไทยเสมอ", "Non-English input detected"),
])
def test_a_refused_edit_shows_the_error_and_stores_nothing(admin_client, admin_port, tenant, bad, error):
    doc = _policy(tenant, POLICY_V1)
    audits = CoreMemoryAudit.objects.filter(tenant_id=tenant).count()
    r = _save(admin_client, admin_port, doc, POLICY_V1 + bad + "\n", 1)
    assert r.status_code == 200 and error in r.content.decode()
    doc.refresh_from_db()
    assert doc.version == 1 and doc.content == POLICY_V1
    assert CoreMemoryAudit.objects.filter(tenant_id=tenant).count() == audits


def test_a_stale_edit_is_refused_with_the_version_conflict(admin_client, admin_port, tenant):
    doc = _policy(tenant, POLICY_V1, POLICY_V2)
    r = _save(admin_client, admin_port, doc, POLICY_V1, 1)  # the operator opened the page at version 1
    assert r.status_code == 200 and "The document is at version 2, not 1" in r.content.decode()
    doc.refresh_from_db()
    assert doc.version == 2


def test_the_add_form_creates_a_tenants_policy_once(admin_client, admin_port, tenant):
    form = {"scope": "policy", "tenant_id": tenant, "project_id": "", "run_id": "", "content": POLICY_V1,
            "_save": "Save"}
    r = admin_client.post(f"{DOCS}add/", form, SERVER_PORT=admin_port)
    assert r.status_code == 302, r.content.decode()[:2000]
    doc = CoreMemoryDocument.objects.get(tenant_id=tenant, scope="policy")
    assert (doc.project_id, doc.version, doc.content) == ("", 1, POLICY_V1)
    assert doc.entries.count() == 2
    again = admin_client.post(f"{DOCS}add/", form, SERVER_PORT=admin_port)
    assert again.status_code == 200 and "already exists" in again.content.decode()
    profile = admin_client.post(f"{DOCS}add/", {**form, "scope": "profile"}, SERVER_PORT=admin_port)
    assert profile.status_code == 200 and "project_id must be non-empty" in profile.content.decode()
    session = {**form, "scope": "session", "project_id": "p1", "run_id": "run-1",
               "content": "# SESSION\n\n## Context\n- key:task.goal | value:Ship the admin | ttl:session_end\n"}
    assert admin_client.post(f"{DOCS}add/", session, SERVER_PORT=admin_port).status_code == 302
    doc = CoreMemoryDocument.objects.get(tenant_id=tenant, scope="session", project_id="p1", run_id="run-1")
    assert "session end" in _get(admin_client, admin_port, f"{DOCS}{doc.doc_id}/change/")


def test_the_audit_and_pending_lists_render(admin_client, admin_port, tenant):
    _policy(tenant, POLICY_V1, POLICY_V2)
    CoreMemoryPending.objects.create(
        tenant_id=tenant, project_id="p1", run_id="run-cmadm", scope="profile", kind="preference",
        key="response.tone", value="Prefers short answers", priority=50, ttl="none", source="user_inferred",
        confidence=0.6, reason="inferred from the conversation", status="pending")
    audit = _get(admin_client, admin_port, f"/admin/core_memory/corememoryaudit/?tenant_id={tenant}&op=upsert")
    assert "policy.reply.tone" in audit and "Answer in a friendly tone" in audit
    pending = _get(admin_client, admin_port, "/admin/core_memory/corememorypending/?status=pending&q=run-cmadm")
    assert "Prefers short answers" in pending
    versions = _get(admin_client, admin_port, f"/admin/core_memory/corememoryversion/?doc__tenant_id={tenant}")
    assert "test setup" in versions
    v2 = CoreMemoryVersion.objects.get(doc__tenant_id=tenant, version=2)
    page = _get(admin_client, admin_port, f"/admin/core_memory/corememoryversion/{v2.version_id}/change/")
    assert "Answer in a friendly tone" in page and "diff/?a=1&amp;b=2" in page
