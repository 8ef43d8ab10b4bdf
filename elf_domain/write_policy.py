"""write_policy (supplement section 5), pure: per-message (add_event) or per-note (add_note) exclusions and
redactions, validated against the text they apply to and applied before anything else sees that text.

Spans are half-open ``[start, end)`` UTF-8 byte offsets into the original text. A span must be non-empty
(an empty span excludes or redacts nothing, so it is a client mistake rather than a no-op), lie inside the
text, start and end on character boundaries, and overlap no other span of the same policy, exclusions and
redactions alike. Adjacent spans (one ends where the next starts) do not overlap.

Every error names the JSONPath of the offending element under the policy's own path, e.g.
``$.messages[2].write_policy.redactions[0].span.end``.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .english_gate import first_forbidden_char
from .jsonpath import JsonPathError, member_path

__all__ = [
    "MAX_REPLACEMENT_CHARS",
    "REDACTION_KINDS",
    "Redaction",
    "Span",
    "WritePolicy",
    "WritePolicyError",
    "apply_write_policy",
    "parse_write_policy",
]

MAX_REPLACEMENT_CHARS = 256
REDACTION_KINDS = ("replace", "remove")

_POLICY_KEYS = frozenset({"exclusions", "redactions"})
_SPAN_KEYS = frozenset({"start", "end"})
_REDACTION_KEYS = {"replace": frozenset({"kind", "span", "replacement"}), "remove": frozenset({"kind", "span"})}


class WritePolicyError(JsonPathError):
    """An invalid write_policy: what is wrong and the JSONPath of the offending element."""


@dataclass(frozen=True, order=True)
class Span:
    """A half-open UTF-8 byte range ``[start, end)`` of the original text."""

    start: int
    end: int

    def as_dict(self) -> dict[str, int]:
        return {"start": self.start, "end": self.end}


@dataclass(frozen=True)
class Redaction:
    """A redacted span: ``replace`` substitutes ``replacement``; ``remove`` deletes (``replacement`` is "")."""

    kind: str
    span: Span
    replacement: str


@dataclass(frozen=True)
class WritePolicy:
    """A validated policy, its spans in request order."""

    exclusions: tuple[Span, ...]
    redactions: tuple[Redaction, ...]


def _object(raw: object, path: str, allowed: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise WritePolicyError("must be an object", path)
    for key in raw:
        if key not in allowed:
            allowed_list = ", ".join(sorted(allowed))
            raise WritePolicyError(f"unknown field (allowed: {allowed_list})", member_path(path, str(key)))
    return raw


def _list(raw: Mapping[str, Any], key: str, path: str) -> list[Any]:
    if key not in raw:
        return []
    value = raw[key]
    if not isinstance(value, list):
        raise WritePolicyError("must be an array", member_path(path, key))
    return value


def _offset(raw: Mapping[str, Any], key: str, path: str) -> int:
    if key not in raw:
        raise WritePolicyError("is required", f"{path}.{key}")
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise WritePolicyError("must be an integer byte offset", f"{path}.{key}")
    return value


def _is_boundary(data: bytes, offset: int) -> bool:
    # A UTF-8 continuation byte is 0b10xxxxxx; every other byte (and the end of the text) starts a character.
    return offset == len(data) or (data[offset] & 0xC0) != 0x80


def _span(raw: object, path: str, data: bytes) -> Span:
    obj = _object(raw, path, _SPAN_KEYS)
    start = _offset(obj, "start", path)
    end = _offset(obj, "end", path)
    size = len(data)
    if not 0 <= start < size:
        raise WritePolicyError(
            f"start must be >= 0 and less than the text length ({size} UTF-8 bytes)", f"{path}.start"
        )
    if end <= start:
        raise WritePolicyError(f"end must be greater than start ({start}); empty spans are not allowed", f"{path}.end")
    if end > size:
        raise WritePolicyError(f"end must be at most {size} (the text is {size} UTF-8 bytes)", f"{path}.end")
    if not _is_boundary(data, start):
        raise WritePolicyError("start falls inside a multi-byte UTF-8 character", f"{path}.start")
    if not _is_boundary(data, end):
        raise WritePolicyError("end falls inside a multi-byte UTF-8 character", f"{path}.end")
    return Span(start, end)


def _replacement(raw: Mapping[str, Any], path: str) -> str:
    rpath = f"{path}.replacement"
    if "replacement" not in raw:
        raise WritePolicyError("is required when kind is replace", rpath)
    value = raw["replacement"]
    if not isinstance(value, str):
        raise WritePolicyError("must be a string", rpath)
    if len(value) > MAX_REPLACEMENT_CHARS:
        raise WritePolicyError(f"must be at most {MAX_REPLACEMENT_CHARS} characters", rpath)
    bad = first_forbidden_char(value, allow_newlines=False)
    if bad is not None:
        raise WritePolicyError(f"must not contain control or invisible characters (U+{ord(bad):04X})", rpath)
    return value


def _redaction(raw: object, path: str, data: bytes) -> Redaction:
    if not isinstance(raw, Mapping):
        raise WritePolicyError("must be an object", path)
    kind = raw.get("kind")
    if "kind" not in raw:
        raise WritePolicyError("is required", f"{path}.kind")
    if kind not in REDACTION_KINDS:
        raise WritePolicyError(f"must be one of {', '.join(REDACTION_KINDS)}", f"{path}.kind")
    obj = _object(raw, path, _REDACTION_KEYS[kind])
    if "span" not in obj:
        raise WritePolicyError("is required", f"{path}.span")
    span = _span(obj["span"], f"{path}.span", data)
    replacement = _replacement(obj, path) if kind == "replace" else ""
    return Redaction(kind, span, replacement)


def _check_no_overlap(spans: list[tuple[Span, str]]) -> None:
    """Raise on the first span, in request order (exclusions, then redactions), that overlaps an earlier one.

    The spans seen so far never overlap each other, so a new span can only overlap its neighbours in start
    order: the last one starting at or before it and the first one starting after it.
    """
    starts: list[int] = []
    placed: list[tuple[Span, str]] = []
    for span, path in spans:
        i = bisect.bisect_right(starts, span.start)
        neighbours = ([placed[i - 1]] if i > 0 else []) + ([placed[i]] if i < len(placed) else [])
        for other, other_path in neighbours:
            if span.start < other.end and other.start < span.end:
                raise WritePolicyError(f"overlaps {other_path}", path)
        starts.insert(i, span.start)
        placed.insert(i, (span, path))


def parse_write_policy(raw: object, text: str, path: str) -> WritePolicy:
    """Validate ``raw`` (the request's write_policy object) against ``text`` (the original message content
    or note text); ``path`` is the policy's JSONPath, e.g. ``$.messages[2].write_policy``.

    Both ``exclusions`` and ``redactions`` are optional (absent means none; null is not an array). Raises
    WritePolicyError with the JSONPath of the first bad element; an overlap names the later span.
    """
    data = text.encode("utf-8", "surrogatepass")
    obj = _object(raw, path, _POLICY_KEYS)
    ex_path = f"{path}.exclusions"
    red_path = f"{path}.redactions"
    exclusions = tuple(_span(item, f"{ex_path}[{i}]", data) for i, item in enumerate(_list(obj, "exclusions", path)))
    redactions = tuple(
        _redaction(item, f"{red_path}[{i}]", data) for i, item in enumerate(_list(obj, "redactions", path))
    )
    _check_no_overlap(
        [(span, f"{ex_path}[{i}]") for i, span in enumerate(exclusions)]
        + [(r.span, f"{red_path}[{i}].span") for i, r in enumerate(redactions)]
    )
    return WritePolicy(exclusions, redactions)


def apply_write_policy(text: str, policy: WritePolicy) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    """The transformed text and its audit ``{"exclusions": [span], "redactions": [{span, replacement}]}``.

    Exclusions and ``remove`` redactions delete their bytes, ``replace`` redactions substitute the
    replacement; each audit list is in offset order (``remove`` is audited with replacement ""). ``policy``
    must come from ``parse_write_policy`` on this same ``text``, so spans are in bounds, aligned and disjoint.
    """
    data = text.encode("utf-8", "surrogatepass")
    edits = sorted(
        [(span, b"") for span in policy.exclusions] + [(r.span, r.replacement.encode()) for r in policy.redactions]
    )
    out = bytearray()
    cursor = 0
    for span, replacement in edits:
        out += data[cursor : span.start]
        out += replacement
        cursor = span.end
    out += data[cursor:]
    audit: dict[str, list[dict[str, Any]]] = {
        "exclusions": [span.as_dict() for span in sorted(policy.exclusions)],
        "redactions": [
            {"span": r.span.as_dict(), "replacement": r.replacement}
            for r in sorted(policy.redactions, key=lambda r: r.span)
        ],
    }
    return out.decode("utf-8", "surrogatepass"), audit
