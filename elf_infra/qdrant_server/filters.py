"""Qdrant REST filter JSON to qdrant-edge Filter objects.

Covered: must / should / must_not / min_should, nested filters as conditions, field conditions with
match (value, any, except, text, text_any, phrase), range (numbers or datetimes), values_count,
is_empty / is_null (both spellings), has_id, has_vector, nested. Geo conditions are refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import qdrant_edge as qe

from .errors import bad_request, unsupported
from .points import point_ids

_FILTER_KEYS = {"must", "should", "must_not", "min_should"}
_RANGE_KEYS = ("gte", "gt", "lte", "lt")


def build_filter(value: Any) -> qe.Filter | None:
    """Translate a REST `Filter` object (or None) to qdrant-edge."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad_request("filter must be an object")
    unknown = set(value) - _FILTER_KEYS
    if unknown:
        raise bad_request(f"unknown filter keys: {sorted(unknown)}")
    min_should = value.get("min_should")
    if min_should is not None:
        if not isinstance(min_should, dict) or "conditions" not in min_should or "min_count" not in min_should:
            raise bad_request("min_should needs `conditions` and `min_count`")
        min_should = qe.MinShould(_conditions(min_should["conditions"]), int(min_should["min_count"]))
    return qe.Filter(
        must=_conditions(value.get("must")),
        should=_conditions(value.get("should")),
        must_not=_conditions(value.get("must_not")),
        min_should=min_should,
    )


def _conditions(value: Any) -> list[Any] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [_condition(c) for c in items]


def _condition(c: Any) -> Any:
    if not isinstance(c, dict):
        raise bad_request("filter condition must be an object")
    if "key" in c:
        return _field_condition(c)
    if "has_id" in c:
        return qe.HasIdCondition(set(point_ids(c["has_id"])))
    if "is_empty" in c:
        return qe.IsEmptyCondition(_payload_field(c["is_empty"]))
    if "is_null" in c:
        return qe.IsNullCondition(_payload_field(c["is_null"]))
    if "has_vector" in c:
        return qe.HasVectorCondition(str(c["has_vector"]))
    if "nested" in c:
        nested = c["nested"]
        if not isinstance(nested, dict) or "key" not in nested:
            raise bad_request("nested condition needs `key` and `filter`")
        return qe.NestedCondition(nested["key"], build_filter(nested.get("filter")))
    if set(c) & _FILTER_KEYS:
        return build_filter(c)
    raise bad_request(f"unknown filter condition: {sorted(c)}")


def _payload_field(value: Any) -> str:
    if not isinstance(value, dict) or not isinstance(value.get("key"), str):
        raise bad_request("is_empty / is_null need `{\"key\": ...}`")
    return value["key"]


def _field_condition(c: dict[str, Any]) -> qe.FieldCondition:
    for geo in ("geo_bounding_box", "geo_radius", "geo_polygon"):
        if c.get(geo) is not None:
            raise unsupported(f"filter condition `{geo}`")
    values_count = c.get("values_count")
    return qe.FieldCondition(
        c["key"],
        match=_match(c["match"]) if c.get("match") is not None else None,
        range=_range(c["range"]) if c.get("range") is not None else None,
        values_count=qe.ValuesCount(**_bounds(values_count)) if values_count is not None else None,
        is_empty=c.get("is_empty"),
        is_null=c.get("is_null"),
    )


def _match(m: Any) -> Any:
    if not isinstance(m, dict):
        raise bad_request("match must be an object")
    if "value" in m:
        value = m["value"]
        # qdrant-edge 0.9.0 reads a Python bool as the integer 0/1, which never matches a bool payload;
        # numpy.bool_ is read as a bool.
        return qe.MatchValue(np.bool_(value) if isinstance(value, bool) else value)
    if "any" in m:
        return qe.MatchAny(list(m["any"]))
    if "except" in m:
        return qe.MatchExcept(list(m["except"]))
    if "text" in m:
        return qe.MatchText(m["text"])
    if "text_any" in m:
        return qe.MatchTextAny(m["text_any"])
    if "phrase" in m:
        return qe.MatchPhrase(m["phrase"])
    raise bad_request(f"unknown match: {sorted(m)}")


def _bounds(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or set(value) - set(_RANGE_KEYS):
        raise bad_request("range must be an object with gte/gt/lte/lt")
    return {k: value[k] for k in _RANGE_KEYS if value.get(k) is not None}


def _range(value: Any) -> qe.RangeFloat | qe.RangeDateTime:
    bounds = _bounds(value)
    if any(isinstance(v, str) for v in bounds.values()):
        return qe.RangeDateTime(**{k: str(v) for k, v in bounds.items()})
    return qe.RangeFloat(**{k: float(v) for k, v in bounds.items()})
