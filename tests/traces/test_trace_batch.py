"""The trace sweep's one-statement persistence (traces.services.persist_batch) against the row-by-row one
(persist.persist_trace), in-process on the test database: the same rows for the same payloads, the same
idempotency, and every payload the statement cannot take left to the row-by-row path, where it fails alone."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from elf_domain.time_ids import uuid7
from tests.trace_payloads import make_payload
from traces.models import SearchTraceOutbox
from traces.services.enqueue import enqueue_trace
from traces.services.outbox import lease_due, process_due
from traces.services.persist import persist_trace
from traces.services.persist_batch import persist_claimed

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def only_this_tests_rows() -> None:
    """Rows other suites left due in the shared test database are put off (in this test's transaction, rolled
    back after it), so the claims and the sweep below see this test's rows alone."""
    with connection.cursor() as cur:
        cur.execute("UPDATE search_trace_outbox SET available_at = now() + interval '1 day' WHERE status <> 'DONE'")

_TRACE_COLUMNS = ("tenant_id, project_id, agent_id, read_profile, query, expansion_mode, expanded_queries, "
                  "allowed_scopes, candidate_count, top_k, config_snapshot, trace_version, created_at, expires_at")


def rows_of(trace_id: str) -> dict:
    """Every row the trace left, without the random stage and candidate ids: stage items by stage order and
    by their id's order within the stage (which must be the payload's)."""
    with connection.cursor() as cur:
        def fetch(sql):
            cur.execute(sql, [trace_id])
            return cur.fetchall()
        return {
            "trace": fetch(f"SELECT {_TRACE_COLUMNS} FROM search_traces WHERE trace_id = %s"),
            "items": fetch("SELECT item_id, note_id, chunk_id, rank, final_score, explain FROM search_trace_items "
                           "WHERE trace_id = %s ORDER BY rank, item_id"),
            "stages": fetch("SELECT stage_order, stage_name, stage_payload, created_at FROM search_trace_stages "
                            "WHERE trace_id = %s ORDER BY stage_order"),
            "stage_items": fetch(
                "SELECT s.stage_order, row_number() OVER (PARTITION BY s.stage_id ORDER BY si.id), "
                "       substring(si.id::text FROM 1 FOR 23) = substring(s.stage_id::text FROM 1 FOR 23), "
                "       si.item_id, si.note_id, si.chunk_id, si.metrics "
                "  FROM search_trace_stage_items si JOIN search_trace_stages s ON s.stage_id = si.stage_id "
                " WHERE s.trace_id = %s ORDER BY 1, 2"),
            "candidates": fetch("SELECT rank, candidate_snapshot, expires_at FROM search_trace_candidates "
                                "WHERE trace_id = %s ORDER BY rank"),
        }


def queued(payload: dict) -> SearchTraceOutbox:
    assert enqueue_trace(payload) is True
    return SearchTraceOutbox.objects.get(trace_id=payload["trace"]["trace_id"])


def again_as_new_trace(payload: dict) -> tuple[dict, dict]:
    """The same payload under a fresh trace id and fresh item ids (they are primary keys), and the map from
    the old item ids to the new ones."""
    renamed = {i["item_id"]: str(uuid.uuid4()) for i in payload["items"]}
    text = json.dumps(payload)
    for old, new in renamed.items():
        text = text.replace(old, new)
    copy = json.loads(text)
    copy["trace"]["trace_id"] = str(uuid.uuid4())
    return copy, {uuid.UUID(old): uuid.UUID(new) for old, new in renamed.items()}


def renamed_rows(rows: dict, renamed: dict) -> dict:
    """``rows`` with every item id replaced through ``renamed``."""
    swap = lambda row: tuple(renamed.get(v, v) for v in row)  # noqa: E731
    return {table: [swap(row) for row in table_rows] for table, table_rows in rows.items()}


@pytest.mark.parametrize("candidates", [None, 3])
def test_the_statement_writes_the_rows_persist_trace_writes(candidates) -> None:
    by_python = make_payload(n_items=3, stage_items=5, candidates=candidates)
    by_python["stages"][2]["items"][4]["note_id"] = None  # a stage row naming no note
    by_sql, renamed = again_as_new_trace(by_python)
    assert persist_trace(by_python) is True
    row = queued(by_sql)
    assert persist_claimed(lease_due(100)) == {row.outbox_id}

    python_rows, sql_rows = rows_of(by_python["trace"]["trace_id"]), rows_of(by_sql["trace"]["trace_id"])
    assert renamed_rows(python_rows, renamed) == sql_rows
    assert len(sql_rows["stage_items"]) == 5 * len(by_sql["stages"])
    assert all(same_prefix for _, _, same_prefix, *_ in sql_rows["stage_items"])  # ids: stage id + position
    assert len(sql_rows["candidates"]) == (candidates or 0)
    row.refresh_from_db()
    assert row.status == "DONE" and row.attempts == 0


