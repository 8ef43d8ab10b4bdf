"""The rule add_note and add_event share (supplement section 5, spec v2 section 3): a request's write_policy is
applied before anything else reads the text it covers, the English gate included, so text a policy excluded or
redacted is never judged, stored or sent on (to the extractor, into an error body)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from elf_domain.english_gate import FieldKind
from elf_domain.write_policy import WritePolicyError, apply_write_policy, parse_write_policy
from elf_kernel.api.english_fields import require_english
from elf_kernel.errors import InvalidRequest

NO_POLICY = object()  # the request gave no write_policy for this text


@dataclass(frozen=True)
class PolicyInput:
    text: str  # as the request gave it
    policy: Any  # the request's write_policy object, or NO_POLICY
    path: str  # the write_policy's JSONPath, e.g. $.notes[0].write_policy


@dataclass(frozen=True)
class Policed:
    text: str  # after its write_policy
    audit: dict | None  # what the policy excluded and redacted; None without a policy


Fields = Iterable[tuple[str, str, FieldKind]]


def apply_write_policies_then_gate(items: Sequence[PolicyInput],
                                   fields: Callable[[list[str]], Fields]) -> list[Policed]:
    """Apply each item's write_policy in order (an invalid one is 400 INVALID_REQUEST naming the offending
    element), then the English gate over ``fields(the texts after their policies)``: the request's fields to
    judge, as (JSONPath, value, kind), 422 NON_ENGLISH_INPUT naming every failing one."""
    policed = [_apply(item) for item in items]
    require_english(list(fields([p.text for p in policed])))
    return policed


def _apply(item: PolicyInput) -> Policed:
    if item.policy is NO_POLICY:
        return Policed(item.text, None)
    try:
        policy = parse_write_policy(item.policy, item.text, item.path)
    except WritePolicyError as exc:
        raise InvalidRequest(exc.message, [exc.path]) from None
    return Policed(*apply_write_policy(item.text, policy))
