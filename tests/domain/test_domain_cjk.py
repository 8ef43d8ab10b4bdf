"""elf_domain.cjk: the v1 contract's CJK (elf-memory-service-v1.md section 3), pure."""

from __future__ import annotations

import pytest

from elf_domain.cjk import CJK_BLOCKS, contains_cjk
from elf_domain.english_gate import check_natural_language


@pytest.mark.parametrize(
    "text",
    ["漢字", "ひらがな", "カタカナ", "한국어", "ｶﾀｶﾅ", "\U00020000", "a\u3000b", "Fridays。", "「quoted」", "ー"],
)
def test_every_v1_block_is_cjk(text):
    assert contains_cjk(text)


@pytest.mark.parametrize(
    "text",
    [
        "Fact: the ledger closes on Fridays.",
        "café, naïve, façade",
        "Привет",
        "مرحبا",
        "Ａ fullwidth Latin",
        "— “quotes” …",
        "",
    ],
)
def test_other_scripts_and_punctuation_are_not(text):
    assert not contains_cjk(text)


def test_each_block_counts_from_its_first_to_its_last_code_point():
    for lo, hi, name in CJK_BLOCKS:
        assert contains_cjk(chr(lo)) and contains_cjk(chr(hi)), name
        assert not contains_cjk(chr(lo - 1)) or any(b[0] <= lo - 1 <= b[1] for b in CJK_BLOCKS), name


def test_v1_refuses_cjk_punctuation_that_the_v2_gate_admits():
    text = "Fact: the ledger closes on Fridays。"
    assert check_natural_language(text) is None and contains_cjk(text)
