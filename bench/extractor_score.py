"""Scoring an extractor on a labelled snippet set (tests/data/extractor_set_v2.json), pure: no I/O, no service.

A labelled note is ``{"type", "key", "anchor", "accept_types"?}``. An emitted note matches a labelled one of
the same snippet when its type is the labelled type (or one of ``accept_types``, for statements a careful
person could file either way, e.g. "I'm vegetarian" as profile or constraint) and the anchor, a short verbatim
span of the snippet naming what the note is about, occurs (case-insensitively) in the note's text or evidence
quote. Each labelled note is matched at most once (maximum bipartite matching), so precision = matched /
emitted and recall = matched / labelled. This is stricter than the type-only multiset count of
tests/memory/test_local_extractor_labelled.py, which lets any preference note stand for any labelled preference.

Secrets: a note whose text or quote contains one of the snippet's ``secrets`` strings. Verbatim: every evidence
quote is a substring of ``messages[message_index]["content"]``.

The split is fixed before any rule is tuned: a snippet is held out when the sha256 of its id is odd, so
membership never depends on the other snippets or on the extractor.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

Extract = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def is_held_out(case_id: str) -> bool:
    return int(hashlib.sha256(case_id.encode("utf-8")).hexdigest(), 16) % 2 == 1


def split_of(case: dict[str, Any]) -> str:
    return "held-out" if is_held_out(case["id"]) else "dev"


def _accepts(label: dict[str, Any], note: dict[str, Any]) -> bool:
    if note.get("type") not in (label["type"], *label.get("accept_types", ())):
        return False
    seen = " ".join([str(note.get("text", ""))] + [str(e.get("quote", "")) for e in note.get("evidence", [])])
    return label["anchor"].lower() in seen.lower()


def match_notes(expected: list[dict[str, Any]], notes: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Maximum matching (Kuhn's augmenting paths) of emitted notes to labelled notes: (note, label) pairs."""
    label_of: dict[int, int] = {}

    def augment(n: int, visited: set[int]) -> bool:
        for lab, label in enumerate(expected):
            if lab in visited or not _accepts(label, notes[n]):
                continue
            visited.add(lab)
            if lab not in label_of or augment(label_of[lab], visited):
                label_of[lab] = n
                return True
        return False

    for n in range(len(notes)):
        augment(n, set())
    return sorted((n, lab) for lab, n in label_of.items())


def _verbatim(messages: list[dict[str, Any]], note: dict[str, Any]) -> bool:
    for evidence in note.get("evidence", []):
        index = evidence.get("message_index")
        if not isinstance(index, int) or not 0 <= index < len(messages):
            return False
        if evidence.get("quote", "") not in messages[index]["content"]:
            return False
    return bool(note.get("evidence"))


@dataclass
class CaseResult:
    case: dict[str, Any]
    notes: list[dict[str, Any]]
    matched: int
    keys_agree: int
    secrets: int
    not_verbatim: int


@dataclass
class Tally:
    snippets: int = 0
    expected: int = 0
    emitted: int = 0
    matched: int = 0
    keys_agree: int = 0
    secrets: int = 0
    not_verbatim: int = 0
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.matched / self.emitted if self.emitted else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 1.0

    @property
    def key_match(self) -> float:
        return self.keys_agree / self.matched if self.matched else 1.0

    def add(self, result: CaseResult) -> None:
        self.snippets += 1
        self.expected += len(result.case["expected"])
        self.emitted += len(result.notes)
        self.matched += result.matched
        self.keys_agree += result.keys_agree
        self.secrets += result.secrets
        self.not_verbatim += result.not_verbatim
        self.cases.append(result)


def score_case(case: dict[str, Any], notes: list[dict[str, Any]]) -> CaseResult:
    messages, expected = case["messages"], case["expected"]
    pairs = match_notes(expected, notes)
    keys_agree = sum(1 for n, lab in pairs if notes[n].get("key") == expected[lab]["key"])
    secrets = 0
    for note in notes:
        seen = " ".join([str(note.get("text", ""))] + [str(e.get("quote", "")) for e in note.get("evidence", [])])
        secrets += any(secret in seen for secret in case.get("secrets", ()))
    not_verbatim = sum(1 for note in notes if not _verbatim(messages, note))
    return CaseResult(case, notes, len(pairs), keys_agree, secrets, not_verbatim)


def score(cases: Iterable[dict[str, Any]], extract: Extract) -> dict[str, Tally]:
    """Tallies keyed "dev", "held-out", "all" and "<split>/<kind>" for each kind of snippet."""
    tallies: dict[str, Tally] = {}
    for case in cases:
        result = score_case(case, extract(case["messages"]))
        split = split_of(case)
        for name in (split, "all", f"{split}/{case['kind']}", f"all/{case['kind']}"):
            tallies.setdefault(name, Tally()).add(result)
    return tallies
