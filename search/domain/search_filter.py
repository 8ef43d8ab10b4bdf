"""search_filter_expr/v1 (supplement section 1; spec v2 section 13 step 11), pure: parse and validate a
search filter, evaluate it against an authoritative note row, explain why a note was dropped, and build the
``filter_impact`` object of the recall stage.

Validation stops at the first error, in document order: an object's own shape first (for the envelope:
``schema``, unknown keys, a missing ``expr``; for a node: the limits of its position, then ``op``, unknown
keys, missing keys), then its members in the order ``field``, ``value`` / ``args`` / ``expr``.
``FilterError.path`` is the one JSONPath of the offending element; the API returns it as ``fields: [path]``.
Where the error lies:

- a wrong or missing member: that member, e.g. ``$.filter.schema``, ``$.filter.expr.args[1].field``;
  a key the object must not have: that key, e.g. ``$.filter.expr.bogus``;
- an operator that does not apply to the field (``contains`` on a number or datetime field, ``gt``/``gte``/
  ``lt``/``lte`` on a string field): the node's ``op``;
- a bad ``in`` element: that element, e.g. ``$.filter.expr.value[3]``; an ``in`` list that is empty or
  longer than 128: the list, ``...value``;
- depth over 8 (the ``expr`` node is depth 1): the first node at depth 9; more than 128 nodes: the 129th
  node in document order (pre-order). Both are checked as a node position is entered, before its content.

Value rules: ``importance``, ``confidence``, ``hit_count`` take finite JSON numbers (booleans are not
numbers); ``updated_at``, ``expires_at``, ``last_hit_at`` take RFC 3339 date-times with a UTC offset
(``Z`` or ``+hh:mm``; sub-microsecond digits are truncated); ``type``, ``key``, ``scope``, ``agent_id`` take
strings, trimmed of surrounding whitespace. Every string, as received, is at most 512 UTF-8 bytes.
``contains`` applies to the string fields only. ``null`` is a value only for the nullable columns ``key``,
``expires_at``, ``last_hit_at``, and only with ``eq``, ``neq`` or as an ``in`` element, where it means
"the note has none".

Evaluation is two-valued, never SQL NULL logic:

- ``eq`` is equality, with None equal only to None; ``neq`` is exactly ``not eq``, so ``neq key "a"`` holds
  for a note without a key; ``in`` holds when ``eq`` holds for some element.
- ``contains`` is a case-sensitive substring test (like ``eq``, it compares exact characters); a note value
  of None contains nothing. The filter string is trimmed, the note value is used as stored.
- ``gt``/``gte``/``lt``/``lte`` are false when the note value is None: ``expires_at gt X`` is false for a
  note that never expires, and ``not`` of it is true.
- ``importance`` and ``confidence`` are Postgres ``real`` columns, so both sides are compared at float32
  precision: a note written with importance 0.7 satisfies ``eq importance 0.7`` whether its row value
  arrives as 0.7 or as the float32 0.699999988.
"""

from __future__ import annotations

import math
import operator
import re
import struct
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from elf_domain.jsonpath import JsonPathError
from elf_domain.limits import MAX_CANDIDATE_K

__all__ = [
    "FIELDS",
    "FILTER_IMPACT_SCHEMA",
    "FILTER_SCHEMA",
    "MAX_CANDIDATE_K",
    "OPS",
    "And",
    "Compare",
    "FilterError",
    "FilterExpr",
    "In",
    "Not",
    "Or",
    "effective_candidate_k",
    "evaluate",
    "explain_failure",
    "filter_impact",
    "parse_filter",
]

FILTER_SCHEMA = "search_filter_expr/v1"
FILTER_IMPACT_SCHEMA = "search_filter_impact/v1"
MAX_DEPTH = 8
MAX_NODES = 128
MAX_IN_VALUES = 128
MAX_STRING_BYTES = 512
TOP_DROP_REASONS = 5

