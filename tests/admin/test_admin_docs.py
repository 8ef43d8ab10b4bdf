"""Django admin for the Doc Extension: documents with their chunks and the verify action, and the doc outbox's
"retry now" action."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from docs_ext.domain.excerpts import blake3_hex
from docs_ext.models import DocChunk, DocDocument, DocIndexingOutbox

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


def test_retry_now_makes_failed_doc_rows_due(admin_client, admin_port):
    later = timezone.now() + timedelta(hours=1)
    failed = DocIndexingOutbox.objects.create(doc_id=uuid.uuid4(), op="UPSERT", embedding_version="v",
                                              status="FAILED", attempts=3, last_error="boom", available_at=later)
    done = DocIndexingOutbox.objects.create(doc_id=uuid.uuid4(), op="UPSERT", embedding_version="v", status="DONE",
                                            available_at=later)
    r = admin_client.post(
        "/admin/docs_ext/docindexingoutbox/",
        {"action": "retry_selected_now", "_selected_action": [str(failed.outbox_id), str(done.outbox_id)]},
        SERVER_PORT=admin_port, follow=True,
    )
    assert r.status_code == 200 and "1 row(s) made due" in r.content.decode()
    failed.refresh_from_db()
    done.refresh_from_db()
    assert failed.available_at <= timezone.now() and failed.attempts == 3 and failed.status == "FAILED"
    assert done.available_at == later


def _doc_with_chunks(content: str, *, tamper_chunk: bool = False) -> DocDocument:
    data = content.encode()
    doc = DocDocument.objects.create(tenant_id="t-admin-docs", project_id="p1", agent_id="a1", scope="agent_private",
                                     title="Runbook", content=content, content_hash=blake3_hex(data),
                                     content_bytes=len(data), status="active")
    half = len(data) // 2
    for i, (start, end) in enumerate(((0, half), (half, len(data)))):
        text = data[start:end].decode()
        DocChunk.objects.create(doc=doc, chunk_index=i, start_offset=start, end_offset=end, chunk_text=text,
                                chunk_hash=blake3_hex("tampered" if tamper_chunk and i == 1 else text))
    return doc


def test_document_page_shows_chunks_and_the_verify_action_reports(admin_client, admin_port):
    sound = _doc_with_chunks("The runbook says: restart the worker, then check the outbox.")
    broken = _doc_with_chunks("The runbook says: drain the queue before any upgrade.", tamper_chunk=True)
    page = admin_client.get(f"/admin/docs_ext/docdocument/{sound.doc_id}/change/", SERVER_PORT=admin_port)
    assert page.status_code == 200 and "The runbook says: restart" in page.content.decode()  # chunk 0's text
    r = admin_client.post("/admin/docs_ext/docdocument/",
                          {"action": "verify_selected", "_selected_action": [str(sound.doc_id), str(broken.doc_id)]},
                          SERVER_PORT=admin_port, follow=True)
    html = r.content.decode()
    assert "content and 2 chunk(s) verified" in html and "chunk 1: chunk_hash does not match its text" in html
