"""TTL assignment (spec v2 section 11) and the policy decision pipeline (section 8.3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.domain.policy import (
    IGNORE_DUPLICATE,
    IGNORE_POLICY_THRESHOLD,
    PolicyOutcome,
    apply_policy,
    base_decision,
    rejected,
)
from memory.domain.ttl import expires_at

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
TTL_BY_TYPE = {"preference": 0, "constraint": 0, "decision": 0, "profile": 0, "fact": 180, "plan": 14}


@pytest.mark.parametrize(
    "note_type, request_ttl, expected",
    [
        ("fact", 7, NOW + timedelta(days=7)),
        ("preference", 30, NOW + timedelta(days=30)),
        ("fact", None, NOW + timedelta(days=180)),
        ("fact", 0, NOW + timedelta(days=180)),
        ("plan", -3, NOW + timedelta(days=14)),
        ("preference", None, None),
        ("preference", 0, None),
    ],
    ids=[
        "request-wins",
        "request-over-never",
        "type-default",
        "zero-request-falls-back",
        "negative-request-falls-back",
        "never-expires",
        "zero-everywhere",
    ],
)
def test_expires_at_prefers_positive_request_ttl_then_type_ttl(note_type, request_ttl, expected):
    assert (
        expires_at(now=NOW, note_type=note_type, request_ttl_days=request_ttl, ttl_days_by_type=TTL_BY_TYPE) == expected
    )


@pytest.mark.parametrize(
    "op, structured, graph, expected",
    [
        ("ADD", False, False, "remember"),
        ("ADD", True, True, "remember"),
        ("UPDATE", False, False, "update"),
        ("NONE", True, False, "update"),
        ("NONE", False, True, "update"),
        ("NONE", False, False, "ignore"),
    ],
)
def test_base_decision_from_resolver_op_and_side_effects(op, structured, graph, expected):
    assert base_decision(op, structured, graph) == expected


def test_base_decision_rejects_unknown_op():
    with pytest.raises(ValueError):
        base_decision("DELETE", False, False)  # type: ignore[arg-type]


def policy(base, confidence=0.9, importance=0.9, matched_dup=False):
    return apply_policy(
        base,
        confidence=confidence,
        importance=importance,
        min_confidence=0.5,
        min_importance=0.3,
        matched_dup=matched_dup,
    )


@pytest.mark.parametrize("base", ["remember", "update"])
def test_policy_keeps_remember_and_update_that_meet_thresholds(base):
    assert policy(base) == PolicyOutcome(base, None, None)
    assert policy(base, confidence=0.5, importance=0.3) == PolicyOutcome(base, None, None)


@pytest.mark.parametrize("base", ["remember", "update"])
def test_policy_downgrades_below_threshold_to_ignore_naming_the_rule(base):
    assert policy(base, confidence=0.49) == PolicyOutcome("ignore", IGNORE_POLICY_THRESHOLD, "min_confidence")
    assert policy(base, importance=0.29) == PolicyOutcome("ignore", IGNORE_POLICY_THRESHOLD, "min_importance")
    # Both fail: confidence is checked first.
    assert policy(base, confidence=0.1, importance=0.1).policy_rule == "min_confidence"


def test_base_ignore_is_a_duplicate_when_matched_and_never_threshold():
    assert policy("ignore", matched_dup=True) == PolicyOutcome("ignore", IGNORE_DUPLICATE, None)
    assert policy("ignore", confidence=0.0, matched_dup=True) == PolicyOutcome("ignore", IGNORE_DUPLICATE, None)
    assert policy("ignore", matched_dup=False) == PolicyOutcome("ignore", None, None)


def test_rejected_note_carries_its_gate_reason():
    assert rejected("REJECT_SECRET") == PolicyOutcome("reject", "REJECT_SECRET", None)
