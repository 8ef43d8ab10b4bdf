"""Token estimate for bundle packing (PRD section 14: "exact token counting algorithm").

PLACEHOLDER being calibrated: a conservative byte count (one token per three UTF-8 bytes, at least one per word)
that never undercounts English BPE tokenizers much; tests/test_acb_tokens.py measures it against a real BPE
vocabulary."""

from __future__ import annotations

import math
import re

_WORDS = re.compile(r"\S+")


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    return max(math.ceil(len(text.encode("utf-8")) / 3), len(_WORDS.findall(text)), 1)


METHOD = "utf8_bytes/3, at least one per word"
