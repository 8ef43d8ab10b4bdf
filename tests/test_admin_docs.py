"""Django admin for the Doc Extension: the doc outbox's "retry now" action."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from docs_ext.models import DocIndexingOutbox

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
