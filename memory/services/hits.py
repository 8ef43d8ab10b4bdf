"""Hit bookkeeping on notes (spec v2 section 13 step 18): a search or a session hydration that returned
notes bumps their hit counters and appends one memory_hits row per returned note."""

from __future__ import annotations

from blake3 import blake3
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from ..models import MemoryHit, MemoryNote


@transaction.atomic
def record_hits(query: str, hits: list[tuple]) -> None:
    """hit_count + 1, last_hit_at and one memory_hits row per (note_id, chunk_id | None, final_score),
    ranked in the given order."""
    now = timezone.now()
    query_hash = blake3(query.strip().encode()).hexdigest()
    MemoryNote.objects.filter(note_id__in=[h[0] for h in hits]).update(hit_count=F("hit_count") + 1, last_hit_at=now)
    MemoryHit.objects.bulk_create([
        MemoryHit(note_id=note_id, chunk_id=chunk_id, query_hash=query_hash, rank=n + 1, final_score=score, ts=now)
        for n, (note_id, chunk_id, score) in enumerate(hits)])
