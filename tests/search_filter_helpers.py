"""Shared pieces of the search_filter_expr/v1 tests: a note row, filter builders and an error-path probe."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from search.domain.search_filter import FilterError, evaluate, parse_filter

UTC = UTC
NOTE = {
    "type": "preference",
    "key": "editor_theme",
    "scope": "project_shared",
    "agent_id": "agent-a",
    "importance": 0.699999988079071,  # 0.7 at float32, as a Postgres real may come back
    "confidence": 0.9,
    "updated_at": datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
    "expires_at": datetime(2026, 6, 1, 0, 0, tzinfo=UTC),
    "hit_count": 3,
    "last_hit_at": datetime(2026, 3, 2, 8, 30, tzinfo=UTC),
}
BARE = {**NOTE, "key": None, "expires_at": None, "last_hit_at": None, "hit_count": 0}


def envelope(expr):
    return {"schema": "search_filter_expr/v1", "expr": expr}


def leaf(op, field, value):
    return {"op": op, "field": field, "value": value}


def holds(expr, note=NOTE):
    return evaluate(parse_filter(envelope(expr)), note)


def error_path(raw, root="$.filter"):
    with pytest.raises(FilterError) as info:
        parse_filter(raw, root)
    assert info.value.message
    return info.value.path


def nested_not(depth):
    """A chain of ``depth`` nodes: depth - 1 nots around one leaf."""
    node = leaf("eq", "scope", "project_shared")
    for _ in range(depth - 1):
        node = {"op": "not", "expr": node}
    return node
