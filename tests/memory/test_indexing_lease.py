"""Claiming outbox rows: concurrent claims are disjoint, settling needs the lease, backoff and error text."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from datetime import timedelta

import psycopg
import pytest
from django.db import connection

from memory.indexing.lease import (
    LAST_ERROR_MAX_CHARS,
    backoff_seconds,
    error_text,
    lease_one,
    mark_all_done,
    mark_done,
    mark_failed,
    release,
)
from memory.models import IndexingOutbox
from tests.indexing_helpers import apply_schema, module_services, rows, run_django, wait_for  # noqa: F401

BARRIER_KEY = 0x454C465F54455354  # "ELF_TEST"


def test_backoff_doubles_from_half_a_second_and_caps_at_thirty() -> None:
    assert [backoff_seconds(n) for n in range(1, 9)] == [0.5, 1, 2, 4, 8, 16, 30, 30]
    assert backoff_seconds(100) == 30


def test_error_text_is_redacted_and_truncated(test_cfg) -> None:
    secrets = [test_cfg.providers.embedding.api_key, connection.settings_dict["PASSWORD"]]
    text = error_text(RuntimeError(f"boom {secrets[0]} at {secrets[1]} " + "x" * 3000), test_cfg)
    assert text.startswith("RuntimeError: boom [redacted] at [redacted] ")
    assert len(text) == LAST_ERROR_MAX_CHARS
    assert not any(secret in text for secret in secrets)


def test_two_workers_claiming_at_once_get_disjoint_rows(module_services) -> None:
    s = module_services("indexing_lease")
    apply_schema(s)
    with psycopg.connect(s.cfg.storage.postgres.dsn) as conn:
        conn.execute(
            "INSERT INTO indexing_outbox (outbox_id, note_id, op, embedding_version, status) "
            "SELECT gen_random_uuid(), gen_random_uuid(), 'UPSERT', 'v', 'PENDING' FROM generate_series(1, 400)"
        )
    claim = (
        "import json\nfrom django.db import connection\nfrom memory.indexing.lease import lease_due\n"
        f"connection.cursor().execute('SELECT pg_advisory_lock_shared({BARRIER_KEY})')\n"
        "print(json.dumps([str(lease.outbox_id) for lease in lease_due(300)]))\n"
    )
    with psycopg.connect(s.cfg.storage.postgres.dsn, autocommit=True) as barrier:
        barrier.execute("SELECT pg_advisory_lock(%s)", (BARRIER_KEY,))
        procs = [run_django(s, claim) for _ in range(2)]
        waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        wait_for(lambda: rows(s, waiting) == [(2,)], 30, "both claimers at the barrier")
        barrier.execute("SELECT pg_advisory_unlock(%s)", (BARRIER_KEY,))  # both claim at the same moment
        outputs = [p.communicate(timeout=30) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    first, second = (set(json.loads(out.strip().splitlines()[-1])) for out, _ in outputs)
    assert not first & second
    # Together they hold every row; neither more than its limit (racing, each may skip rows the other holds).
    assert len(first | second) == 400 and max(len(first), len(second)) <= 300
    assert rows(s, "SELECT count(*) FROM indexing_outbox WHERE available_at <= now()") == [(0,)]


def _row() -> IndexingOutbox:
    return IndexingOutbox.objects.create(note_id=uuid.uuid4(), op="UPSERT", embedding_version="v", status="PENDING")


def _now():
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        return cur.fetchone()[0]


@pytest.mark.django_db
def test_a_claim_hides_the_row_and_only_its_holder_settles_it(test_cfg) -> None:
    # One test transaction: now() stands still, so due times compare exactly.
    row = _row()
    lease = lease_one(row.outbox_id)
    assert lease is not None and lease.leased_until == _now() + timedelta(seconds=30)
    assert lease_one(row.outbox_id) is None

    assert mark_failed(lease, RuntimeError("provider down"), test_cfg)
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_error) == ("FAILED", 1, "RuntimeError: provider down")
    assert row.available_at == _now() + timedelta(seconds=0.5)
    assert lease_one(row.outbox_id) is None  # waiting for its backoff
    assert not mark_done(lease), "a settled lease settles nothing more"

    IndexingOutbox.objects.filter(pk=row.pk).update(available_at=_now())
    retry = lease_one(row.outbox_id)
    assert retry is not None and retry.attempts == 1
    # The lease ran out and another worker claimed the row a second later (in real time every claim's
    # token is later than the last: a row is claimable only once its available_at has passed).
    newer = replace(retry, leased_until=retry.leased_until + timedelta(seconds=1))
    IndexingOutbox.objects.filter(pk=row.pk).update(available_at=newer.leased_until)
    assert not mark_done(retry) and not mark_failed(retry, RuntimeError("late"), test_cfg)
    assert mark_done(newer)
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("DONE", 1)
    assert lease_one(row.outbox_id) is None


@pytest.mark.django_db
def test_rows_settled_together_are_those_whose_lease_still_holds() -> None:
    held, lost, finished = (lease_one(_row().outbox_id) for _ in range(3))
    IndexingOutbox.objects.filter(pk=lost.outbox_id).update(available_at=lost.leased_until + timedelta(seconds=1))
    assert mark_done(finished)
    assert mark_all_done([held, lost, finished]) == {held.outbox_id}
    status = dict(IndexingOutbox.objects.filter(pk__in=[held.outbox_id, lost.outbox_id, finished.outbox_id])
                  .values_list("outbox_id", "status"))
    assert status == {held.outbox_id: "DONE", lost.outbox_id: "PENDING", finished.outbox_id: "DONE"}
    assert mark_all_done([]) == set()


@pytest.mark.django_db
def test_a_released_row_is_due_again_without_an_attempt() -> None:
    row = _row()
    lease = lease_one(row.outbox_id)
    assert release(lease)
    again = lease_one(row.outbox_id)
    assert again is not None and again.attempts == 0
