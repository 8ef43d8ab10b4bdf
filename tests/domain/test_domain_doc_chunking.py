"""Byte-offset document chunks (Doc Extension v1): target size, overlap, breaks, characters never split."""

from __future__ import annotations

import pytest

from docs_ext.domain.chunking import TooManyChunks, chunk_document

PARAGRAPH = "The harbour office opens at nine. Boats moor on the east quay after six. " * 8


def _chunks(text, target=256, overlap=32, max_chunks=4096):
    return chunk_document(text, target_bytes=target, overlap_bytes=overlap, max_chunks=max_chunks)


def test_chunks_cover_the_document_with_offsets_that_slice_it():
    text = "\n\n".join([PARAGRAPH] * 6)
    data = text.encode()
    chunks = _chunks(text)
    assert chunks[0].start == 0 and chunks[-1].end == len(data)
    for c in chunks:
        assert data[c.start:c.end].decode() == c.text and 0 < c.end - c.start <= 256
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert a.start < b.start < a.end and a.end - b.start <= 32  # overlapping by at most 32, moving forward
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_cuts_prefer_paragraph_then_sentence_breaks():
    text = ("A" * 150) + "\n\n" + ("B" * 150)
    first = _chunks(text)[0]
    assert first.text.endswith("\n\n") and first.end == 152
    sentence = ("Word " * 20) + "End. " + ("tail " * 40)
    assert _chunks(sentence, target=128)[0].text.endswith("End. ")


def test_multibyte_characters_are_never_split():
    text = "é" * 1000  # 2 bytes each, no break anywhere
    for c in _chunks(text, target=255, overlap=33):
        assert c.text == "é" * len(c.text) and (c.end - c.start) % 2 == 0


def test_small_and_empty_documents():
    assert _chunks("") == []
    (only,) = _chunks("One short line.")
    assert (only.start, only.end, only.text) == (0, 15, "One short line.")


def test_too_many_chunks_is_refused():
    with pytest.raises(TooManyChunks):
        _chunks("x " * 2000, target=64, overlap=8, max_chunks=3)


def test_overlap_must_be_well_below_the_target():
    with pytest.raises(ValueError):
        _chunks("text", target=64, overlap=40)
