"""Trace persistence in-process (django_db): persist + idempotency, the outbox FAILED -> DONE path,
best-effort enqueue, retention. Payloads follow ``traces.domain.trace_payload``."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from search.models import LlmCache
from search.services.llm_cache import purge_expired
from tests.trace_payloads import make_payload
from traces.domain.trace_payload import STAGE_NAMES, TRACE_PAYLOAD_SCHEMA
from traces.models import (
    SearchTrace,
    SearchTraceCandidate,
    SearchTraceItem,
    SearchTraceOutbox,
    SearchTraceStage,
    SearchTraceStageItem,
)
from traces.services.enqueue import enqueue_trace
from traces.services.outbox import lease_one, process_row
from traces.services.persist import persist_trace
from traces.services.retention import run_retention

pytestmark = pytest.mark.django_db


def counts(trace_id) -> dict[str, int]:
    return {
        "traces": SearchTrace.objects.filter(trace_id=trace_id).count(),
        "items": SearchTraceItem.objects.filter(trace_id=trace_id).count(),
        "stages": SearchTraceStage.objects.filter(trace_id=trace_id).count(),
        "stage_items": SearchTraceStageItem.objects.filter(stage__trace_id=trace_id).count(),
        "candidates": SearchTraceCandidate.objects.filter(trace_id=trace_id).count(),
    }


def test_persist_writes_every_table_in_payload_order() -> None:
    payload = make_payload(candidates=4)
    trace_id = payload["trace"]["trace_id"]
    assert persist_trace(payload) is True
    assert counts(trace_id) == {"traces": 1, "items": 2, "stages": len(STAGE_NAMES),
                                "stage_items": 3 * len(STAGE_NAMES), "candidates": 4}
    trace = SearchTrace.objects.get(trace_id=trace_id)
    assert trace.query == payload["trace"]["query"] and trace.allowed_scopes == ["agent_private", "project_shared"]
    item = SearchTraceItem.objects.get(item_id=payload["items"][0]["item_id"])
    assert item.explain == payload["items"][0]["explain"] and item.rank == 1
    stages = list(SearchTraceStage.objects.filter(trace_id=trace_id).order_by("stage_order"))
    assert [s.stage_name for s in stages] == list(STAGE_NAMES)
    rows = SearchTraceStageItem.objects.filter(stage=stages[0]).order_by("id")
    assert [r.metrics["position"] for r in rows] == [0, 1, 2]  # ids sort in payload order


def test_persist_is_idempotent_on_trace_id() -> None:
    payload = make_payload()
    assert persist_trace(payload) is True
    before = counts(payload["trace"]["trace_id"])
    assert persist_trace(payload) is False
    assert counts(payload["trace"]["trace_id"]) == before


def test_persist_of_a_bad_payload_writes_nothing() -> None:
    payload = make_payload()
    payload["stages"][-1]["items"][0]["note_id"] = "not-a-uuid"
    with pytest.raises(ValueError):
        persist_trace(payload)
    assert counts(payload["trace"]["trace_id"])["traces"] == 0


def test_outbox_failed_row_retries_to_done(test_cfg) -> None:
    payload = make_payload()
    payload["items"][1]["note_id"] = "not-a-uuid"
    assert enqueue_trace(payload) is True
    row = SearchTraceOutbox.objects.get(trace_id=payload["trace"]["trace_id"])
    assert row.status == "PENDING" and row.attempts == 0

    assert process_row(cfg=test_cfg, outbox_id=row.outbox_id) is False
    row.refresh_from_db()
    assert row.status == "FAILED" and row.attempts == 1
    assert row.last_error.startswith("ValueError:") and len(row.last_error) <= 1024
    assert lease_one(row.outbox_id) is None  # waiting for its backoff: not due
    assert counts(row.trace_id)["traces"] == 0

    payload["items"][1]["note_id"] = str(uuid.uuid4())
    with connection.cursor() as cur:  # the payload is fixed and the backoff has run out
        cur.execute("UPDATE search_trace_outbox SET payload = %s::jsonb, available_at = now() - interval '1 second' "
                    "WHERE outbox_id = %s", [json.dumps(payload), row.outbox_id])
    assert process_row(cfg=test_cfg, outbox_id=row.outbox_id) is True
    row.refresh_from_db()
    assert row.status == "DONE" and row.attempts == 1
    assert counts(row.trace_id)["items"] == 2
    assert process_row(cfg=test_cfg, outbox_id=row.outbox_id) is False  # DONE rows are never claimed again


def test_enqueue_returns_false_when_the_insert_fails() -> None:
    payload = make_payload(query="nul \x00 byte")  # jsonb rejects \u0000: the INSERT itself fails
    assert enqueue_trace(payload) is False
    assert not SearchTraceOutbox.objects.filter(trace_id=payload["trace"]["trace_id"]).exists()
    assert persist_trace(make_payload()) is True  # the caller's transaction is still usable


def test_enqueue_never_raises_on_a_malformed_payload() -> None:
    assert enqueue_trace({"schema": TRACE_PAYLOAD_SCHEMA}) is False
    assert enqueue_trace(make_payload(), write_mode="sideways") is False


def test_inline_write_mode_persists_at_once() -> None:
    payload = make_payload()
    assert enqueue_trace(payload, write_mode="inline") is True
    assert counts(payload["trace"]["trace_id"])["items"] == 2
    assert not SearchTraceOutbox.objects.filter(trace_id=payload["trace"]["trace_id"]).exists()


def test_retention_deletes_expired_rows_and_cascades(test_cfg) -> None:
    now = timezone.now()
    expired = make_payload(created_at=now - timedelta(days=8), expires_at=now - timedelta(minutes=1), candidates=2)
    live = make_payload(candidates=2, candidate_expires_at=now - timedelta(seconds=1))
    for p in (expired, live):
        persist_trace(p)
    LlmCache.objects.create(cache_kind="expansion", cache_key="old", payload={}, expires_at=now - timedelta(hours=1))
    fresh_cache = LlmCache.objects.create(cache_kind="expansion", cache_key="fresh", payload={},
                                          expires_at=now + timedelta(days=1))
    old_done = SearchTraceOutbox.objects.create(trace_id=uuid.uuid4(), status="DONE", payload={})
    new_done = SearchTraceOutbox.objects.create(trace_id=uuid.uuid4(), status="DONE", payload={})
    abandoned = SearchTraceOutbox.objects.create(trace_id=uuid.uuid4(), status="FAILED", payload={}, attempts=9)
    retrying = SearchTraceOutbox.objects.create(trace_id=uuid.uuid4(), status="FAILED", payload={}, attempts=2)
    with connection.cursor() as cur:
        cur.execute("UPDATE search_trace_outbox SET updated_at = now() - interval '25 hours' WHERE outbox_id = %s",
                    [old_done.outbox_id])
        cur.execute("UPDATE search_trace_outbox SET created_at = now() - interval '8 days' WHERE outbox_id = %s",
                    [abandoned.outbox_id])

    report = run_retention(cfg=test_cfg)
    # llm_cache entries are search's: trace retention leaves them, search's own purge removes the expired ones.
    assert LlmCache.objects.filter(cache_key="old").exists()
    purged = purge_expired()

    assert report.traces >= 1 and report.candidates >= 2 and purged >= 1
    assert counts(expired["trace"]["trace_id"]) == dict.fromkeys(counts(expired["trace"]["trace_id"]), 0)
    live_counts = counts(live["trace"]["trace_id"])
    assert live_counts["traces"] == 1 and live_counts["stage_items"] == 3 * len(STAGE_NAMES)
    assert live_counts["candidates"] == 0  # expired candidates of a live trace go on their own
    assert list(LlmCache.objects.filter(cache_key__in=["old", "fresh"]).values_list("cache_id", flat=True)) == [
        fresh_cache.cache_id]
    left = set(SearchTraceOutbox.objects.filter(
        outbox_id__in=[o.outbox_id for o in (old_done, new_done, abandoned, retrying)]
    ).values_list("outbox_id", flat=True))
    assert left == {new_done.outbox_id, retrying.outbox_id}
