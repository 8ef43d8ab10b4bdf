"""The Django admin's explain table of a trace item, pure: a stored ``explain`` (the section 14 shape) as rows
to draw, each ranking term with a bar as long as its value.

Term names are not known here: the ranking policy may add, drop or rename terms, so the table shows the terms
the stored explain holds, in its order. Bars share one scale per trace (the largest absolute term value of
any item), so the same length means the same value on every item of the page.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SUMMARY_CHARS = 300


@dataclass(frozen=True)
class TermBar:
    """One ranking term: ``width`` is a CSS percentage of the trace's scale ("0.0%" when the value is not a
    number); ``negative`` terms lower the score."""

    name: str
    value: Any
    width: str
    negative: bool


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def ranking_terms(explain: Any) -> list[tuple[str, Any]]:
    """``explain.ranking.terms`` as (name, value) pairs in stored order; empty when the explain has none."""
    ranking = explain.get("ranking") if isinstance(explain, dict) else None
    terms = ranking.get("terms") if isinstance(ranking, dict) else None
    if not isinstance(terms, list):
        return []
    return [(str(t.get("name", "")), t.get("value")) for t in terms if isinstance(t, dict)]


def bar_scale(explains: Iterable[Any]) -> float:
    """The largest absolute numeric term value over ``explains`` (0.0 when there is none)."""
    values = (_number(v) for e in explains for _, v in ranking_terms(e))
    return max((abs(v) for v in values if v is not None), default=0.0)


def term_bars(explain: Any, scale: float) -> list[TermBar]:
    """Each term of ``explain`` with its bar: ``|value| / scale`` of the full width (0 when ``scale`` is 0)."""
    bars = []
    for name, value in ranking_terms(explain):
        number = _number(value)
        share = abs(number) / scale if number is not None and scale > 0 else 0.0
        bars.append(TermBar(name, value, f"{100.0 * share:.1f}%", number is not None and number < 0))
    return bars


def policy_id(explain: Any) -> str:
    ranking = explain.get("ranking") if isinstance(explain, dict) else None
    return str(ranking.get("policy_id", "")) if isinstance(ranking, dict) else ""


def match_rows(explain: Any) -> list[tuple[str, str]]:
    """``explain.match`` as (field, shown value) rows, whatever keys it holds; lists are comma-joined."""
    match = explain.get("match") if isinstance(explain, dict) else None
    if not isinstance(match, dict):
        return []
    return [(str(k), _shown(v)) for k, v in match.items()]


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return value if isinstance(value, str) else summary(value)


def summary(payload: Any, max_chars: int = SUMMARY_CHARS) -> str:
    """``payload`` as compact sorted JSON, cut to ``max_chars`` with an ellipsis."""
    text = json.dumps(payload, sort_keys=True, default=str)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"
