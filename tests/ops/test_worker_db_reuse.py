"""elf-worker reuses its Postgres connections across tasks (docs/operations.md, "Sizing").

Celery's Django fixup used to close Django's connection pool around every task of a prefork process
(celery/celery#10554): each outbox row then cost two new Postgres sessions. Counted here with Postgres's own
session counter for the service's database while a real worker indexes notes written one by one.
"""

from __future__ import annotations

import time

import psycopg

from bench.add_note_bench import sentences
from tests.notes_helpers import ingest, note, rows

NOTES = 40


def _sessions(s) -> int:
    with psycopg.connect(s.cfg.storage.postgres.dsn, autocommit=True) as conn:
        time.sleep(1.2)  # backends report their counters to the cumulative statistics at most once a second
        conn.execute("SELECT pg_stat_clear_snapshot()")
        db = s.cfg.storage.postgres.dsn.rsplit("/", 1)[1]
        return conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = %s", (db,)).fetchone()[0]


def _wait_drained(conn, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while conn.execute("SELECT count(*) FROM indexing_outbox WHERE status <> 'DONE'").fetchone()[0]:
        assert time.monotonic() < deadline, "the worker did not index the notes"
        time.sleep(0.3)


def test_worker_indexes_note_after_note_without_a_postgres_session_per_task(isolated_services):
    s = isolated_services("dbreuse")
    s.start_api()
    s.start_worker()
    texts = sentences(NOTES + 5)  # distinct LoCoMo lines: the resolver stores each as a note of its own
    # Watched over one connection, so that the count below holds only the services' sessions.
    with psycopg.connect(s.cfg.storage.postgres.dsn, autocommit=True) as conn:
        for t in texts[:5]:  # warm-up: the API's and the worker's pools open their connections
            assert ingest(s, [note(t)]).status_code == 200
        _wait_drained(conn)
        before = _sessions(s)
        # One note per request while the worker runs: each commit sends its own indexing task.
        for t in texts[5:]:
            r = ingest(s, [note(t)])
            assert r.status_code == 200, r.text
        _wait_drained(conn)
        opened = _sessions(s) - before - 1  # less the counting connection of the second read
    jobs = len(rows(s, "SELECT 1 FROM indexing_outbox")) - 5
    assert jobs >= NOTES // 2, jobs
    # Before the fix: at least two per task (prerun and postrun each closed the pool). Now: about none.
    assert opened < jobs // 4, (opened, jobs)
