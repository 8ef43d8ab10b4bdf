"""Token estimate for bundle packing (PRD section 14: "exact token counting algorithm").

DOCSTRING_PLACEHOLDER
"""

from __future__ import annotations

import math
import re


def _table(classes: list[tuple[bytes, bytes]], default: bytes | None = None) -> bytes:
    """A 256-byte ``bytes.translate`` table: each listed byte to its class byte, the rest to ``default``
    (or to itself when ``default`` is None)."""
    table = bytearray(range(256)) if default is None else bytearray(default * 256)
    for members, cls in classes:
        for byte in members:
            table[byte] = cls[0]
    return bytes(table)


_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_UPPER = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGIT = b"0123456789"
_SPACE = b" \t\x0b\x0c"
_NEWLINE = b"\r\n"
_HIGH = bytes(range(0x80, 0x100))  # every byte of a non-ASCII character's UTF-8 encoding
_PUNCT = bytes(b for b in range(0x80) if b not in _LOWER + _UPPER + _DIGIT + _SPACE + _NEWLINE)

# The class string: a lower-case letter, A upper-case letter, d digit, s space or tab, n CR/LF, u a byte of a
# non-ASCII character; punctuation and control bytes stay themselves (none of them is a class letter).
_CLASSES = _table([(_LOWER, b"a"), (_UPPER, b"A"), (_DIGIT, b"d"), (_SPACE, b"s"), (_NEWLINE, b"n"), (_HIGH, b"u")])
# Two-class projections of the class string: one class kept, everything else a blank, so that
# ``projection.count(b" x")`` is the number of runs of class x (the class string starts with a blank).
_LETTERS = _table([(b"aA", b"a")], b" ")
_DIGITS_AND_LETTERS = _table([(b"d", b"d"), (b"aA", b"a")], b" ")
_PUNCTS = _table([(_PUNCT, b"p")], b" ")
_NEWLINES = _table([(b"n", b"n")], b" ")
_SPACES = _table([(b"s", b"s")], b" ")
_NON_ASCII = _table([(b"u", b"u")], b" ")

# Runs of one repeated punctuation character are a few BPE tokens however long ("=" * 60 is 2 tokens):
# such a run is shortened before counting. The new length never decreases as the run grows, so the
# estimate of a prefix never exceeds the estimate of the whole text.
_CHEAP_RUN = re.compile(r"([=\-#*._/])\1{3,}")  # 4+ chars -> 3 + n // 8 chars
_DEAR_RUN = re.compile(r"([\^|<>!~+])\1{7,}")  # 8+ chars -> max(7, 3 + n // 2) chars


def _shorten_runs(text: str) -> str:
    if "===" in text or "---" in text or "###" in text or "***" in text or "..." in text or "___" in text \
            or "///" in text:
        text = _CHEAP_RUN.sub(lambda m: m.group(1) * (3 + len(m.group()) // 8), text)
    if "^^^^" in text or "||||" in text or "<<<<" in text or ">>>>" in text or "!!!!" in text or "~~~~" in text \
            or "++++" in text:
        text = _DEAR_RUN.sub(lambda m: m.group(1) * max(7, 3 + len(m.group()) // 2), text)
    return text


FEATURES = (
    "words",  # runs of ASCII letters
    "humps",  # lower-case letter followed by an upper-case one (camelCase)
    "caps",  # upper-case letter followed by a lower-case one
    "long",  # blocks of 6 lower-case letters (long words cost more)
    "digit_runs",  # runs of digits
    "digit_triples",  # blocks of 3 digits (BPE splits digits in groups of up to 3)
    "digit_letter",  # a digit next to a letter (ids, hex, versions)
    "space_digit",  # a space before a digit (its own token)
    "punct",  # ASCII punctuation characters
    "punct_runs",  # runs of punctuation
    "punct_triples",  # blocks of 3 punctuation characters
    "newline_runs",  # runs of CR/LF
    "indents",  # runs of 2+ spaces or tabs
    "non_ascii_bytes",  # UTF-8 bytes of non-ASCII characters
    "non_ascii_runs",  # runs of non-ASCII characters
    "one",  # per text
)


def features(text: str) -> tuple[int, ...]:
    """The counts that ``estimate_tokens`` weighs, in ``FEATURES`` order (all C-level byte operations)."""
    c = b" " + _shorten_runs(text).encode("utf-8").translate(_CLASSES)
    dl = c.translate(_DIGITS_AND_LETTERS)
    pu = c.translate(_PUNCTS)
    digit_after_letter = dl.count(b"ad")
    if c.find(b"u") < 0:
        non_ascii_bytes = non_ascii_runs = 0
    else:
        non_ascii_bytes = c.count(b"u")
        non_ascii_runs = c.translate(_NON_ASCII).count(b" u")
    return (
        c.translate(_LETTERS).count(b" a"),
        c.count(b"aA"),
        c.count(b"Aa"),
        c.count(b"aaaaaa"),
        dl.count(b" d") + digit_after_letter,
        c.count(b"ddd"),
        digit_after_letter + dl.count(b"da"),
        c.count(b"sd"),
        pu.count(b"p"),
        pu.count(b" p"),
        pu.count(b"ppp"),
        c.translate(_NEWLINES).count(b" n"),
        c.translate(_SPACES).count(b" ss"),
        non_ascii_bytes,
        non_ascii_runs,
        1,
    )


WEIGHTS = (1.09, 0.73, 0.59, 0.07, 1.46, 0.72, 0.26, 1.67, 0.49, 0.14, 0.34, 0.53, 0.69, 0.31, 3.0, 2.15)


def estimate_tokens(text: str) -> int:
    """Estimated BPE token count of ``text``: 0 for the empty string, otherwise at least 1."""
    if not text:
        return 0
    return math.ceil(sum(w * n for w, n in zip(WEIGHTS, features(text))))


METHOD = "METHOD_PLACEHOLDER"
