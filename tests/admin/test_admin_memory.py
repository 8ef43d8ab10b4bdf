"""Django admin for operators: notes with versions and decisions, the outbox "retry now" action."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from memory.models import IndexingOutbox, MemoryIngestDecision, MemoryNote, MemoryNoteVersion

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


def _note() -> MemoryNote:
    now = timezone.now()
    note = MemoryNote.objects.create(
        tenant_id="t-admin", project_id="p", agent_id="a", scope="agent_private", type="fact", key=None,
        text="Fact: the admin page shows this note.", importance=0.5, confidence=0.5, status="active",
        created_at=now, updated_at=now, embedding_version="local:x:384", source_ref={},
    )
    MemoryNoteVersion.objects.create(note_id=note.note_id, op="ADD", new_snapshot={"text": note.text},
                                     reason="add_note", actor="agent:a")
    MemoryIngestDecision.objects.create(
        tenant_id="t-admin", project_id="p", agent_id="a", scope="agent_private", pipeline="add_note", note_type="fact",
        note_id=note.note_id, base_decision="remember", policy_decision="remember", note_op="ADD",
        details={"similarity_best": 0.42}, ts=now,
    )
    return note


def test_note_page_shows_versions_and_decisions(admin_client, admin_port):
    note = _note()
    r = admin_client.get(f"/admin/memory/memorynote/{note.note_id}/change/", SERVER_PORT=admin_port)
    assert r.status_code == 200
    html = r.content.decode()
    assert "add_note" in html and "agent:a" in html and "0.42" in html
    listing = admin_client.get("/admin/memory/memorynote/?q=admin+page", SERVER_PORT=admin_port)
    assert str(note.note_id) in listing.content.decode()


def test_admin_is_not_on_the_public_listener(admin_client, test_stack):
    public_port = test_stack.service.http_bind.rsplit(":", 1)[1]
    assert admin_client.get("/admin/", SERVER_PORT=public_port).status_code == 404


def test_retry_now_makes_failed_rows_due(admin_client, admin_port):
    later = timezone.now() + timedelta(hours=1)
    failed = IndexingOutbox.objects.create(note_id=uuid.uuid4(), op="UPSERT", embedding_version="v", status="FAILED",
                                           attempts=3, last_error="boom", available_at=later)
    done = IndexingOutbox.objects.create(note_id=uuid.uuid4(), op="UPSERT", embedding_version="v", status="DONE",
                                         available_at=later)
    r = admin_client.post(
        "/admin/memory/indexingoutbox/",
        {"action": "retry_selected_now", "_selected_action": [str(failed.outbox_id), str(done.outbox_id)]},
        SERVER_PORT=admin_port, follow=True,
    )
    assert r.status_code == 200 and "1 row(s) made due" in r.content.decode()
    failed.refresh_from_db()
    done.refresh_from_db()
    assert failed.available_at <= timezone.now() and failed.attempts == 3
    assert done.available_at == later


def test_deprecate_action_goes_through_the_service(admin_client, admin_port):
    note = _note()
    r = admin_client.post("/admin/memory/memorynote/",
                          {"action": "deprecate_selected", "_selected_action": [str(note.note_id)]},
                          SERVER_PORT=admin_port, follow=True)
    assert r.status_code == 200 and "1 note(s) deprecated." in r.content.decode()
    note.refresh_from_db()
    assert note.status == "deprecated"
    version = MemoryNoteVersion.objects.filter(note_id=note.note_id, op="DEPRECATE").get()
    assert version.reason == "deprecate" and version.actor.startswith("admin:")
    assert IndexingOutbox.objects.filter(note_id=note.note_id, op="DELETE").count() == 1
    again = admin_client.post("/admin/memory/memorynote/",
                              {"action": "deprecate_selected", "_selected_action": [str(note.note_id)]},
                              SERVER_PORT=admin_port, follow=True)
    assert "0 note(s) deprecated." in again.content.decode()
