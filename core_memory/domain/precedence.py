"""Which entry decides a key (core-memory-markdown section 3): Policy > Profile > Session; within one scope the
higher priority, then the newer updated_at, then the last write (the later line of the document)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from .vocabulary import SCOPE_RANK, MemoryScope

PRIORITY, UPDATED_AT, LAST_WRITE = "priority", "updated_at", "last_write"


class Candidate(NamedTuple):
    """One live (unexpired) entry competing for its key (a tuple: resolve builds hundreds per request)."""

    scope: MemoryScope
    key: str
    value: str
    kind: str
    priority: int
    updated_at: datetime
    source: str
    ttl: str
    order: int  # position of the write within its scope: a larger number is a later write (line number)


def rank(c: Candidate) -> tuple:
    return (SCOPE_RANK[c.scope], -c.priority, -c.updated_at.timestamp(), -c.order)


def effective(candidates: Iterable[Candidate]) -> dict[str, Candidate]:
    """The winning candidate of each key."""
    best: dict[str, Candidate] = {}
    for c in candidates:
        cur = best.get(c.key)
        if cur is None or rank(c) < rank(cur):
            best[c.key] = c
    return best


def tie_break_rule(winner: Candidate, loser: Candidate) -> str:
    """Which rule made ``winner`` beat ``loser`` within one scope: priority, updated_at or last_write."""
    if winner.priority != loser.priority:
        return PRIORITY
    if winner.updated_at != loser.updated_at:
        return UPDATED_AT
    return LAST_WRITE


@dataclass(frozen=True)
class TieBreak:
    key: str
    winner: Candidate
    loser: Candidate
    rule: str

    def reason(self) -> str:
        why = {PRIORITY: f"higher priority ({self.winner.priority} over {self.loser.priority})",
               UPDATED_AT: "newer updated_at", LAST_WRITE: "equal priority and updated_at: the later line wins"}
        return (f"duplicate key in {self.winner.scope}: line {self.winner.order} beats line {self.loser.order} "
                f"by {why[self.rule]}")


def tie_breaks(candidates: Iterable[Candidate]) -> list[TieBreak]:
    """Every key written more than once in one scope: the winner against each loser, and the rule that decided."""
    by_key: dict[tuple[MemoryScope, str], list[Candidate]] = {}
    for c in candidates:
        by_key.setdefault((c.scope, c.key), []).append(c)
    out: list[TieBreak] = []
    for (_, key), group in by_key.items():
        if len(group) < 2:
            continue
        group.sort(key=rank)
        out.extend(TieBreak(key, group[0], loser, tie_break_rule(group[0], loser)) for loser in group[1:])
    return out
