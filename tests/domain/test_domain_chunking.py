"""Sentence-aware token chunking (elf_domain.chunking): pure, with a tiny word tokenizer."""

from __future__ import annotations

import random
import re

import pytest

from elf_domain.chunking import Chunk, chunk_text, sentence_starts

_TOKEN = re.compile(r"\w+|[^\w\s]")


def spans(text: str) -> list[tuple[int, int]]:
    """Word and punctuation tokens as UTF-8 byte ranges (what MiniLMTokenizer.token_byte_spans returns)."""
    byte_at = [0]
    for ch in text:
        byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
    return [(byte_at[m.start()], byte_at[m.end()]) for m in _TOKEN.finditer(text)]


def tokens_in(chunk: Chunk, token_spans: list[tuple[int, int]]) -> list[int]:
    return [i for i, (s, e) in enumerate(token_spans) if chunk.start_offset <= s and e <= chunk.end_offset]


def sentence(n_words: int, word: str = "word") -> str:
    return " ".join([word] * n_words) + "."  # n_words + 1 tokens


def check_invariants(text: str, chunks: list[Chunk], max_tokens: int, overlap: int) -> None:
    data = text.encode("utf-8")
    toks = spans(text)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert chunks[0].start_offset == 0 and chunks[-1].end_offset == len(data)
    covered: set[int] = set()
    prev: list[int] = []
    for c in chunks:
        assert data[c.start_offset:c.end_offset].decode("utf-8") == c.text
        mine = tokens_in(c, toks)
        assert 0 < len(mine) <= max_tokens
        if prev:
            assert len(set(prev) & set(mine)) <= overlap
            assert max(mine) > max(prev), "every chunk adds new text"
        covered |= set(mine)
        prev = mine
    assert covered == set(range(len(toks)))


def test_short_note_is_one_chunk_covering_the_whole_text() -> None:
    text = "  I prefer green tea in the morning.  "
    assert chunk_text(text, spans(text), max_tokens=256, overlap_tokens=64) == [Chunk(0, 0, len(text), text)]
    assert chunk_text("", [], max_tokens=8, overlap_tokens=2) == [Chunk(0, 0, 0, "")]


def test_text_of_exactly_max_tokens_is_one_chunk() -> None:
    text = sentence(7)  # 8 tokens
    assert len(chunk_text(text, spans(text), max_tokens=8, overlap_tokens=2)) == 1


def test_chunks_end_on_sentence_boundaries_and_overlap_by_whole_sentences() -> None:
    sentences = [sentence(4, f"w{i}") for i in range(10)]  # 5 tokens each
    text = " ".join(sentences)
    chunks = chunk_text(text, spans(text), max_tokens=12, overlap_tokens=5)
    check_invariants(text, chunks, 12, 5)
    runs = {" ".join(sentences[i:j]) for i in range(len(sentences)) for j in range(i + 1, len(sentences) + 1)}
    assert all(c.text in runs for c in chunks), "every chunk is a run of whole sentences"
    # 2 sentences per chunk; the next chunk repeats the last sentence (5 tokens <= overlap 5).
    assert chunks[0].text == f"{sentences[0]} {sentences[1]}"
    assert chunks[1].text == f"{sentences[1]} {sentences[2]}"
    assert len(chunks) == 9


def test_no_overlap_when_the_last_sentence_is_longer_than_the_overlap() -> None:
    sentences = [sentence(5, f"s{i}") for i in range(6)]  # 6 tokens each
    text = " ".join(sentences)
    chunks = chunk_text(text, spans(text), max_tokens=12, overlap_tokens=4)
    check_invariants(text, chunks, 12, 4)
    assert [c.text for c in chunks] == [" ".join(sentences[i:i + 2]) for i in (0, 2, 4)]


def test_an_over_long_sentence_is_split_by_tokens_with_token_overlap() -> None:
    text = " ".join(f"t{i}" for i in range(30)) + "."  # one sentence, 31 tokens
    toks = spans(text)
    chunks = chunk_text(text, toks, max_tokens=10, overlap_tokens=3)
    check_invariants(text, chunks, 10, 3)
    ranges = [tokens_in(c, toks) for c in chunks]
    assert ranges[0] == list(range(0, 10)) and ranges[1] == list(range(7, 17))
    assert ranges[-1][-1] == 30


def test_long_sentence_after_short_ones_never_yields_a_chunk_inside_the_previous_one() -> None:
    text = f"{sentence(2, 'a')} {sentence(2, 'b')} " + " ".join(f"x{i}" for i in range(25)) + ". " + sentence(3, "z")
    chunks = chunk_text(text, spans(text), max_tokens=8, overlap_tokens=3)
    check_invariants(text, chunks, 8, 3)
    assert chunks[0].text == "a a. b b."


def test_offsets_are_utf8_byte_offsets() -> None:
    sentences = ["Crème brûlée is my favourite dessert.", "Über cool café near the gare.", "Naïve façade, 東京 trip?",
                 "Zoë likes the piñata!"]
    text = "\n".join(sentences)
    chunks = chunk_text(text, spans(text), max_tokens=9, overlap_tokens=2)
    check_invariants(text, chunks, 9, 2)
    data = text.encode("utf-8")
    assert len(data) > len(text)
    assert [c.text for c in chunks] == sentences
    assert [data[c.start_offset:c.end_offset].decode() for c in chunks] == sentences


def test_characters_the_tokenizer_drops_stay_inside_a_chunk() -> None:
    text = "One two three.\u200b Four five six.\u200b Seven eight nine."
    chunks = chunk_text(text, spans(text), max_tokens=5, overlap_tokens=0)
    assert [c.text for c in chunks] == ["One two three.\u200b", "Four five six.\u200b", "Seven eight nine."]


def test_sentence_starts_follow_terminators_closers_and_line_breaks() -> None:
    data = b'He said "stop!" Then left. Pi is 3.14 exactly\nNew line (really.) Next'
    starts = [data[s:s + 4] for s in sentence_starts(data)]
    assert starts == [b"Then", b"Pi i", b"New ", b"Next"]


@pytest.mark.parametrize("seed", range(20))
def test_random_texts_keep_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "délta", "x", "tea", "coffee", "naïve"]
    parts = []
    for _ in range(rng.randint(1, 25)):
        parts.append(" ".join(rng.choice(words) for _ in range(rng.randint(1, 20))) + rng.choice([".", "!", "?", ""]))
    text = rng.choice([" ", "\n", "  "]).join(parts)
    max_tokens = rng.randint(3, 30)
    overlap = rng.randint(0, max_tokens - 1)
    check_invariants(text, chunk_text(text, spans(text), max_tokens=max_tokens, overlap_tokens=overlap),
                     max_tokens, overlap)


@pytest.mark.parametrize("max_tokens,overlap", [(0, 0), (4, 4), (4, -1)])
def test_invalid_limits_are_rejected(max_tokens: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_text("text", [(0, 4)], max_tokens=max_tokens, overlap_tokens=overlap)
