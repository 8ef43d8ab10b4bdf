"""search_filter_expr/v1 (supplement section 1): every operator on every field, logic, parsed values, null
semantics and drop reasons. Pure: no Django, no stack. Validation and filter_impact are in
test_domain_search_filter_validation.py."""

from __future__ import annotations

from datetime import datetime

import pytest

from search.domain.search_filter import (
    FIELDS,
    OPS,
    And,
    Compare,
    In,
    Not,
    Or,
    evaluate,
    explain_failure,
    parse_filter,
)
from tests.search_filter_helpers import BARE, NOTE, UTC, envelope, holds, leaf

# For each field: the note's value, a smaller and a larger one (ordered fields), or a substring hit/miss and
# another value (string fields). Every operator that applies to a field is generated true and false below.
ORDERED = {
    "importance": (0.7, 0.5, 0.8),
    "confidence": (0.9, 0.25, 1),
    "hit_count": (3, 2, 3.5),
    "updated_at": ("2026-03-01T12:00:00Z", "2026-03-01T11:59:59.999Z", "2026-03-01T12:00:00.000001Z"),
    "expires_at": ("2026-06-01T02:00:00+02:00", "2026-05-31T23:59:59Z", "2026-06-01T00:00:01Z"),
    "last_hit_at": ("2026-03-02T08:30:00Z", "2026-03-02T08:29:00Z", "2026-03-02T04:30:00-05:00"),
}
STRINGS = {
    "type": ("preference", "refer", "Pref", "fact"),
    "key": ("editor_theme", "_the", "Theme", "editor"),
    "scope": ("project_shared", "project", "org", "agent_private"),
    "agent_id": ("agent-a", "-a", "agent-b", "agent-b"),
}


def operator_cases():
    for field, (equal, smaller, larger) in ORDERED.items():
        yield from [
            ("eq", field, equal, True),
            ("eq", field, smaller, False),
            ("neq", field, smaller, True),
            ("neq", field, equal, False),
            ("gt", field, smaller, True),
            ("gt", field, equal, False),
            ("gte", field, equal, True),
            ("gte", field, larger, False),
            ("lt", field, larger, True),
            ("lt", field, equal, False),
            ("lte", field, equal, True),
            ("lte", field, smaller, False),
            ("in", field, [smaller, equal], True),
            ("in", field, [smaller, larger], False),
        ]
    for field, (equal, part, not_part, other) in STRINGS.items():
        yield from [
            ("eq", field, equal, True),
            ("eq", field, other, False),
            ("neq", field, other, True),
            ("neq", field, equal, False),
            ("contains", field, part, True),
            ("contains", field, not_part, False),
            ("in", field, [other, equal], True),
            ("in", field, [other], False),
        ]


OPERATOR_CASES = list(operator_cases())


def test_cases_cover_every_field_and_leaf_operator_both_ways():
    assert {(field, expected) for _, field, _, expected in OPERATOR_CASES} == {
        (field, expected) for field in FIELDS for expected in (True, False)
    }
    leaf_ops = {op for op in OPS if op not in ("and", "or", "not")}
    assert {(op, expected) for op, _, _, expected in OPERATOR_CASES} == {
        (op, expected) for op in leaf_ops for expected in (True, False)
    }


@pytest.mark.parametrize("op, field, value, expected", OPERATOR_CASES)
def test_leaf_operator_on_field(op, field, value, expected):
    assert holds(leaf(op, field, value)) is expected
    assert explain_failure(parse_filter(envelope(leaf(op, field, value))), NOTE) == (
        None if expected else f"{op}:{field}"
    )


TRUE = leaf("eq", "scope", "project_shared")
FALSE = leaf("eq", "scope", "org_shared")


@pytest.mark.parametrize(
    "expr, expected",
    [
        ({"op": "and", "args": [TRUE, TRUE]}, True),
        ({"op": "and", "args": [TRUE, FALSE]}, False),
        ({"op": "or", "args": [FALSE, TRUE]}, True),
        ({"op": "or", "args": [FALSE, FALSE]}, False),
        ({"op": "not", "expr": FALSE}, True),
        ({"op": "not", "expr": TRUE}, False),
        ({"op": "and", "args": [TRUE, {"op": "or", "args": [FALSE, {"op": "not", "expr": FALSE}]}]}, True),
    ],
)
def test_logical_operators(expr, expected):
    assert holds(expr) is expected


