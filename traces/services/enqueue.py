"""The search side of trace persistence: hand a trace payload over without ever failing the search.

Outbox mode (default): a PENDING search_trace_outbox row in its own transaction (a savepoint when the
caller is inside one: the search use case writes it with the search session, one commit), then, after
commit, the ``traces.process_trace_outbox_row`` task, sent by the process's publisher thread
(elf_infra.index.dispatch), not by the request. The worker's sweep picks up the row if the task is lost.
Inline mode persists the trace right away.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from elf_infra.index.dispatch import dispatch_on_commit
from elf_domain.vocabulary import OutboxStatus

from ..models import SearchTraceOutbox
from .persist import persist_trace

log = logging.getLogger("elf.traces")
PROCESS_TRACE_TASK = "traces.process_trace_outbox_row"
WRITE_MODES = ("outbox", "inline")


def enqueue_trace(payload: dict[str, Any], *, write_mode: str = "outbox") -> bool:
    """Best effort: True when the trace was queued (outbox) or written (inline); False, logged, otherwise."""
    try:
        if write_mode not in WRITE_MODES:
            raise ValueError(f"unknown trace write_mode {write_mode!r}")
        if write_mode == "inline":
            persist_trace(payload)
            return True
        with transaction.atomic():
            row = SearchTraceOutbox.objects.create(
                trace_id=payload["trace"]["trace_id"], payload=payload, status=OutboxStatus.PENDING
            )
            dispatch_on_commit(PROCESS_TRACE_TASK, row.outbox_id, log=log)
    except Exception:
        trace_id = payload.get("trace", {}).get("trace_id") if isinstance(payload, dict) else None
        log.warning("search trace %s not recorded (%s mode)", trace_id, write_mode, exc_info=True)
        return False
    return True