STRING_FIELDS = ("type", "key", "scope", "agent_id")
NUMBER_FIELDS = ("importance", "confidence", "hit_count")
DATETIME_FIELDS = ("updated_at", "expires_at", "last_hit_at")
FIELDS = STRING_FIELDS + NUMBER_FIELDS + DATETIME_FIELDS
NULLABLE_FIELDS = frozenset({"key", "expires_at", "last_hit_at"})
_REAL_FIELDS = frozenset({"importance", "confidence"})

LOGICAL_OPS = ("and", "or", "not")
ORDERING_OPS = ("gt", "gte", "lt", "lte")
COMPARE_OPS = ("eq", "neq", "contains") + ORDERING_OPS
OPS = LOGICAL_OPS + COMPARE_OPS + ("in",)
_ORDERING = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}

# Required members of a node besides "op", in the order they are validated.
_NODE_KEYS: dict[str, tuple[str, ...]] = {
    "and": ("args",),
    "or": ("args",),
    "not": ("expr",),
    **{op: ("field", "value") for op in COMPARE_OPS + ("in",)},
}

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
    r"(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))?"
)

Value = str | int | float | datetime | None


class FilterError(JsonPathError):
    """An invalid filter: what is wrong and the JSONPath of the offending element."""


@dataclass(frozen=True)
class Compare:
    """A leaf ``eq|neq|contains|gt|gte|lt|lte``; ``value`` already parsed (trimmed string, number,
    aware datetime, or None for eq/neq on a nullable field)."""

    op: str
    field: str
    value: Value


@dataclass(frozen=True)
class In:
    """A leaf ``in``: the note value equals one of ``values`` (parsed like an ``eq`` value)."""

    field: str
    values: tuple[Value, ...]


@dataclass(frozen=True)
class And:
    """Holds when every argument holds."""

    args: tuple[FilterExpr, ...]


@dataclass(frozen=True)
class Or:
    """Holds when some argument holds."""

    args: tuple[FilterExpr, ...]


@dataclass(frozen=True)
class Not:
    """Holds when ``expr`` does not."""

    expr: FilterExpr


FilterExpr = Compare | In | And | Or | Not


def parse_filter(raw: object, path: str = "$.filter") -> FilterExpr:
    """Validate a ``{"schema": "search_filter_expr/v1", "expr": NODE}`` envelope (the decoded JSON at
    ``path``) and return its expression tree. Raises FilterError for the first violation found."""
    if not isinstance(raw, dict):
        raise FilterError("filter must be an object", path)
    if "schema" not in raw:
        raise FilterError("missing required key schema", _member(path, "schema"))
    if raw["schema"] != FILTER_SCHEMA:
        raise FilterError(f"schema must be {FILTER_SCHEMA}", _member(path, "schema"))
    _reject_unknown_keys(raw, ("schema", "expr"), path)
    if "expr" not in raw:
        raise FilterError("missing required key expr", _member(path, "expr"))
    return _NodeParser().node(raw["expr"], _member(path, "expr"), depth=1)


def evaluate(expr: FilterExpr, note: Mapping[str, object]) -> bool:
    """Whether ``note`` passes the filter. ``note`` holds the ten filterable fields of the authoritative
    row (datetimes aware; ``key``, ``expires_at``, ``last_hit_at`` may be None); only the fields the
    filter names are read."""
    return explain_failure(expr, note) is None


def explain_failure(expr: FilterExpr, note: Mapping[str, object]) -> str | None:
    """None when ``note`` passes the filter, else the drop reason: ``"<op>:<field>"`` for a failing leaf
    (``eq:scope``, ``gte:importance``, ``in:type``), ``"or"`` when no alternative of an ``or`` holds,
    ``"not"`` when the negated expression holds. An ``and`` reports its first failing argument."""
    if isinstance(expr, And):
        for arg in expr.args:
            reason = explain_failure(arg, note)
            if reason is not None:
                return reason
        return None
    if isinstance(expr, Or):
        return None if any(explain_failure(arg, note) is None for arg in expr.args) else "or"
    if isinstance(expr, Not):
        return "not" if explain_failure(expr.expr, note) is None else None
    actual = note[expr.field]
    if isinstance(expr, In):
        holds = any(_equals(expr.field, actual, value) for value in expr.values)
        return None if holds else f"in:{expr.field}"
    return None if _compare(expr, actual) else f"{expr.op}:{expr.field}"


