"""Who said a note, and whom a query asks about (issue 32), pure.

A note that stores a conversation turn opens with its speaker's label: one to three capitalised words and a
colon ("Caroline: I went to a support group yesterday"); ``speaker_label`` reads it. Such a note is written in the
first person: the speaker's name is in its label, not in what it says.

A question about that speaker names them in the third person ("When did Caroline go to the support group?",
"What is Caroline's job?"). ``query_subjects`` reads the names a query asks about: a capitalised word after an
auxiliary verb ("did Caroline", "has Jon") or before a possessive "'s". ``first_person`` rewrites the query as the
speaker would have said it ("When did I go to the support group?", "What is my job?"), which the embedding of a
first-person turn matches better than the name does: the name appears in every turn's label and in the turns
that address the speaker ("Hey Caroline!"). Recall searches the speaker's own notes with it
(search.services.recall, leg ``dense_speaker``).
"""

from __future__ import annotations

import re

MAX_LABEL_CHARS = 40

# One to three words, each opening with a capital letter, then a colon and the note's words.
_LABEL = re.compile(r"\s*([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s+\S")
_AUXILIARY = r"(?:did|does|do|is|was|has|have|had|would|will|can|could|are|were|might|should|may)"
_AFTER_AUXILIARY = re.compile(rf"\b{_AUXILIARY} ([A-Z][a-z]+)\b")
_POSSESSIVE = re.compile(r"\b([A-Z][a-z]+)['’]s\b")
MAX_SUBJECTS = 4


def speaker_label(text: str) -> str | None:
    """The speaker label that opens ``text`` ("Caroline" of "Caroline: I went..."), or None."""
    m = _LABEL.match(text)
    if m is None or len(m.group(1)) > MAX_LABEL_CHARS:
        return None
    return m.group(1)


def query_subjects(query: str) -> list[str]:
    """The names ``query`` asks about, in order of appearance, at most MAX_SUBJECTS: each capitalised word right
    after a lower-case auxiliary verb ("did Caroline") or before "'s" ("Caroline's"). "I" is never one."""
    found = [m.group(1) for m in _AFTER_AUXILIARY.finditer(query)]
    found += [m.group(1) for m in _POSSESSIVE.finditer(query)]
    return list(dict.fromkeys(n for n in found if n != "I"))[:MAX_SUBJECTS]


def first_person(query: str, subjects: list[str]) -> str:
    """``query`` as the subjects would have said it: each subject's "X's" becomes "my" and "X" becomes "I"."""
    for name in subjects:
        query = re.sub(rf"\b{re.escape(name)}['’]s\b", "my", query)
        query = re.sub(rf"\b{re.escape(name)}\b", "I", query)
    return query
