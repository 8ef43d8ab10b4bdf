"""search_filter_expr/v1 through the real API: every operator and every field, each result checked
against its authoritative Postgres row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from tests.notes_helpers import ingest, note, rows, wait_indexed
from tests.search.test_search_api import search

NOW = datetime.now(UTC)
PAST, FUTURE = (NOW - timedelta(days=1)).isoformat(), (NOW + timedelta(days=365)).isoformat()


@pytest.fixture(scope="module")
def fsvc(isolated_services_module):
    s = isolated_services_module("filters")
    s.start_api()
    s.start_worker()
    specs = [
        note("Fact: the gateway logs go to the audit bucket.", importance=0.9, confidence=0.8, key="gateway_logs"),
        note("Plan: rotate the gateway certificates next month.", type="plan", importance=0.4, confidence=0.6),
        note("Preference: gateway alerts go to the pager.", type="preference", importance=0.2, confidence=0.95),
    ]
    for n in specs:
        res = ingest(s, [n]).json()["results"][0]
        wait_indexed(s, res["note_id"])
    with psycopg.connect(s.cfg.storage.postgres.dsn) as conn:
        conn.execute("UPDATE memory_notes SET hit_count = 3, last_hit_at = now() WHERE type = 'fact'")
    return s


def leaf(op, field, value):
    return {"schema": "search_filter_expr/v1", "expr": {"op": op, "field": field, "value": value}}


CASES = [
    (leaf("eq", "type", "plan"), lambda r: r["type"] == "plan"),
    (leaf("neq", "type", "plan"), lambda r: r["type"] != "plan"),
    (leaf("contains", "key", "gateway"), lambda r: r["key"] is not None and "gateway" in r["key"]),
    (leaf("eq", "scope", "agent_private"), lambda r: r["scope"] == "agent_private"),
    (leaf("eq", "agent_id", "a1"), lambda r: r["agent_id"] == "a1"),
    (leaf("gt", "importance", 0.5), lambda r: r["importance"] > 0.5),
    (leaf("gte", "confidence", 0.8), lambda r: r["confidence"] >= 0.8 - 1e-6),
    (leaf("lt", "importance", 0.3), lambda r: r["importance"] < 0.3),
    (leaf("lte", "confidence", 0.6), lambda r: r["confidence"] <= 0.6 + 1e-6),
    (leaf("gte", "hit_count", 1), lambda r: r["hit_count"] >= 1),
    (leaf("gt", "updated_at", PAST), lambda r: True),
    (leaf("lt", "expires_at", FUTURE), lambda r: r["expires_at"] is not None),
    (leaf("gte", "last_hit_at", PAST), lambda r: r["last_hit_at"] is not None),
    (leaf("eq", "key", None), lambda r: r["key"] is None),
    ({"schema": "search_filter_expr/v1", "expr": {"op": "in", "field": "type", "value": ["plan", "preference"]}},
     lambda r: r["type"] in ("plan", "preference")),
    ({"schema": "search_filter_expr/v1", "expr": {"op": "not", "expr": {"op": "eq", "field": "type", "value": "fact"}}},
     lambda r: r["type"] != "fact"),
    ({"schema": "search_filter_expr/v1", "expr": {"op": "or", "args": [
        {"op": "eq", "field": "type", "value": "fact"}, {"op": "lt", "field": "importance", "value": 0.3}]}},
     lambda r: r["type"] == "fact" or r["importance"] < 0.3),
    ({"schema": "search_filter_expr/v1", "expr": {"op": "and", "args": [
        {"op": "neq", "field": "type", "value": "fact"}, {"op": "gte", "field": "confidence", "value": 0.9}]}},
     lambda r: r["type"] != "fact" and r["confidence"] >= 0.9),
]

COLUMNS = "note_id::text, type, key, scope, agent_id, importance, confidence, hit_count, expires_at, last_hit_at"


@pytest.mark.parametrize("flt,holds", CASES, ids=[f"{i}-{c[0]['expr']['op']}" for i, c in enumerate(CASES)])
def test_filter_operator_on_the_real_stack(fsvc, flt, holds):
    r = search(fsvc, "gateway", mode="quick_find", filter=flt, admin=True)
    assert r.status_code == 200, r.text
    returned = [i["note_id"] for i in r.json()["items"]]
    all_rows = {row[0]: dict(zip([c.split("::")[0].strip() for c in COLUMNS.split(",")], row, strict=False))
                for row in rows(fsvc, f"SELECT {COLUMNS} FROM memory_notes")}
    expected = {nid for nid, row in all_rows.items() if holds(row)}
    assert set(returned) == expected, (flt, returned, expected)