def test_parse_returns_the_expression_tree_with_parsed_values():
    raw = envelope(
        {
            "op": "and",
            "args": [
                leaf("eq", "scope", "  project_shared\n"),
                {"op": "not", "expr": leaf("in", "type", [" fact", "plan "])},
                leaf("gte", "updated_at", "2026-03-01T14:00:00.1234567+02:00"),
                {"op": "or", "args": [leaf("lt", "hit_count", 5)]},
            ],
        }
    )
    assert parse_filter(raw) == And(
        (
            Compare("eq", "scope", "project_shared"),
            Not(In("type", ("fact", "plan"))),
            Compare("gte", "updated_at", datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)),
            Or((Compare("lt", "hit_count", 5),)),
        )
    )


def test_string_values_are_trimmed_and_note_values_compared_as_stored():
    assert holds(leaf("eq", "scope", "  project_shared  "))
    assert holds(leaf("contains", "key", " theme "))
    assert not holds(leaf("eq", "key", "editor_theme"), {**NOTE, "key": " editor_theme"})


def test_contains_is_case_sensitive():
    assert holds(leaf("contains", "key", "theme"))
    assert not holds(leaf("contains", "key", "THEME"))


def test_contains_with_an_empty_string_matches_any_value_but_not_none():
    assert holds(leaf("contains", "key", " "))
    assert not holds(leaf("contains", "key", ""), BARE)


def test_real_fields_compare_at_float32_precision():
    assert holds(leaf("eq", "importance", 0.7), {**NOTE, "importance": 0.7})
    assert holds(leaf("eq", "importance", 0.7), {**NOTE, "importance": 0.699999988079071})
    assert holds(leaf("gte", "confidence", 0.3), {**NOTE, "confidence": 0.30000001192092896})
    assert not holds(leaf("gt", "confidence", 0.3), {**NOTE, "confidence": 0.30000001192092896})
    assert holds(leaf("lt", "importance", 1e300))
    assert holds(leaf("gt", "importance", -(10**400)))


def test_datetimes_compare_as_instants_across_offsets():
    assert holds(leaf("eq", "updated_at", "2026-03-01T07:00:00-05:00"))
    assert holds(leaf("eq", "updated_at", "2026-03-01t12:00:00z"))
    assert holds(leaf("eq", "updated_at", "2026-03-01T12:00:00-00:00"))


# Null handling: None equals only None, neq is not eq, ordering and contains are false on None.
@pytest.mark.parametrize(
    "expr, on_note, on_bare",
    [
        (leaf("eq", "key", None), False, True),
        (leaf("neq", "key", None), True, False),
        (leaf("eq", "key", "editor_theme"), True, False),
        (leaf("neq", "key", "editor_theme"), False, True),
        (leaf("in", "key", [None, "other"]), False, True),
        (leaf("in", "key", ["editor_theme"]), True, False),
        (leaf("eq", "expires_at", None), False, True),
        (leaf("neq", "last_hit_at", None), True, False),
        (leaf("gt", "expires_at", "2026-01-01T00:00:00Z"), True, False),
        (leaf("lte", "expires_at", "2026-12-01T00:00:00Z"), True, False),
        ({"op": "not", "expr": leaf("gt", "expires_at", "2026-01-01T00:00:00Z")}, False, True),
        (leaf("lt", "last_hit_at", "2030-01-01T00:00:00Z"), True, False),
        (leaf("contains", "key", "theme"), True, False),
        ({"op": "not", "expr": leaf("contains", "key", "theme")}, False, True),
    ],
)
def test_null_semantics(expr, on_note, on_bare):
    assert holds(expr, NOTE) is on_note
    assert holds(expr, BARE) is on_bare


def test_evaluation_reads_only_the_fields_the_filter_names():
    assert holds(leaf("eq", "scope", "project_shared"), {"scope": "project_shared"})


@pytest.mark.parametrize(
    "expr, reason",
    [
        ({"op": "and", "args": [TRUE, leaf("gte", "importance", 0.8), FALSE]}, "gte:importance"),
        ({"op": "and", "args": [FALSE, leaf("gte", "importance", 0.8)]}, "eq:scope"),
        ({"op": "or", "args": [FALSE, leaf("gte", "importance", 0.8)]}, "or"),
        ({"op": "not", "expr": TRUE}, "not"),
        ({"op": "and", "args": [TRUE, {"op": "not", "expr": TRUE}]}, "not"),
        (leaf("in", "type", ["fact", "plan"]), "in:type"),
        (leaf("contains", "agent_id", "zzz"), "contains:agent_id"),
        (leaf("lt", "last_hit_at", "2026-01-01T00:00:00Z"), "lt:last_hit_at"),
        ({"op": "or", "args": [FALSE, TRUE]}, None),
        ({"op": "not", "expr": FALSE}, None),
    ],
)
def test_explain_failure_names_the_first_failing_node(expr, reason):
    parsed = parse_filter(envelope(expr))
    assert explain_failure(parsed, NOTE) == reason
    assert evaluate(parsed, NOTE) is (reason is None)
