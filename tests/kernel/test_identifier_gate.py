"""English identifier gate (spec v2 section 3, identifiers): NFKC, invisible/control characters, scripts."""

from __future__ import annotations

import pytest

from elf_domain.english_gate import passes_identifier_gate


@pytest.mark.parametrize("value", ["tenant-1", "proj_A.b", "agent:42", "café", "naïve", "a b", "x@y.z", "ＡＢＣ"])
def test_accepts_latin_common_inherited(value):
    assert passes_identifier_gate(value)


@pytest.mark.parametrize(
    "value",
    ["агент", "項目", "テナント", "프로젝트", "مشروع", "tenant\u200b", "\ufeffid", "a\u00adb", "a\tb", "a\nb", "a\x00b",
     "ab\u202e", "a\u2060b"],
    ids=["cyrillic", "han", "katakana", "hangul", "arabic", "zwsp", "bom", "soft-hyphen", "tab", "newline", "nul",
         "bidi-override", "word-joiner"],
)
def test_rejects_other_scripts_and_invisible(value):
    assert not passes_identifier_gate(value)
