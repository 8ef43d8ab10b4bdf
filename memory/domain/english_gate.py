"""English gate (spec v2 section 3), pure: NFKC, control and invisible characters, script allowlist.

This module holds the identifier gate used for headers and keys. Natural-language fields add language
identification on top of it (see the write-path issue).
"""

from __future__ import annotations

import unicodedata

import regex

# Zero-width and invisible characters rejected anywhere (supplement section 4), plus bidi controls.
INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u180e\u200b\u200c\u200d\u2060\ufeff"
    "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
ALLOWED_CONTROLS = frozenset("\n\r\t")
_DISALLOWED_SCRIPT = regex.compile(r"[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]")


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def has_forbidden_chars(text: str, *, allow_newlines: bool) -> bool:
    """Control characters (Unicode category Cc/Cf) and the invisible set; tabs/newlines only where allowed."""
    for ch in text:
        if ch in INVISIBLE:
            return True
        if ch in ALLOWED_CONTROLS:
            if not allow_newlines:
                return True
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Cn"):
            return True
    return False


def has_disallowed_script(text: str) -> bool:
    return _DISALLOWED_SCRIPT.search(text) is not None


def passes_identifier_gate(value: str) -> bool:
    """Identifiers (ids, keys, headers): NFKC, no control/invisible characters, Latin/Common/Inherited only."""
    text = normalize(value)
    return not has_forbidden_chars(text, allow_newlines=False) and not has_disallowed_script(text)
