"""Splitting an item longer than the service's note limit into notes that fit. Pure functions, no I/O.

Lengths are counted the way the WriteGate counts them (characters of the NFKC form), so a part that fits
here is never REJECT_TOO_LONG there. Parts break at sentence ends first, then at spaces, and only a single
word longer than the limit is cut inside. A dialogue turn "<speaker>: <text>" keeps its speaker label on
every part, so each note stays a self-contained statement of who said it.
"""

from __future__ import annotations

import re
import unicodedata

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"')\]])\s+|\s+(?=\[image:)")


def nfkc_len(text: str) -> int:
    return len(unicodedata.normalize("NFKC", text))


def _pack(pieces: list[str], limit: int, sep: str) -> list[str]:
    """Greedily join ``pieces`` with ``sep`` into strings of at most ``limit`` (each piece already fits)."""
    out: list[str] = []
    cur = ""
    for piece in pieces:
        joined = f"{cur}{sep}{piece}" if cur else piece
        if nfkc_len(joined) <= limit:
            cur = joined
        else:
            out.append(cur)
            cur = piece
    if cur:
        out.append(cur)
    return out


def _cut_word(word: str, limit: int) -> list[str]:
    parts, cur = [], ""
    for ch in word:
        if cur and nfkc_len(cur + ch) > limit:
            parts.append(cur)
            cur = ""
        cur += ch
    return parts + ([cur] if cur else [])


def _fit_sentence(sentence: str, limit: int) -> list[str]:
    if nfkc_len(sentence) <= limit:
        return [sentence]
    words = []
    for word in sentence.split():
        words.extend([word] if nfkc_len(word) <= limit else _cut_word(word, limit))
    return _pack(words, limit, " ")


def split_text(text: str, limit: int, *, label: str = "") -> list[str]:
    """``text`` as one or more parts of at most ``limit`` characters (NFKC), joined back in order they hold
    every word of ``text``. ``label`` (e.g. "Caroline: "), when ``text`` starts with it, is repeated at the
    start of every part."""
    if limit <= 0:
        raise ValueError("limit must be positive")
    text = text.strip()
    if nfkc_len(text) <= limit:
        return [text]
    prefix = label if label and text.startswith(label) and nfkc_len(label) < limit // 2 else ""
    body = text[len(prefix):].strip()
    room = limit - nfkc_len(prefix)
    pieces = [p for s in _SENTENCE_END.split(body) if s.strip() for p in _fit_sentence(s.strip(), room)]
    return [prefix + part for part in _pack(pieces, room, " ")]
