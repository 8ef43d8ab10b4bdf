"""Current facts first (issue 32), pure: a note whose every graph fact was superseded (or otherwise ended) ranks
below the notes that are not, unless the query asks about the past.

- ``past_query``: whether a search asks about the past, and why: an ``as_of`` earlier than now, or a time phrase
  in the query text ("last year", "in 2022", "before", "used to", "previously", "when did", "March 2024" ...).
  A year or a month of the current month or later is not the past ("plans for 2031").
- ``demote``: adds the ``graph.superseded`` term to each demoted candidate. Its value is minus (the spread of the
  candidates' final scores + ``DEMOTION_MARGIN``), so a demoted chunk lands below every chunk that is not
  demoted, whatever the formula's score scale, and demoted chunks keep their order among themselves. The explain
  lists the term like any other, and ``final_score`` stays the sum of the terms.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from elf_domain.time_phrases import MONTH_PATTERN, month_number

from .ranking import Ranked, RankingTerm

TERM_SUPERSEDED = "graph.superseded"
DEMOTION_MARGIN = 1.0
# An as_of within this much of now is "now" (a client's clock and the request's travel time).
AS_OF_SLACK = timedelta(minutes=1)

_MONTH_YEAR = re.compile(rf"\b(?P<month>{MONTH_PATTERN})\.?,?\s+(?P<year>(?:19|20)\d\d)\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:in|during|since|from|by|of|around|circa)\s+(?P<year>(?:19|20)\d\d)\b", re.IGNORECASE)
_PAST_PHRASE = re.compile(
    r"\b(?:"
    r"last\s+(?:year|month|week|summer|winter|spring|fall|autumn|quarter|time|night|weekend)"
    r"|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|several|\d+)\s+(?:years?|months?|weeks?|days?)"
    r"\s+ago|ago"
    r"|yesterday|before|previously|previous|formerly|former|earlier|originally|prior\s+to|used\s+to"
    r"|did\s+(?:\S+\s+){1,3}use\s+to"
    r"|in\s+the\s+past|back\s+(?:then|in|when)|at\s+the\s+time|no\s+longer|any\s?more|history|historically"
    r"|when\s+did|(?:my|our|his|her|their|your|\w+['’]s)\s+old"
    r")\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PastQuery:
    """Why a search asks about the past: ``as_of`` (the request's as_of is earlier than now) or ``phrase`` (the
    query's time phrase, in ``matched``)."""

    reason: str
    matched: str

    def as_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "matched": self.matched}


def past_query(query: str, *, as_of: datetime | None, now: datetime) -> PastQuery | None:
    """None when the search asks about now; otherwise why it asks about the past (see the module docstring)."""
    if as_of is not None and as_of < now - AS_OF_SLACK:
        return PastQuery("as_of", as_of.isoformat())
    m = _PAST_PHRASE.search(query)
    if m is not None:
        return PastQuery("phrase", m.group())
    for m in _MONTH_YEAR.finditer(query):
        month = month_number(m.group("month"))
        if (int(m.group("year")), month) < (now.year, now.month):
            return PastQuery("phrase", m.group())
    for m in _YEAR.finditer(query):
        if int(m.group("year")) < now.year:
            return PastQuery("phrase", m.group())
    return None


def demotion_penalty(ranked: Sequence[Ranked]) -> float:
    """What a demoted chunk loses: the spread of the final scores plus DEMOTION_MARGIN (0.0 for no candidate)."""
    if not ranked:
        return 0.0
    scores = [r.final_score for r in ranked]
    return (max(scores) - min(scores)) + DEMOTION_MARGIN


def demote(ranked: Sequence[Ranked], demoted_notes: Collection[Hashable]) -> list[Ranked]:
    """``ranked`` in the same order, each chunk of a note in ``demoted_notes`` with the ``graph.superseded`` term
    (minus ``demotion_penalty(ranked)``) appended and its final score the new sum of its terms."""
    if not demoted_notes:
        return list(ranked)
    penalty = demotion_penalty(ranked)
    out = []
    for r in ranked:
        if r.candidate.note_id in demoted_notes:
            terms = (*r.terms, RankingTerm(TERM_SUPERSEDED, -penalty))
            r = replace(r, terms=terms, final_score=sum(t.value for t in terms))
        out.append(r)
    return out
