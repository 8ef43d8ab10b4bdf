"""Outbox and index-lag gauges, read from Postgres when /metrics is scraped (one cheap query per outbox).

Depth counts the rows still to do (PENDING, and FAILED rows waiting for their retry); age is that of the oldest
of them. Index lag is the same age for the two index outboxes, plus how many notes' latest indexing job is not
DONE. Reading only: nothing here changes an outbox row.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from prometheus_client.core import GaugeMetricFamily

from ..outbox_lease import DONE, FAILED, PENDING

# Every outbox table under sql/tables (tests/kernel/test_observability.py fails when one is added and not listed).
OUTBOX_TABLES = ("indexing_outbox", "search_trace_outbox", "doc_indexing_outbox")
INDEX_OUTBOXES = {"notes": "indexing_outbox", "docs": "doc_indexing_outbox"}

_DEPTH_SQL = f"""
SELECT count(*) FILTER (WHERE status = '{PENDING}'), count(*) FILTER (WHERE status = '{FAILED}'),
       COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8
  FROM {{table}} WHERE status IN ('{PENDING}', '{FAILED}')
"""
# A note is behind when one of its jobs is not DONE and no DONE job is newer than that one.
_NOTES_BEHIND_SQL = f"""
SELECT count(DISTINCT o.note_id) FROM indexing_outbox o
 WHERE o.status IN ('{PENDING}', '{FAILED}')
   AND NOT EXISTS (SELECT 1 FROM indexing_outbox d
                    WHERE d.note_id = o.note_id AND d.status = '{DONE}' AND d.created_at > o.created_at)
"""

log = logging.getLogger("elf.metrics")


def read_outboxes() -> tuple[dict[str, tuple[int, int, float]], int]:
    """Per outbox table (pending, failed, oldest age in seconds), and the number of notes behind the index."""
    depths: dict[str, tuple[int, int, float]] = {}
    with connection.cursor() as cur:
        for table in OUTBOX_TABLES:
            cur.execute(_DEPTH_SQL.format(table=table))
            pending, failed, age = cur.fetchone()
            depths[table] = (int(pending), int(failed), float(age))
        cur.execute(_NOTES_BEHIND_SQL)
        behind = int(cur.fetchone()[0])
    return depths, behind


class OutboxCollector:
    def collect(self):
        up = GaugeMetricFamily("elf_metrics_database_up", "1 when the database gauges below could be read.")
        try:
            depths, behind = read_outboxes()
        except DatabaseError as exc:
            log.warning("metrics: could not read the outboxes: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        depth = GaugeMetricFamily("elf_outbox_depth", "Outbox rows still to process, by status.",
                                  labels=["outbox", "status"])
        age = GaugeMetricFamily("elf_outbox_oldest_pending_age_seconds",
                                "Age of the oldest PENDING or FAILED row (0 when none).", labels=["outbox"])
        for table, (pending, failed, oldest) in depths.items():
            depth.add_metric([table, PENDING], pending)
            depth.add_metric([table, FAILED], failed)
            age.add_metric([table], oldest)
        lag = GaugeMetricFamily("elf_index_lag_seconds",
                                "Age of the oldest write not yet in the vector index (0 when none).", labels=["index"])
        for index, table in INDEX_OUTBOXES.items():
            lag.add_metric([index], depths[table][2])
        notes = GaugeMetricFamily("elf_index_notes_behind", "Notes whose latest indexing job is not DONE.")
        notes.add_metric([], behind)
        yield from (depth, age, lag, notes)
