"""Derived views are disposable (PRD principle P2, scenario A11): the chunks of a tenant (or of all tenants) are
dropped and derived again from the append-only events, with the same ids, so bundles come out the same."""

from __future__ import annotations

from django.db import transaction

from ..models import AcbChunk, AcbEvent
from .event_log import chunk_rows

BATCH = 1000


@transaction.atomic
def rebuild_chunks(*, tenant_id: str | None = None) -> tuple[int, int]:
    """(events read, chunks written)."""
    events = AcbEvent.objects.all() if tenant_id is None else AcbEvent.objects.filter(tenant_id=tenant_id)
    chunks = AcbChunk.objects.all() if tenant_id is None else AcbChunk.objects.filter(tenant_id=tenant_id)
    chunks.delete()
    seen = written = 0
    batch = []
    for event in events.order_by("event_id").iterator(chunk_size=BATCH):
        seen += 1
        batch.extend(chunk_rows(event))
        if len(batch) >= BATCH:
            AcbChunk.objects.bulk_create(batch)
            written, batch = written + len(batch), []
    AcbChunk.objects.bulk_create(batch)
    return seen, written + len(batch)
