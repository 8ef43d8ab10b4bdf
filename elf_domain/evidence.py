"""Evidence binding and extractor-candidate validation for add_event (spec v2 sections 8.2, 18, 19 C;
supplement section 5), pure.

Two steps, in this order, for each note the extractor returns:

1. ``validate_candidate`` checks the note's shape against the section 18 schema. A note with a bad shape
   is rejected on its own (``validate_candidates`` collects it with its index); the other notes of the
   same extractor response go on. Shape means JSON types, required and unknown members, number ranges and
   the relation ``object`` rule; it does not judge the type allowlist, the English gate, length or secrets
   (the WriteGate does, with its own reason codes), nor evidence content (step 2).
2. ``check_evidence`` binds the note's quotes to the messages: a reason code, or None when they hold.

Leniency: members the schema marks nullable may be omitted (read as null); the others are required;
unknown members are rejected, at every level.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from elf_domain.vocabulary import KNOWN_SCOPES

from .jsonpath import JsonPathError, member_path
from .limits import MAX_TTL_DAYS  # add_note's bound: an extracted note asks for nothing add_note could not

__all__ = [
    "MAX_TTL_DAYS",
    "REJECT_EVIDENCE_MISMATCH",
    "REJECT_WRITE_POLICY_MISMATCH",
    "CandidateError",
    "CandidateNote",
    "Evidence",
    "check_evidence",
    "validate_candidate",
    "validate_candidates",
]

REJECT_EVIDENCE_MISMATCH = "REJECT_EVIDENCE_MISMATCH"
REJECT_WRITE_POLICY_MISMATCH = "REJECT_WRITE_POLICY_MISMATCH"

_NOTE_REQUIRED = frozenset({"type", "text", "importance", "confidence", "evidence", "reason"})
_NOTE_NULLABLE = frozenset({"key", "ttl_days", "structured", "scope_suggestion"})
_STRUCTURED_KEYS = frozenset({"summary", "facts", "concepts", "entities", "relations"})
_ENTITY_KEYS = frozenset({"canonical", "kind", "aliases"})
_RELATION_REQUIRED = frozenset({"subject", "predicate", "object"})
_RELATION_NULLABLE = frozenset({"valid_from", "valid_to"})
_OBJECT_KEYS = frozenset({"entity", "value"})
_EVIDENCE_KEYS = frozenset({"message_index", "quote"})


class CandidateError(JsonPathError):
    """An extractor note with a bad shape: what is wrong and the JSONPath of the offending element."""


@dataclass(frozen=True)
class Evidence:
    """One evidence quote: ``message_index`` into the request's messages and the quote as returned."""

    message_index: int
    quote: str

    def as_dict(self) -> dict[str, Any]:
        return {"message_index": self.message_index, "quote": self.quote}


@dataclass(frozen=True)
class CandidateNote:
    """A shape-valid extractor note. ``structured`` is a JSON object holding every structured member
    (null when absent), datetimes kept as the strings the extractor gave."""

    type: str
    key: str | None
    text: str
    importance: float
    confidence: float
    ttl_days: int | None
    structured: dict[str, Any] | None
    scope_suggestion: str | None
    evidence: tuple[Evidence, ...]
    reason: str


def _quote_verdict(
    item: Evidence | Mapping[str, object],
    *,
    transformed: Sequence[str],
    originals: Sequence[str],
    max_quote_chars: int,
) -> str | None:
    if isinstance(item, Evidence):
        index: object = item.message_index
        quote: object = item.quote
    elif isinstance(item, Mapping):
        index, quote = item.get("message_index"), item.get("quote")
    else:
        return REJECT_EVIDENCE_MISMATCH
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(transformed):
        return REJECT_EVIDENCE_MISMATCH
    if not isinstance(quote, str) or not quote.strip() or len(quote) > max_quote_chars:
        return REJECT_EVIDENCE_MISMATCH
    if quote in transformed[index]:
        return None
    if quote in originals[index]:
        return REJECT_WRITE_POLICY_MISMATCH
    return REJECT_EVIDENCE_MISMATCH