def test_a_trace_already_persisted_is_done_without_a_second_copy() -> None:
    payload = make_payload()
    assert persist_trace(payload) is True
    before = rows_of(payload["trace"]["trace_id"])
    row = queued(payload)
    assert persist_claimed(lease_due(100)) == {row.outbox_id}
    assert rows_of(payload["trace"]["trace_id"]) == before


def test_a_lost_lease_is_not_written() -> None:
    payload = make_payload()
    row = queued(payload)
    (lease,) = lease_due(100)
    with connection.cursor() as cur:  # another worker re-claimed it: the token moved on
        cur.execute("UPDATE search_trace_outbox SET available_at = available_at + interval '1 second' "
                    "WHERE outbox_id = %s", [row.outbox_id])
    assert persist_claimed([lease]) == set()
    assert rows_of(payload["trace"]["trace_id"])["trace"] == []


def test_payloads_the_statement_cannot_take_fail_alone_in_the_sweep(test_cfg) -> None:
    good = [make_payload(candidates=2) for _ in range(3)]
    naive = make_payload()
    naive["trace"]["created_at"] = naive["trace"]["created_at"].split("+")[0]  # no time zone: left out
    other_schema = make_payload()
    other_schema["schema"] = "elf.search_trace_payload/v0"  # left out
    good_rows = [queued(p) for p in good]
    left_out = [queued(p) for p in (naive, other_schema)]
    assert process_due(cfg=test_cfg) == len(good)
    for row in good_rows:
        row.refresh_from_db()
        assert row.status == "DONE"
        assert len(rows_of(str(row.trace_id))["candidates"]) == 2
    for row in left_out:
        row.refresh_from_db()
        assert row.status == "FAILED" and row.attempts == 1 and row.last_error.startswith("ValueError:")
        assert rows_of(str(row.trace_id))["trace"] == []

    # A payload breaking a cast fails the whole statement: the sweep then goes one by one.
    broken = make_payload()
    broken["items"][0]["note_id"] = "not-a-uuid"
    more_good = [queued(make_payload()) for _ in range(2)]
    broken_row = queued(broken)
    assert process_due(cfg=test_cfg) == 2
    for row in more_good:
        row.refresh_from_db()
        assert row.status == "DONE" and rows_of(str(row.trace_id))["items"]
    broken_row.refresh_from_db()
    assert broken_row.status == "FAILED" and rows_of(str(broken_row.trace_id))["trace"] == []


def test_the_sweep_takes_more_than_one_batch(test_cfg, monkeypatch) -> None:
    from traces.services import outbox

    monkeypatch.setattr(outbox, "SWEEP_BATCH", 4)
    rows = [queued(make_payload(created_at=timezone.now() - timedelta(seconds=i))) for i in range(10)]
    assert process_due(cfg=test_cfg) == 10
    assert set(SearchTraceOutbox.objects.filter(outbox_id__in=[r.outbox_id for r in rows])
               .values_list("status", flat=True)) == {"DONE"}


def stage_ids_of(trace_id: str) -> list[uuid.UUID]:
    with connection.cursor() as cur:
        cur.execute("SELECT stage_id FROM search_trace_stages WHERE trace_id = %s ORDER BY stage_order", [trace_id])
        return [r[0] for r in cur.fetchall()]


def test_both_paths_give_stages_the_trace_ids_timestamp_and_distinct_random_parts() -> None:
    """Stage ids sort with their trace (its first 48 bits, version 7's layout) so the stage indexes grow in
    time order; the random rest is one per stage in the statement as in Python."""
    by_python = make_payload(n_items=2, stage_items=3)
    by_python["trace"]["trace_id"] = str(uuid7())
    by_sql, _ = again_as_new_trace(by_python)
    by_sql["trace"]["trace_id"] = str(uuid7())
    assert persist_trace(by_python) is True
    queued(by_sql)
    assert len(persist_claimed(lease_due(100))) == 1
    for payload in (by_python, by_sql):
        trace_id = uuid.UUID(payload["trace"]["trace_id"])
        ids = stage_ids_of(str(trace_id))
        assert len(ids) == len(payload["stages"]) >= 3
        assert len(set(ids)) == len(ids)
        assert all(s.bytes[:6] == trace_id.bytes[:6] and s.version == 7 and s.variant == uuid.RFC_4122 for s in ids)
        assert len({s.bytes[6:] for s in ids}) == len(ids)
