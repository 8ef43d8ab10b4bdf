"""Policy decision pipeline (spec v2 section 8.3), pure: base decision, then the policy stage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ResolverOp = Literal["ADD", "UPDATE", "NONE"]
BaseDecision = Literal["remember", "update", "ignore"]
Decision = Literal["remember", "update", "ignore", "reject"]

IGNORE_DUPLICATE = "IGNORE_DUPLICATE"
IGNORE_POLICY_THRESHOLD = "IGNORE_POLICY_THRESHOLD"
RULE_MIN_CONFIDENCE = "min_confidence"
RULE_MIN_IMPORTANCE = "min_importance"


@dataclass(frozen=True)
class PolicyOutcome:
    """The final decision, its reason code (None for a kept remember/update) and the policy rule that
    downgraded it (None unless the policy stage changed the decision)."""

    decision: Decision
    reason_code: str | None
    policy_rule: str | None


def base_decision(resolver_op: ResolverOp, structured_present: bool, graph_present: bool) -> BaseDecision:
    """Stage 1: ADD -> remember, UPDATE -> update, NONE -> update when structured fields or graph facts
    come with the note (they still have to be written), else ignore."""
    if resolver_op == "ADD":
        return "remember"
    if resolver_op == "UPDATE":
        return "update"
    if resolver_op == "NONE":
        return "update" if structured_present or graph_present else "ignore"
    raise ValueError(f"unknown resolver op {resolver_op!r}")


def apply_policy(
    base: BaseDecision,
    *,
    confidence: float,
    importance: float,
    min_confidence: float,
    min_importance: float,
    matched_dup: bool,
) -> PolicyOutcome:
    """Stage 2 (``memory.policy``): keep remember/update, or downgrade it to ignore with
    IGNORE_POLICY_THRESHOLD when confidence or importance is below its minimum (confidence checked first).
    A base ignore stays ignore, with IGNORE_DUPLICATE when the resolver matched a duplicate."""
    if base == "ignore":
        return PolicyOutcome("ignore", IGNORE_DUPLICATE if matched_dup else None, None)
    if confidence < min_confidence:
        return PolicyOutcome("ignore", IGNORE_POLICY_THRESHOLD, RULE_MIN_CONFIDENCE)
    if importance < min_importance:
        return PolicyOutcome("ignore", IGNORE_POLICY_THRESHOLD, RULE_MIN_IMPORTANCE)
    return PolicyOutcome(base, None, None)


def rejected(reason_code: str) -> PolicyOutcome:
    """The outcome of a note the WriteGate (or evidence binding) rejected, carrying that reason code."""
    return PolicyOutcome("reject", reason_code, None)
