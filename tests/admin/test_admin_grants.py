"""Django admin: space grants (active and revoked) and who can read a given note."""

from __future__ import annotations

import pytest
from django.utils import timezone

from memory.models import MemoryNote, MemorySpaceGrant

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


def _note(scope: str, project: str = "p-adm", agent: str = "owner-adm") -> MemoryNote:
    now = timezone.now()
    return MemoryNote.objects.create(
        tenant_id="t-adm", project_id=project, agent_id=agent, scope=scope, type="fact", key=None,
        text="Fact: the admin lists who reads this.", importance=0.5, confidence=0.5, status="active",
        created_at=now, updated_at=now, embedding_version="local:x:384", source_ref={},
    )


def _grant(
    kind: str, grantee: str | None, *, scope="project_shared", project="p-adm", revoked=False
) -> MemorySpaceGrant:
    return MemorySpaceGrant.objects.create(
        tenant_id="t-adm",
        project_id=project,
        scope=scope,
        space_owner_agent_id="owner-adm",
        grantee_kind=kind,
        grantee_agent_id=grantee,
        granted_by_agent_id="owner-adm",
        granted_at=timezone.now(),
        revoked_at=timezone.now() if revoked else None,
        revoked_by_agent_id="owner-adm" if revoked else None,
    )


def _readers_html(admin_client, admin_port, note) -> str:
    r = admin_client.get(f"/admin/memory/memorynote/{note.note_id}/change/", SERVER_PORT=admin_port)
    assert r.status_code == 200
    html = r.content.decode()
    return html[html.lower().index("who can read") :]


def test_note_page_lists_owner_and_active_grants_only(admin_client, admin_port):
    note = _note("project_shared")
    _grant("agent", "helper-adm")
    _grant("agent", "gone-adm", revoked=True)
    _grant("project", None, scope="org_shared", project="__org__")  # another space: not a reader of this note
    html = _readers_html(admin_client, admin_port, note)
    assert "agent owner-adm" in html and "agent helper-adm of project p-adm" in html
    assert "gone-adm" not in html and "every agent" not in html


def test_private_note_is_read_by_its_owner_only(admin_client, admin_port):
    note = _note("agent_private")
    _grant("project", None)
    html = _readers_html(admin_client, admin_port, note)
    assert "agent owner-adm" in html and "every agent" not in html


def test_org_note_project_grant_reads_as_tenant_wide(admin_client, admin_port):
    note = _note("org_shared", project="__org__")
    _grant("project", None, scope="org_shared", project="__org__")
    assert "every agent of tenant t-adm" in _readers_html(admin_client, admin_port, note)


def test_grant_list_filters_active_and_revoked(admin_client, admin_port):
    _grant("agent", "live-adm")
    _grant("agent", "dead-adm", revoked=True)
    active = admin_client.get("/admin/memory/memoryspacegrant/?state=active", SERVER_PORT=admin_port).content.decode()
    revoked = admin_client.get("/admin/memory/memoryspacegrant/?state=revoked", SERVER_PORT=admin_port).content.decode()
    assert "live-adm" in active and "dead-adm" not in active
    assert "dead-adm" in revoked and "live-adm" not in revoked
