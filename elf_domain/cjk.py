"""CJK detection as the v1 contract defines it (elf-memory-service-v1.md section 3): the presence of any code
point of the CJK Unified Ideographs, CJK Symbols and Punctuation, Hiragana, Katakana or Hangul blocks.

The v2 English gate (english_gate) already refuses every script but Latin, Common and Inherited, so Han, kana and
Hangul never pass it; what v1 adds is the name of the failure (v1's REJECT_CJK and its "CJK detected" message,
where v2 says REJECT_NON_ENGLISH and "Non-English input") and the code points of those blocks that belong to the
Common script, which v2 admits: the ideographic space, full stop and comma, the corner brackets, the prolonged
sound mark, and the like. The blocks' own extensions (the ideograph extensions, the kana and Hangul jamo
extensions, the halfwidth kana and Hangul) are CJK by the same name, so they count too.
"""

from __future__ import annotations

import re

# Code point ranges, inclusive, by Unicode block.
CJK_BLOCKS: tuple[tuple[int, int, str], ...] = (
    (0x1100, 0x11FF, "Hangul Jamo"),
    (0x2E80, 0x2FDF, "CJK Radicals Supplement, Kangxi Radicals"),
    (0x3000, 0x303F, "CJK Symbols and Punctuation"),
    (0x3040, 0x309F, "Hiragana"),
    (0x30A0, 0x30FF, "Katakana"),
    (0x3130, 0x318F, "Hangul Compatibility Jamo"),
    (0x31F0, 0x31FF, "Katakana Phonetic Extensions"),
    (0x3400, 0x4DBF, "CJK Unified Ideographs Extension A"),
    (0x4E00, 0x9FFF, "CJK Unified Ideographs"),
    (0xA960, 0xA97F, "Hangul Jamo Extended-A"),
    (0xAC00, 0xD7AF, "Hangul Syllables"),
    (0xD7B0, 0xD7FF, "Hangul Jamo Extended-B"),
    (0xF900, 0xFAFF, "CJK Compatibility Ideographs"),
    (0xFF61, 0xFFDC, "Halfwidth CJK punctuation, Katakana and Hangul"),
    (0x1B000, 0x1B16F, "Kana Supplement, Kana Extended-A, Small Kana Extension"),
    (0x20000, 0x323AF, "CJK Unified Ideographs Extensions B-H, CJK Compatibility Ideographs Supplement"),
)
_CJK = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi, _ in CJK_BLOCKS) + "]")


def contains_cjk(text: str) -> bool:
    """Whether ``text`` holds a code point of a CJK block (as received: no normalisation first, so the ideographic
    space counts although NFKC would make it a plain space)."""
    return _CJK.search(text) is not None
