"""Periodic cleanup of trace data (spec v2 section 12): expired traces (their items, stages, stage items and
candidates cascade), expired candidates of live traces, and settled outbox rows. (Expired llm_cache rows
are search's: search.services.llm_cache.purge_expired.)

Outbox rows: DONE rows are kept a day (for operators), then deleted. A PENDING/FAILED row older than
``search.explain.retention_days`` is deleted too: its trace would already be past its expiry, so retrying
it can only waste work.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from elf_config import ElfConfig
from elf_domain.vocabulary import OutboxStatus

from ..models import SearchTrace, SearchTraceCandidate, SearchTraceOutbox

DONE_OUTBOX_KEEP = timedelta(days=1)


@dataclass(frozen=True)
class RetentionReport:
    traces: int
    candidates: int
    outbox_done: int
    outbox_abandoned: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def _delete(qs) -> int:
    # Every foreign key to these tables is DO_NOTHING, so Django issues one DELETE and the database's
    # ON DELETE CASCADE removes the child rows.
    return qs.delete()[0]


@transaction.atomic
def run_retention(*, cfg: ElfConfig, now: datetime | None = None) -> RetentionReport:
    now = now or timezone.now()
    return RetentionReport(
        traces=_delete(SearchTrace.objects.filter(expires_at__lte=now)),
        candidates=_delete(SearchTraceCandidate.objects.filter(expires_at__lte=now)),
        outbox_done=_delete(
            SearchTraceOutbox.objects.filter(status=OutboxStatus.DONE, updated_at__lt=now - DONE_OUTBOX_KEEP)
        ),
        outbox_abandoned=_delete(
            SearchTraceOutbox.objects.exclude(status=OutboxStatus.DONE).filter(
                created_at__lt=now - timedelta(days=cfg.search.explain.retention_days)
            )
        ),
    )