def filter_impact(
    *,
    requested_candidate_k: int,
    effective_candidate_k: int,
    candidate_count_pre: int,
    candidate_count_post: int,
    drop_reasons: Iterable[str],
    raw_filter: object,
) -> dict[str, object]:
    """The recall stage's ``search_filter_impact/v1`` object. ``candidate_count_pre``/``_post`` count the
    candidates before and after the filter, ``drop_reasons`` holds one explain_failure label per dropped
    candidate, ``raw_filter`` is echoed as ``filter``. ``dropped_total`` is pre minus post;
    ``top_drop_reasons`` keeps the 5 most frequent labels, count descending, then reason ascending."""
    counts = Counter(drop_reasons)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_DROP_REASONS]
    return {
        "schema": FILTER_IMPACT_SCHEMA,
        "requested_candidate_k": requested_candidate_k,
        "effective_candidate_k": effective_candidate_k,
        "candidate_count_pre": candidate_count_pre,
        "candidate_count_post": candidate_count_post,
        "dropped_total": candidate_count_pre - candidate_count_post,
        "top_drop_reasons": [{"reason": reason, "count": count} for reason, count in ranked],
        "filter": raw_filter,
    }


def effective_candidate_k(candidate_k: int, top_k: int, max_candidate_k: int = MAX_CANDIDATE_K) -> int:
    """The candidate count retrieved when a filter is present: ``min(max_candidate_k, 3 * candidate_k)``,
    raised to ``top_k`` when that is larger."""
    return max(top_k, min(max_candidate_k, 3 * candidate_k))


class _NodeParser:
    """One pass over a NODE tree; counts nodes in document order for the 128-node limit."""

    def __init__(self) -> None:
        self.nodes = 0

    def node(self, raw: object, path: str, depth: int) -> FilterExpr:
        if depth > MAX_DEPTH:
            raise FilterError(f"filter is nested deeper than {MAX_DEPTH} levels", path)
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise FilterError(f"filter has more than {MAX_NODES} nodes", path)
        if not isinstance(raw, dict):
            raise FilterError("node must be an object", path)
        if "op" not in raw:
            raise FilterError("missing required key op", _member(path, "op"))
        op = raw["op"]
        if not isinstance(op, str) or op not in OPS:
            raise FilterError(f"op must be one of {', '.join(OPS)}", _member(path, "op"))
        required = _NODE_KEYS[op]
        _reject_unknown_keys(raw, ("op",) + required, path)
        for key in required:
            if key not in raw:
                raise FilterError(f"missing required key {key}", _member(path, key))
        if op == "not":
            return Not(self.node(raw["expr"], _member(path, "expr"), depth + 1))
        if op in ("and", "or"):
            args_path = _member(path, "args")
            args = raw["args"]
            if not isinstance(args, list) or not args:
                raise FilterError(f"{op} takes a non-empty array of nodes", args_path)
            parsed = tuple(self.node(arg, f"{args_path}[{i}]", depth + 1) for i, arg in enumerate(args))
            return And(parsed) if op == "and" else Or(parsed)
        return _leaf(op, raw, path)


def _leaf(op: str, raw: dict, path: str) -> Compare | In:
    field = raw["field"]
    if not isinstance(field, str) or field not in FIELDS:
        raise FilterError(f"field must be one of {', '.join(FIELDS)}", _member(path, "field"))
    if op == "contains" and field not in STRING_FIELDS:
        raise FilterError(f"contains applies only to {', '.join(STRING_FIELDS)}", _member(path, "op"))
    if op in ORDERING_OPS and field in STRING_FIELDS:
        raise FilterError(f"{op} applies only to number and datetime fields", _member(path, "op"))
    value_path = _member(path, "value")
    value = raw["value"]
    if op != "in":
        nullable = op in ("eq", "neq") and field in NULLABLE_FIELDS
        return Compare(op, field, _value(field, value, value_path, nullable))
    if not isinstance(value, list) or not value:
        raise FilterError("in takes a non-empty array of values", value_path)
    if len(value) > MAX_IN_VALUES:
        raise FilterError(f"in takes at most {MAX_IN_VALUES} values", value_path)
    nullable = field in NULLABLE_FIELDS
    return In(field, tuple(_value(field, v, f"{value_path}[{i}]", nullable) for i, v in enumerate(value)))


