"""Policy decision pipeline (spec v2 section 8.3), pure: base decision, then the policy stage."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from elf_domain.vocabulary import NoteOp


class Decision(StrEnum):
    """An ingest decision (spec v2 section 8.3): the base decision is one of the first three; reject is the
    WriteGate's (or evidence binding's)."""

    REMEMBER = "remember"
    UPDATE = "update"
    IGNORE = "ignore"
    REJECT = "reject"


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


def base_decision(resolver_op: str, structured_present: bool, graph_present: bool) -> Decision:
    """Stage 1 (``resolver_op`` one of the UpdateResolver's ADD, UPDATE, NONE): ADD -> remember, UPDATE -> update,
    NONE -> update when structured fields or graph facts come with the note (they still have to be written), else
    ignore."""
    if resolver_op == NoteOp.ADD:
        return Decision.REMEMBER
    if resolver_op == NoteOp.UPDATE:
        return Decision.UPDATE
    if resolver_op == NoteOp.NONE:
        return Decision.UPDATE if structured_present or graph_present else Decision.IGNORE
    raise ValueError(f"unknown resolver op {resolver_op!r}")


def apply_policy(
    base: Decision,
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
    if base == Decision.IGNORE:
        return PolicyOutcome(Decision.IGNORE, IGNORE_DUPLICATE if matched_dup else None, None)
    if confidence < min_confidence:
        return PolicyOutcome(Decision.IGNORE, IGNORE_POLICY_THRESHOLD, RULE_MIN_CONFIDENCE)
    if importance < min_importance:
        return PolicyOutcome(Decision.IGNORE, IGNORE_POLICY_THRESHOLD, RULE_MIN_IMPORTANCE)
    return PolicyOutcome(base, None, None)


def rejected(reason_code: str) -> PolicyOutcome:
    """The outcome of a note the WriteGate (or evidence binding) rejected, carrying that reason code."""
    return PolicyOutcome(Decision.REJECT, reason_code, None)
