"""Dates named in a query (issue 32, "time in queries"), pure: "on 25 May, 2022", "October 6, 2022", "8th
December, 2023", "in June 2022", "in 2023". Each becomes a range of days (a day, its month or its year), widened by
``PAD_DAYS`` on each side because a statement is often recorded a day after what it tells (or in another time
zone). Recall then runs one more dense search among the notes observed inside the ranges (a note's
``observed_at``; search.services.recall), fused with the other legs: a question about what was said on a date
looks among what was said then, without dropping what the other legs found.

Only absolute dates are read. A date with no year ("on May 25") and relative phrases ("last week", "two weeks
before the trip") name no range here: they would need a reference time the query does not give.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, time, timedelta

PAD_DAYS = 1

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
# A month's English name or its three-letter abbreviation (match with re.IGNORECASE); month_number reads it.
MONTH_PATTERN = _MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))


def month_number(name: str) -> int:
    """1-12 for a name MONTH_PATTERN matched ("May", "sep", "SEPTEMBER")."""
    return _MONTHS[name.lower()]

_ORD = r"(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORD},?\s*(\d{{4}})\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


def _day(year: str, month: str, day: str) -> tuple[date, date] | None:
    try:
        d = date(int(year), _MONTHS[month.lower()], int(day))
    except ValueError:  # "31 February 2023": no such day, so no range
        return None
    return d, d


def _month(year: str, month: str) -> tuple[date, date]:
    y, m = int(year), _MONTHS[month.lower()]
    return date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1])


def date_ranges(query: str) -> list[tuple[date, date]]:
    """The days, months and years ``query`` names, as inclusive (first day, last day) ranges, in the order they
    were read (days first, then months, then years; a part already read as a day is not read again)."""
    found: list[tuple[date, date] | None] = []
    rest = query
    for pattern, build in ((_DAY_MONTH_YEAR, lambda m: _day(m[3], m[2], m[1])),
                           (_MONTH_DAY_YEAR, lambda m: _day(m[3], m[1], m[2])),
                           (_MONTH_YEAR, lambda m: _month(m[2], m[1])),
                           (_YEAR, lambda m: (date(int(m[1]), 1, 1), date(int(m[1]), 12, 31)))):
        for match in pattern.finditer(rest):
            found.append(build(match))
        rest = pattern.sub(" ", rest)
    return [r for r in found if r is not None]


def observed_ranges(query: str, pad_days: int = PAD_DAYS) -> list[tuple[int, int]]:
    """``date_ranges`` as inclusive epoch-second ranges (UTC days), each widened by ``pad_days``."""
    out = []
    for first, last in date_ranges(query):
        lo = datetime.combine(first - timedelta(days=pad_days), time.min, UTC)
        hi = datetime.combine(last + timedelta(days=pad_days), time.max, UTC)
        out.append((int(lo.timestamp()), int(hi.timestamp())))
    return out
