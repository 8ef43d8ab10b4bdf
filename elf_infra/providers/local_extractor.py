"""The offline extractor: a deterministic, deliberately MINIMAL rule set (no LLM).

Status: minimal on purpose; a later issue completes it. It recognises only a few explicit English memory
statements, one sentence at a time, and never guesses:

- "remember that ...", "please remember that ...", "don't forget that ...", "keep in mind that ..." -> fact
  (note text is the part after "that")
- "my name is ...", "I work as a/an ..." -> profile
- "I prefer ...", "I'd rather ...", "my favorite/preferred X is ..." -> preference
- "we decided / agreed ...", "I decided ...", "the decision is ..." -> decision
- sentences that start with "always ..." / "never ..." -> constraint
- "I/we plan / intend / are planning to ..." -> plan

Every note cites the matched sentence as its single evidence quote, an exact substring of
``messages[message_index]["content"]``. Questions, tool messages, sentences longer than ``max_note_chars``
and sentences that mention credentials are skipped; chit-chat yields ``{"notes": []}``. Output has the
spec section 18 shape, so callers cannot tell it from the HTTP extractor. No key, structured fields,
TTL or scope are inferred (all null).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# A rule-based match is plausible but unverified: middling confidence, neutral importance.
NOTE_IMPORTANCE = 0.5
NOTE_CONFIDENCE = 0.6


@dataclass(frozen=True)
class _Rule:
    name: str
    note_type: str
    pattern: re.Pattern[str]


# Order matters: the first matching rule wins ("Remember that I prefer tabs." is a remember-fact).
_RULES = (
    _Rule(
        "remember_that",
        "fact",
        re.compile(
            r"^(?:please\s+)?(?:remember|don['’]t\s+forget|do\s+not\s+forget|keep\s+in\s+mind)\s+that\s+"
            r"(?P<rest>\S.*)$",
            re.IGNORECASE | re.DOTALL,
        ),
    ),
    _Rule("my_name_is", "profile", re.compile(r"\bmy\s+name\s+is\s+\S", re.IGNORECASE)),
    _Rule("i_work_as", "profile", re.compile(r"\bI\s+work\s+as\s+an?\s+\S", re.IGNORECASE)),
    _Rule(
        "i_prefer",
        "preference",
        re.compile(
            r"\bI\s+(?:really\s+|strongly\s+|usually\s+|generally\s+|always\s+)?prefer\b"
            r"|\bI(?:['’]d|\s+would)\s+rather\b"
            r"|\bmy\s+(?:preferred|favou?rite)\s+\w+(?:\s+\w+)?\s+is\b",
            re.IGNORECASE,
        ),
    ),
    _Rule(
        "decided",
        "decision",
        re.compile(r"\b(?:we|I)(?:\s+have|['’]ve)?\s+(?:decided|agreed)\b|\bthe\s+decision\s+is\b", re.IGNORECASE),
    ),
    _Rule("always_never", "constraint", re.compile(r"^(?:please\s+)?(?:always|never)\s+\w", re.IGNORECASE)),
    _Rule(
        "plan_to",
        "plan",
        re.compile(
            r"\b(?:I|we)(?:\s+am|\s+are|['’]m|['’]re)?\s+(?:plan|planning|intend|intending)\s+to\b", re.IGNORECASE
        ),
    ),
)

_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")
# Used with .match(text, pos): anchored at pos, so no "^" (which would only match at index 0).
_BULLET = re.compile(r"(?:[-*\u2022]\s+)+")
_CREDENTIAL = re.compile(
    r"password|passphrase|passcode|api[\s_-]?key|secret|token|private\s+key|seed\s+phrase|credit\s+card", re.IGNORECASE
)


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each sentence or line of ``text``, trimmed of whitespace and list bullets."""
    start = 0
    for boundary in _SENTENCE_BOUNDARY.finditer(text):
        yield from _trimmed(text, start, boundary.start())
        start = boundary.end()
    yield from _trimmed(text, start, len(text))


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    bullet = _BULLET.match(text, start, end)
    if bullet:
        start = bullet.end()
    if start < end:
        yield start, end


class LocalExtractorProvider:
    """``ExtractorProvider`` (``provider_id = "local"``) over the minimal rule set above."""

    provider_id = "local"

    def __init__(self, model: str, *, max_notes: int, max_note_chars: int):
        self.model = model
        self.max_notes = max_notes
        self.max_note_chars = max_note_chars

    def extract(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """At most ``max_notes`` notes, in message and sentence order (see the module docstring)."""
        notes: list[dict[str, Any]] = []
        seen: set[str] = set()
        for index, message in enumerate(messages):
            content = message.get("content")
            if message.get("role") == "tool" or not isinstance(content, str):
                continue
            for start, end in sentence_spans(content):
                note = self._note_for(content[start:end], index)
                if note is None or note["text"].casefold() in seen:
                    continue
                seen.add(note["text"].casefold())
                notes.append(note)
                if len(notes) == self.max_notes:
                    return {"notes": notes}
        return {"notes": notes}

    def _note_for(self, sentence: str, message_index: int) -> dict[str, Any] | None:
        if sentence.endswith("?") or len(sentence) > self.max_note_chars or _CREDENTIAL.search(sentence):
            return None
        for rule in _RULES:
            match = rule.pattern.search(sentence)
            if match is None:
                continue
            text = match.group("rest") if "rest" in rule.pattern.groupindex else sentence
            text = text[0].upper() + text[1:]
            if text[-1] not in ".!":
                text += "."
            if len(text) > self.max_note_chars:
                return None
            return {
                "type": rule.note_type,
                "key": None,
                "text": text,
                "importance": NOTE_IMPORTANCE,
                "confidence": NOTE_CONFIDENCE,
                "ttl_days": None,
                "structured": None,
                "scope_suggestion": None,
                "evidence": [{"message_index": message_index, "quote": sentence}],
                "reason": f"local rule {rule.name}: explicit memory statement",
            }
        return None