def _value(field: str, raw: object, path: str, nullable: bool) -> Value:
    if raw is None:
        if nullable:
            return None
        raise FilterError(f"null is allowed only with eq, neq and in on {', '.join(sorted(NULLABLE_FIELDS))}", path)
    if field in NUMBER_FIELDS:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise FilterError(f"{field} takes a number", path)
        if isinstance(raw, float) and not math.isfinite(raw):
            raise FilterError(f"{field} takes a finite number", path)
        return raw
    kind = "an RFC 3339 date-time string" if field in DATETIME_FIELDS else "a string"
    if not isinstance(raw, str):
        raise FilterError(f"{field} takes {kind}", path)
    # surrogatepass: a lone surrogate from a JSON \ud800 escape still has a size, and is not our error to report
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_STRING_BYTES:
        raise FilterError(f"string is longer than {MAX_STRING_BYTES} UTF-8 bytes", path)
    if field in DATETIME_FIELDS:
        return _parse_datetime(raw, path)
    return raw.strip()


def _parse_datetime(raw: str, path: str) -> datetime:
    match = _RFC3339.fullmatch(raw)
    if match is None:
        raise FilterError("not an RFC 3339 date-time (YYYY-MM-DDThh:mm:ss[.frac](Z|+hh:mm))", path)
    year, month, day, hour, minute, second, frac, zulu, sign, off_h, off_m = match.groups()
    if zulu is None and sign is None:
        raise FilterError("date-time has no UTC offset (Z or +hh:mm)", path)
    if sign is not None and (int(off_h) > 23 or int(off_m) > 59):
        raise FilterError("date-time has an invalid UTC offset", path)
    offset = timedelta(0)
    if sign is not None:
        offset = timedelta(hours=int(off_h), minutes=int(off_m)) * (-1 if sign == "-" else 1)
    micro = int((frac or "0")[:6].ljust(6, "0"))
    try:
        # A leap second (:60) has no datetime representation and is rejected here with other bad ranges.
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, timezone(offset))
    except ValueError:
        raise FilterError("date-time is out of range", path) from None


def _member(path: str, key: object) -> str:
    if isinstance(key, str) and _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    escaped = str(key).replace("\\", "\\\\").replace("'", "\\'")
    return f"{path}['{escaped}']"


def _reject_unknown_keys(raw: dict, allowed: tuple[str, ...], path: str) -> None:
    for key in raw:
        if key not in allowed:
            raise FilterError(f"unknown key; allowed keys are {', '.join(allowed)}", _member(path, key))


def _comparable(field: str, value: object) -> object:
    """The value as compared: float32 for the ``real`` columns, anything else unchanged."""
    if field in _REAL_FIELDS and isinstance(value, (int, float)):
        try:
            return struct.unpack("<f", struct.pack("<f", float(value)))[0]
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def _equals(field: str, actual: object, expected: Value) -> bool:
    if actual is None or expected is None:
        return actual is expected
    return _comparable(field, actual) == _comparable(field, expected)


def _compare(leaf: Compare, actual: object) -> bool:
    if leaf.op == "eq":
        return _equals(leaf.field, actual, leaf.value)
    if leaf.op == "neq":
        return not _equals(leaf.field, actual, leaf.value)
    if leaf.op == "contains":
        return isinstance(actual, str) and isinstance(leaf.value, str) and leaf.value in actual
    if actual is None:
        return False
    left: Any = _comparable(leaf.field, actual)
    right: Any = _comparable(leaf.field, leaf.value)
    return bool(_ORDERING[leaf.op](left, right))