def check_evidence(
    note_evidence: Sequence[Evidence | Mapping[str, object]],
    *,
    transformed: Sequence[str],
    originals: Sequence[str],
    min_quotes: int,
    max_quotes: int,
    max_quote_chars: int,
) -> str | None:
    """None when the note's evidence binds to the messages, else the reason code.

    ``transformed[i]`` is message ``i`` after its write_policy (what the extractor saw), ``originals[i]``
    the content as received (equal to ``transformed[i]`` without a policy); the bounds come from
    ``security.evidence_min_quotes`` / ``evidence_max_quotes`` / ``evidence_max_quote_chars``.

    REJECT_EVIDENCE_MISMATCH: fewer than ``min_quotes`` or more than ``max_quotes`` quotes; an item that is
    not ``{message_index: int, quote: str}``; an index outside the messages; an empty (or whitespace-only)
    quote or one longer than ``max_quote_chars`` characters; a quote found in neither
    ``transformed[message_index]`` nor ``originals[message_index]``.
    REJECT_WRITE_POLICY_MISMATCH: a quote found in ``originals[message_index]`` but not in the transformed
    message.

    Precedence: the count is judged first; then every quote. REJECT_EVIDENCE_MISMATCH on any quote wins over
    REJECT_WRITE_POLICY_MISMATCH on another, since the mismatch is then not only a byproduct of the policy
    (spec v2 section 8.2).
    """
    if len(transformed) != len(originals):
        raise ValueError("transformed and originals must hold the same messages")
    if not min_quotes <= len(note_evidence) <= max_quotes:
        return REJECT_EVIDENCE_MISMATCH
    verdicts = {
        _quote_verdict(item, transformed=transformed, originals=originals, max_quote_chars=max_quote_chars)
        for item in note_evidence
    }
    if REJECT_EVIDENCE_MISMATCH in verdicts:
        return REJECT_EVIDENCE_MISMATCH
    if REJECT_WRITE_POLICY_MISMATCH in verdicts:
        return REJECT_WRITE_POLICY_MISMATCH
    return None


