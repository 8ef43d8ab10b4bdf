"""Lifecycle GC (spec v2 section 11): expire notes past their TTL, purge old deleted and deprecated notes.

Runs from the worker's beat every hour rather than daily: expiry then lags a TTL by at most an hour, and
each run stays small. Search re-validates expires_at anyway, so an expired note is never returned in
between; GC only makes the status, the audit trail and the index catch up.

Work goes in batches, one transaction per batch, claiming rows with ``FOR UPDATE SKIP LOCKED`` so a note
being changed by a request (or by another GC run) is left for the next run instead of waited on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from elf_config import ElfConfig

from ..indexing.outbox import enqueue
from ..models import MemoryNote, NoteStatus, OutboxOp, VersionOp
from .versions import note_snapshot, record_version

BATCH = 500
ACTOR = "system:lifecycle"
EXPIRED_REASON = "expired"


@dataclass(frozen=True)
class GcReport:
    expired: int
    purged_deleted: int
    purged_deprecated: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def run_gc(*, cfg: ElfConfig) -> GcReport:
    """Expire, then purge (a note expired now is purged only after purge_deleted_after_days)."""
    expired = expire_notes(cfg=cfg)
    purged_deleted, purged_deprecated = purge_notes(cfg=cfg)
    return GcReport(expired, purged_deleted, purged_deprecated)


def expire_notes(*, cfg: ElfConfig) -> int:
    """Notes (active or deprecated) with expires_at < now become deleted: version row DELETE with reason
    "expired" and an outbox DELETE for their points, in the batch's transaction. Returns the count."""
    total = 0
    while True:
        with transaction.atomic():
            now = timezone.now()
            notes = list(
                MemoryNote.objects.select_for_update(skip_locked=True)
                .filter(status__in=[NoteStatus.ACTIVE, NoteStatus.DEPRECATED], expires_at__lt=now)
                .order_by("expires_at")[:BATCH]
            )
            for note in notes:
                prev = note_snapshot(note)
                note.status, note.updated_at = NoteStatus.DELETED, now
                note.save(update_fields=["status", "updated_at"])
                record_version(note_id=note.note_id, op=VersionOp.DELETE, prev=prev, new=note_snapshot(note),
                               reason=EXPIRED_REASON, actor=ACTOR)
                enqueue(note_id=note.note_id, op=OutboxOp.DELETE, embedding_version=cfg.embedding_version)
        total += len(notes)
        if len(notes) < BATCH:
            return total


def _needs_delete_job(note_ids: list) -> set:
    """The notes among ``note_ids`` with no DELETE outbox row at least as new as their latest UPSERT row
    (their points may still be in Qdrant)."""
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT n.note_id FROM unnest(%s::uuid[]) AS n(note_id)
             WHERE NOT EXISTS (
                   SELECT 1 FROM indexing_outbox d
                    WHERE d.note_id = n.note_id AND d.op = %s
                      AND d.created_at >= COALESCE(
                          (SELECT max(u.created_at) FROM indexing_outbox u
                            WHERE u.note_id = n.note_id AND u.op = %s), '-infinity'))
            """,
            [note_ids, OutboxOp.DELETE, OutboxOp.UPSERT],
        )
        return {row[0] for row in cur.fetchall()}


def purge_notes(*, cfg: ElfConfig) -> tuple[int, int]:
    """Hard-delete deleted notes not updated for purge_deleted_after_days, and deprecated notes whose last
    hit (or last update, if never hit) is older than purge_deprecated_after_days. Chunks, vectors, fields
    and graph evidence cascade; version history and outbox rows stay. Returns (deleted, deprecated) counts."""
    now = timezone.now()
    deleted_before = now - timedelta(days=cfg.lifecycle.purge_deleted_after_days)
    deprecated_before = now - timedelta(days=cfg.lifecycle.purge_deprecated_after_days)
    due = Q(status=NoteStatus.DELETED, updated_at__lt=deleted_before) | Q(
        status=NoteStatus.DEPRECATED, last_activity__lt=deprecated_before
    )
    counts = {NoteStatus.DELETED: 0, NoteStatus.DEPRECATED: 0}
    while True:
        with transaction.atomic():
            rows = list(
                MemoryNote.objects.select_for_update(skip_locked=True)
                .annotate(last_activity=Coalesce("last_hit_at", "updated_at"))
                .filter(due)
                .values_list("note_id", "status")[:BATCH]
            )
            note_ids = [note_id for note_id, _ in rows]
            if note_ids:
                for note_id in _needs_delete_job(note_ids):
                    enqueue(note_id=note_id, op=OutboxOp.DELETE, embedding_version=cfg.embedding_version)
                MemoryNote.objects.filter(note_id__in=note_ids).delete()
        for _, status in rows:
            counts[status] += 1
        if len(rows) < BATCH:
            return counts[NoteStatus.DELETED], counts[NoteStatus.DEPRECATED]
