"""Dates named in a query (elf_domain.time_phrases), pure."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from elf_domain.time_phrases import date_ranges, observed_ranges


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What did Nate do for Joanna on 25 May, 2022?", [(date(2022, 5, 25), date(2022, 5, 25))]),
        ("What book did Tim finish on 8th December, 2023?", [(date(2023, 12, 8), date(2023, 12, 8))]),
        ("Where was the picture shared on December 1,2023 taken?", [(date(2023, 12, 1), date(2023, 12, 1))]),
        ("What movie did Nate watch on October 6, 2022?", [(date(2022, 10, 6), date(2022, 10, 6))]),
        ("What inspired the script in July 2022?", [(date(2022, 7, 1), date(2022, 7, 31))]),
        ("What happened in Feb 2024?", [(date(2024, 2, 1), date(2024, 2, 29))]),
        ("When did John get an ankle injury in 2023?", [(date(2023, 1, 1), date(2023, 12, 31))]),
        (
            "Between 3 March 2023 and June 2023?",
            [(date(2023, 3, 3), date(2023, 3, 3)), (date(2023, 6, 1), date(2023, 6, 30))],
        ),
    ],
)
def test_absolute_dates_become_day_month_or_year_ranges(query, expected):
    assert date_ranges(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "What may happen next?",
        "What did she say last week?",
        "On May 25 they met.",
        "It costs 20 dollars.",
        "The 31 February 2023 meeting",
        "Which of the 12 apples?",
    ],
)
def test_no_range_without_an_absolute_date(query):
    assert date_ranges(query) == []


def test_observed_ranges_are_whole_utc_days_widened_by_the_pad():
    ((lo, hi),) = observed_ranges("on 25 May, 2022", pad_days=1)
    assert datetime.fromtimestamp(lo, UTC) == datetime(2022, 5, 24, tzinfo=UTC)
    assert datetime.fromtimestamp(hi, UTC) == datetime(2022, 5, 26, 23, 59, 59, tzinfo=UTC)
    ((lo0, hi0),) = observed_ranges("in 2023", pad_days=0)
    assert (datetime.fromtimestamp(lo0, UTC).date(), datetime.fromtimestamp(hi0, UTC).date()) == (
        date(2023, 1, 1),
        date(2023, 12, 31),
    )
