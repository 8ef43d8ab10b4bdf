"""Retention of built bundles: acb_bundles rows older than ``acb.bundle_retention_days`` (default 7) are deleted.

Only bundles: a bundle is a derived, rebuildable view kept for the operators. The event log (acb_events) is
append-only (a trigger refuses DELETE) and is never touched here, nor are chunks, decisions, tasks or artifacts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from elf_config import ElfConfig

BATCH = 5000  # rows per DELETE, so one run never holds a long lock on a large backlog


@dataclass(frozen=True)
class BundleRetentionReport:
    bundles: int
    cutoff: str

    def as_dict(self) -> dict:
        return asdict(self)


def purge_bundles(*, cfg: ElfConfig, now: datetime | None = None) -> BundleRetentionReport:
    """Delete the bundles created before ``now - acb.bundle_retention_days``, in batches (each its own statement)."""
    cutoff = (now or timezone.now()) - timedelta(days=cfg.acb.bundle_retention_days)
    deleted = 0
    with connection.cursor() as cur:
        while True:
            cur.execute(
                """DELETE FROM acb_bundles WHERE acb_id IN (
                       SELECT acb_id FROM acb_bundles WHERE created_at < %s ORDER BY created_at LIMIT %s
                       FOR UPDATE SKIP LOCKED)""",
                [cutoff, BATCH])
            deleted += cur.rowcount
            if cur.rowcount < BATCH:
                break
    return BundleRetentionReport(bundles=deleted, cutoff=cutoff.isoformat())