def _object(raw: object, path: str, required: frozenset[str], nullable: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise CandidateError("must be an object", path)
    allowed = required | nullable
    for key in raw:
        if key not in allowed:
            raise CandidateError("unknown field", member_path(path, str(key)))
    for key in sorted(required):
        if key not in raw:
            raise CandidateError("is required", f"{path}.{key}")
    return raw


def _str(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise CandidateError("must be a string", path)
    return value


def _opt_str(value: object, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise CandidateError("must be a string or null", path)
    return value


def _str_list(value: object, path: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise CandidateError("must be an array of strings or null", path)
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise CandidateError("must be a string", f"{path}[{i}]")
    return list(value)


def _unit(value: object, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CandidateError("must be a number", path)
    if not 0.0 <= value <= 1.0:
        raise CandidateError("must be between 0 and 1", path)
    return float(value)


def _ttl_days(value: object, path: str) -> int | None:
    if value is None:
        return None
    # JSON has one number type: 30 and 30.0 are the same whole number of days.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
        raise CandidateError("must be a whole number of days or null", path)
    if not 0 <= value <= MAX_TTL_DAYS:
        raise CandidateError(f"must be between 0 and {MAX_TTL_DAYS}", path)
    return int(value)


def _datetime(value: object, path: str) -> str | None:
    text = _opt_str(value, path)
    if text is not None:
        try:
            datetime.fromisoformat(text)
        except ValueError:
            raise CandidateError("must be an ISO 8601 datetime or null", path) from None
    return text


def _utc(text: str) -> datetime:
    """An ISO 8601 time for comparison; one without an offset is read as UTC (as graph memory stores it)."""
    when = datetime.fromisoformat(text)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _entity(raw: object, path: str) -> dict[str, Any]:
    obj = _object(raw, path, frozenset(), _ENTITY_KEYS)
    return {
        "canonical": _opt_str(obj.get("canonical"), f"{path}.canonical"),
        "kind": _opt_str(obj.get("kind"), f"{path}.kind"),
        "aliases": _str_list(obj.get("aliases"), f"{path}.aliases"),
    }


def _relation(raw: object, path: str) -> dict[str, Any]:
    obj = _object(raw, path, _RELATION_REQUIRED, _RELATION_NULLABLE)
    opath = f"{path}.object"
    target = _object(obj["object"], opath, frozenset(), _OBJECT_KEYS)
    entity = target.get("entity")
    value = target.get("value")
    if (entity is None) == (value is None):
        raise CandidateError("exactly one of object.entity and object.value must be non-null", opath)
    valid_from = _datetime(obj.get("valid_from"), f"{path}.valid_from")
    valid_to = _datetime(obj.get("valid_to"), f"{path}.valid_to")
    if valid_from and valid_to and _utc(valid_to) <= _utc(valid_from):
        raise CandidateError("must be later than valid_from", f"{path}.valid_to")
    return {
        "subject": _entity(obj["subject"], f"{path}.subject"),
        "predicate": _str(obj["predicate"], f"{path}.predicate"),
        "object": {
            "entity": None if entity is None else _entity(entity, f"{opath}.entity"),
            "value": _opt_str(value, f"{opath}.value"),
        },
        "valid_from": valid_from,
        "valid_to": valid_to,
    }


def _items(value: object, path: str, parse: Callable[[object, str], dict[str, Any]]) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise CandidateError("must be an array or null", path)
    return [parse(item, f"{path}[{i}]") for i, item in enumerate(value)]


def _structured(raw: object, path: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    obj = _object(raw, path, frozenset(), _STRUCTURED_KEYS)
    return {
        "summary": _opt_str(obj.get("summary"), f"{path}.summary"),
        "facts": _str_list(obj.get("facts"), f"{path}.facts"),
        "concepts": _str_list(obj.get("concepts"), f"{path}.concepts"),
        "entities": _items(obj.get("entities"), f"{path}.entities", _entity),
        "relations": _items(obj.get("relations"), f"{path}.relations", _relation),
    }


def _evidence(raw: object, path: str) -> tuple[Evidence, ...]:
    if not isinstance(raw, list):
        raise CandidateError("must be an array", path)
    out = []
    for i, item in enumerate(raw):
        ipath = f"{path}[{i}]"
        obj = _object(item, ipath, _EVIDENCE_KEYS, frozenset())
        index = obj["message_index"]
        if isinstance(index, bool) or not isinstance(index, int):
            raise CandidateError("must be an integer", f"{ipath}.message_index")
        out.append(Evidence(index, _str(obj["quote"], f"{ipath}.quote")))
    return tuple(out)


def validate_candidate(raw: object, path: str) -> CandidateNote:
    """One extractor note (spec v2 section 18) as a CandidateNote; ``path`` is its JSONPath, e.g.
    ``$.notes[3]``. Raises CandidateError with the JSONPath of the first bad element.

    ``scope_suggestion`` must be a known scope or null; ``ttl_days`` a whole number 0..MAX_TTL_DAYS or null;
    ``importance`` and ``confidence`` finite numbers in 0..1; every relation's ``object`` holds exactly one
    non-null of ``entity`` and ``value``. Evidence items must be ``{message_index: int, quote: str}``; their
    count, range and content are ``check_evidence``'s to judge.
    """
    obj = _object(raw, path, _NOTE_REQUIRED, _NOTE_NULLABLE)
    scope = _opt_str(obj.get("scope_suggestion"), f"{path}.scope_suggestion")
    if scope is not None and scope not in KNOWN_SCOPES:
        raise CandidateError(f"must be one of {', '.join(KNOWN_SCOPES)} or null", f"{path}.scope_suggestion")
    return CandidateNote(
        type=_str(obj["type"], f"{path}.type"),
        key=_opt_str(obj.get("key"), f"{path}.key"),
        text=_str(obj["text"], f"{path}.text"),
        importance=_unit(obj["importance"], f"{path}.importance"),
        confidence=_unit(obj["confidence"], f"{path}.confidence"),
        ttl_days=_ttl_days(obj.get("ttl_days"), f"{path}.ttl_days"),
        structured=_structured(obj.get("structured"), f"{path}.structured"),
        scope_suggestion=scope,
        evidence=_evidence(obj["evidence"], f"{path}.evidence"),
        reason=_str(obj["reason"], f"{path}.reason"),
    )


def validate_candidates(
    raw_notes: Sequence[object], path: str = "$.notes"
) -> tuple[list[CandidateNote], list[tuple[int, str]]]:
    """Validate every note of an extractor response (``raw_notes`` is its ``notes`` array, at ``path``).

    Returns the valid notes in order and, for each invalid one, ``(index, "<jsonpath>: <message>")``; an
    invalid note never fails its siblings. The valid notes' indexes are the ones not listed as invalid.
    """
    valid: list[CandidateNote] = []
    invalid: list[tuple[int, str]] = []
    for i, raw in enumerate(raw_notes):
        try:
            valid.append(validate_candidate(raw, f"{path}[{i}]"))
        except CandidateError as exc:
            invalid.append((i, str(exc)))
    return valid, invalid
