"""search_filter_expr/v1 (supplement section 1): validation with exact JSONPaths and limits, filter_impact and
effective_candidate_k. Pure: no Django, no stack."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from search.domain.search_filter import (
    Compare,
    FilterError,
    effective_candidate_k,
    explain_failure,
    filter_impact,
    parse_filter,
)
from tests.search_filter_helpers import NOTE, UTC, envelope, error_path, holds, leaf, nested_not

OK_LEAF = leaf("eq", "scope", "project_shared")


@pytest.mark.parametrize(
    "raw, path",
    [
        # envelope
        (None, "$.filter"),
        ([OK_LEAF], "$.filter"),
        ({"expr": OK_LEAF}, "$.filter.schema"),
        ({"schema": "search_filter_expr/v2", "expr": OK_LEAF}, "$.filter.schema"),
        ({"schema": " search_filter_expr/v1", "expr": OK_LEAF}, "$.filter.schema"),
        ({"schema": "search_filter_expr/v1"}, "$.filter.expr"),
        ({**envelope(OK_LEAF), "limit": 3}, "$.filter.limit"),
        (envelope("eq"), "$.filter.expr"),
        (envelope(None), "$.filter.expr"),
        # op
        (envelope({"field": "scope", "value": "x"}), "$.filter.expr.op"),
        (envelope(leaf("like", "scope", "x")), "$.filter.expr.op"),
        (envelope(leaf("EQ", "scope", "x")), "$.filter.expr.op"),
        (envelope(leaf(1, "scope", "x")), "$.filter.expr.op"),
        # unknown and missing keys
        (envelope({**OK_LEAF, "note": "x"}), "$.filter.expr.note"),
        (envelope({**OK_LEAF, "bad key": 1}), "$.filter.expr['bad key']"),
        (envelope({"op": "and", "args": [OK_LEAF], "expr": OK_LEAF}), "$.filter.expr.expr"),
        (envelope({"op": "not", "args": [OK_LEAF]}), "$.filter.expr.args"),
        (envelope({"op": "not"}), "$.filter.expr.expr"),
        (envelope({"op": "and"}), "$.filter.expr.args"),
        (envelope({"op": "eq", "value": "x"}), "$.filter.expr.field"),
        (envelope({"op": "eq", "field": "scope"}), "$.filter.expr.value"),
        (envelope({"op": "in", "field": "scope"}), "$.filter.expr.value"),
        # fields
        (envelope(leaf("eq", "text", "x")), "$.filter.expr.field"),
        (envelope(leaf("eq", "status", "active")), "$.filter.expr.field"),
        (envelope(leaf("eq", None, "x")), "$.filter.expr.field"),
        (envelope({"op": "or", "args": [OK_LEAF, leaf("eq", "Scope", "x")]}), "$.filter.expr.args[1].field"),
        # logical args
        (envelope({"op": "and", "args": []}), "$.filter.expr.args"),
        (envelope({"op": "or", "args": []}), "$.filter.expr.args"),
        (envelope({"op": "or", "args": OK_LEAF}), "$.filter.expr.args"),
        (envelope({"op": "and", "args": [OK_LEAF, "x"]}), "$.filter.expr.args[1]"),
        (envelope({"op": "not", "expr": [OK_LEAF]}), "$.filter.expr.expr"),
        # operator does not apply to the field
        (envelope(leaf("gt", "scope", "a")), "$.filter.expr.op"),
        (envelope(leaf("lte", "key", "a")), "$.filter.expr.op"),
        (envelope(leaf("gte", "type", "a")), "$.filter.expr.op"),
        (envelope(leaf("lt", "agent_id", "a")), "$.filter.expr.op"),
        (envelope(leaf("contains", "importance", 0.5)), "$.filter.expr.op"),
        (envelope(leaf("contains", "hit_count", "3")), "$.filter.expr.op"),
        (envelope(leaf("contains", "updated_at", "2026")), "$.filter.expr.op"),
        # value types
        (envelope(leaf("contains", "key", 5)), "$.filter.expr.value"),
        (envelope(leaf("eq", "importance", float("nan"))), "$.filter.expr.value"),
        (envelope(leaf("gt", "hit_count", float("inf"))), "$.filter.expr.value"),
        (envelope(leaf("eq", "hit_count", [3])), "$.filter.expr.value"),
        (envelope(leaf("eq", "scope", {"v": "x"})), "$.filter.expr.value"),
        # null only with eq/neq/in on key, expires_at, last_hit_at
        (envelope(leaf("eq", "scope", None)), "$.filter.expr.value"),
        (envelope(leaf("neq", "importance", None)), "$.filter.expr.value"),
        (envelope(leaf("eq", "updated_at", None)), "$.filter.expr.value"),
        (envelope(leaf("gt", "expires_at", None)), "$.filter.expr.value"),
        (envelope(leaf("contains", "key", None)), "$.filter.expr.value"),
        (envelope(leaf("in", "type", ["fact", None])), "$.filter.expr.value[1]"),
        # in
        (envelope(leaf("in", "type", "fact")), "$.filter.expr.value"),
        (envelope(leaf("in", "type", [])), "$.filter.expr.value"),
        (envelope(leaf("in", "type", ["fact"] * 129)), "$.filter.expr.value"),
        (
            envelope({"op": "and", "args": [leaf("in", "importance", [0.1, 0.2, 0.3, "0.4"]), OK_LEAF]}),
            "$.filter.expr.args[0].value[3]",
        ),
        (envelope(leaf("in", "updated_at", ["2026-03-01T12:00:00"])), "$.filter.expr.value[0]"),
        # string size: 513 UTF-8 bytes in 257 characters
        (envelope(leaf("eq", "key", "é" * 256 + "a")), "$.filter.expr.value"),
        (envelope(leaf("contains", "agent_id", "€" * 171 + "a")), "$.filter.expr.value"),
        (envelope(leaf("in", "key", ["a", "x" * 513])), "$.filter.expr.value[1]"),
        (envelope(leaf("gt", "updated_at", "2026-03-01T12:00:00." + "0" * 500 + "Z")), "$.filter.expr.value"),
        # first error only, in document order
        (
            envelope({"op": "or", "args": [leaf("eq", "text", "x"), leaf("like", "scope", "x")]}),
            "$.filter.expr.args[0].field",
        ),
        (envelope({"op": "bogus", "args": []}), "$.filter.expr.op"),
        (envelope({"extra": 1, "op": "eq", "field": "text", "value": "x"}), "$.filter.expr.extra"),
    ],
)
def test_validation_error_path(raw, path):
    assert error_path(raw) == path


NUMBER_FIELDS = ("importance", "confidence", "hit_count")
DATETIME_FIELDS = ("updated_at", "expires_at", "last_hit_at")
STRING_FIELDS = ("type", "key", "scope", "agent_id")


@pytest.mark.parametrize("field", NUMBER_FIELDS)
@pytest.mark.parametrize("value", [True, False, "0.5", None])
def test_number_fields_reject_bools_strings_and_null(field, value):
    assert error_path(envelope(leaf("eq", field, value))) == "$.filter.expr.value"
    assert error_path(envelope(leaf("in", field, [1, value]))) == "$.filter.expr.value[1]"


@pytest.mark.parametrize("field", STRING_FIELDS)
@pytest.mark.parametrize("value", [5, 0.5, True, ["x"]])
def test_string_fields_reject_non_strings(field, value):
    assert error_path(envelope(leaf("eq", field, value))) == "$.filter.expr.value"
    assert error_path(envelope(leaf("in", field, ["x", value]))) == "$.filter.expr.value[1]"


@pytest.mark.parametrize("field", DATETIME_FIELDS)
@pytest.mark.parametrize(
    "value",
    [
        1767225600,
        True,
        "2026-03-01T12:00:00",  # naive
        "2026-03-01T12:00:00.5",  # naive
        "2026-03-01",
        "2026-03-01T12:00Z",
        "2026-03-01 12:00:00Z",
        "20260301T120000Z",
        "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-03-01T24:00:00Z",
        "2026-03-01T12:00:60Z",
        "2026-03-01T12:00:00+24:00",
        "2026-03-01T12:00:00+05:60",
        "2026-03-01T12:00:00+0500",
        "2026-03-01T12:00:00UTC",
        "yesterday",
        "",
    ],
)
def test_datetime_fields_reject_naive_and_malformed_values(field, value):
    assert error_path(envelope(leaf("gte", field, value))) == "$.filter.expr.value"


def test_naive_datetime_message_says_offset_is_missing():
    with pytest.raises(FilterError) as info:
        parse_filter(envelope(leaf("gt", "updated_at", "2026-03-01T12:00:00")))
    assert "offset" in info.value.message
    assert str(info.value).startswith("$.filter.expr.value: ")


def test_string_of_512_utf8_bytes_is_accepted():
    assert holds(leaf("neq", "key", "é" * 256))
    assert holds(leaf("in", "key", ["x" * 512, "editor_theme"]))


def test_in_with_128_values_is_accepted():
    assert holds(leaf("in", "hit_count", list(range(128))))


def test_depth_8_is_accepted_and_depth_9_is_reported_at_the_deepest_node():
    assert parse_filter(envelope(nested_not(8)))
    assert error_path(envelope(nested_not(9))) == "$.filter.expr" + ".expr" * 8
    deep_in_and = {"op": "and", "args": [OK_LEAF, nested_not(8)]}
    assert error_path(envelope(deep_in_and)) == "$.filter.expr.args[1]" + ".expr" * 7


def test_128_nodes_are_accepted_and_the_129th_node_is_reported():
    assert holds({"op": "and", "args": [OK_LEAF] * 127})
    assert error_path(envelope({"op": "and", "args": [OK_LEAF] * 128})) == "$.filter.expr.args[127]"
    # counted in document order across nesting: root, inner and, 126 leaves, then args[1] is node 129
    nested = {"op": "or", "args": [{"op": "and", "args": [OK_LEAF] * 126}, OK_LEAF]}
    assert error_path(envelope(nested)) == "$.filter.expr.args[1]"


def test_error_paths_follow_a_custom_root():
    assert error_path({"schema": "x", "expr": OK_LEAF}, "$.body.filter") == "$.body.filter.schema"


def test_filter_impact_shape_and_top_five_reasons():
    raw = envelope(leaf("gte", "importance", 0.5))
    reasons = (
        ["gte:importance"] * 4
        + ["eq:scope"] * 2
        + ["or"] * 2
        + ["not"] * 3
        + ["in:type"] * 2
        + ["contains:key"] * 1
        + ["lt:hit_count"] * 2
    )
    impact = filter_impact(
        requested_candidate_k=60,
        effective_candidate_k=180,
        candidate_count_pre=40,
        candidate_count_post=24,
        drop_reasons=iter(reasons),
        raw_filter=raw,
    )
    assert impact == {
        "schema": "search_filter_impact/v1",
        "requested_candidate_k": 60,
        "effective_candidate_k": 180,
        "candidate_count_pre": 40,
        "candidate_count_post": 24,
        "dropped_total": 16,
        "top_drop_reasons": [
            {"reason": "gte:importance", "count": 4},
            {"reason": "not", "count": 3},
            {"reason": "eq:scope", "count": 2},
            {"reason": "in:type", "count": 2},
            {"reason": "lt:hit_count", "count": 2},
        ],
        "filter": raw,
    }
    assert list(impact) == [
        "schema",
        "requested_candidate_k",
        "effective_candidate_k",
        "candidate_count_pre",
        "candidate_count_post",
        "dropped_total",
        "top_drop_reasons",
        "filter",
    ]


def test_filter_impact_with_nothing_dropped():
    impact = filter_impact(
        requested_candidate_k=10,
        effective_candidate_k=30,
        candidate_count_pre=7,
        candidate_count_post=7,
        drop_reasons=[],
        raw_filter=envelope(OK_LEAF),
    )
    assert impact["dropped_total"] == 0
    assert impact["top_drop_reasons"] == []


def test_drop_reasons_from_explain_failure_feed_filter_impact():
    expr = parse_filter(envelope({"op": "and", "args": [OK_LEAF, leaf("gte", "importance", 0.5)]}))
    notes = [
        NOTE,
        {**NOTE, "scope": "org_shared"},
        {**NOTE, "importance": 0.1},
        {**NOTE, "importance": 0.2},
    ]
    reasons = [r for r in (explain_failure(expr, n) for n in notes) if r is not None]
    impact = filter_impact(
        requested_candidate_k=4,
        effective_candidate_k=12,
        candidate_count_pre=len(notes),
        candidate_count_post=len(notes) - len(reasons),
        drop_reasons=reasons,
        raw_filter=None,
    )
    assert impact["dropped_total"] == 3
    assert impact["top_drop_reasons"] == [
        {"reason": "gte:importance", "count": 2},
        {"reason": "eq:scope", "count": 1},
    ]


@pytest.mark.parametrize(
    "candidate_k, top_k, max_candidate_k, expected",
    [
        (60, 12, 1024, 180),
        (341, 12, 1024, 1023),
        (342, 12, 1024, 1024),
        (1000, 12, 1024, 1024),
        (5, 20, 1024, 20),
        (1, 1, 1024, 3),
        (400, 2000, 1024, 2000),
        (60, 12, 100, 100),
    ],
)
def test_effective_candidate_k(candidate_k, top_k, max_candidate_k, expected):
    assert effective_candidate_k(candidate_k, top_k, max_candidate_k) == expected


def test_effective_candidate_k_caps_at_1024_by_default():
    assert effective_candidate_k(500, 10) == 1024


def test_datetime_with_fraction_and_negative_offset():
    parsed = parse_filter(envelope(leaf("lt", "last_hit_at", "2026-03-02T03:30:00.25-05:00")))
    assert parsed == Compare("lt", "last_hit_at", datetime(2026, 3, 2, 8, 30, 0, 250000, tzinfo=UTC))
    assert parsed.value.utcoffset() == timedelta(hours=-5)
