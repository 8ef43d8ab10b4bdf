"""A stored document's integrity check (the admin's verify action)."""

from __future__ import annotations

from docs_ext.domain.excerpts import blake3_hex
from docs_ext.domain.integrity import integrity_problems

TEXT = "Alpha beta. Gamma delta."


def _chunks(text=TEXT):
    data = text.encode()
    return [(0, 0, 11, data[:11].decode(), blake3_hex(data[:11])), (1, 11, len(data), data[11:].decode(),
                                                                      blake3_hex(data[11:]))]


def test_a_sound_document_has_no_problem():
    assert integrity_problems(TEXT, blake3_hex(TEXT), _chunks()) == []


def test_each_kind_of_drift_is_named():
    changed = TEXT.replace("Gamma", "Omega")
    problems = integrity_problems(changed, blake3_hex(TEXT), _chunks())
    assert problems == ["content_hash does not match the content",
                        "chunk 1: bytes 11-24 of the content differ from its text"]
    bad_hash = [(*_chunks()[0][:4], "0" * 64), _chunks()[1]]
    assert integrity_problems(TEXT, blake3_hex(TEXT), bad_hash) == ["chunk 0: chunk_hash does not match its text"]
