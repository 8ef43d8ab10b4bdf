"""The search side of trace persistence: hand a trace payload over without ever failing the search.

Outbox mode (default): a PENDING search_trace_outbox row, one INSERT that is its own transaction (a
savepoint when the caller is inside one). No task is sent per search: the worker's trace sweep
(``traces.sweep_trace_outbox``, every second) persists the due rows in batches, so a trace is readable about
a second after its search. A per-search task cost the API 0.7 ms of CPU (the broker publish, on a thread that
competes with the requests for the GIL) and the worker a task per search. Inline mode persists the trace
right away.

``outbox_insert`` gives the same row as one INSERT for a caller that writes it in the statement of its own
rows (the search session: one round trip, no transaction block).
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection

from elf_domain.time_ids import uuid7
from elf_domain.vocabulary import TRACE_WRITE_MODES, OutboxStatus, TraceWriteMode
from elf_kernel.db_statements import statement_scope
from elf_kernel.json_text import json_text

from .persist import persist_trace

log = logging.getLogger("elf.traces")
PROCESS_TRACE_TASK = "traces.process_trace_outbox_row"  # one row by id: searches send none (older releases did)


def enqueue_trace(payload: dict[str, Any], *, write_mode: str = TraceWriteMode.OUTBOX) -> bool:
    """Best effort: True when the trace was queued (outbox) or written (inline); False, logged, otherwise."""
    try:
        if write_mode not in TRACE_WRITE_MODES:
            raise ValueError(f"unknown trace write_mode {write_mode!r}")
        if write_mode == TraceWriteMode.INLINE:
            persist_trace(payload)
            return True
        sql, params = outbox_insert(payload)
        with statement_scope(), connection.cursor() as cur:
            cur.execute(sql, params)
    except Exception:
        trace_id = payload.get("trace", {}).get("trace_id") if isinstance(payload, dict) else None
        log.warning("search trace %s not recorded (%s mode)", trace_id, write_mode, exc_info=True)
        return False
    return True


def outbox_insert(payload: dict[str, Any]) -> tuple[str, list]:
    """The INSERT of ``payload``'s PENDING outbox row (SQL and parameters), for a caller that runs it as a
    data-modifying CTE of its own statement."""
    sql = ("INSERT INTO search_trace_outbox (outbox_id, trace_id, status, payload) "
           "VALUES (%s, %s, %s, %s::jsonb)")
    return sql, [uuid7(), payload["trace"]["trace_id"], OutboxStatus.PENDING, json_text(payload)]
