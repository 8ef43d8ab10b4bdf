"""Excerpt resolution and verification (Doc Extension v1, supplement section 3): quote first, position as the
tie-break and fallback, bounded windows per level, hashes checked, stable error codes."""

from __future__ import annotations

from docs_ext.domain import excerpts as ex
from docs_ext.domain.excerpts import Position, Quote, blake3_hex, excerpt

DOC = ("Intro line.\n" + "filler text " * 50 + "\nThe backup runs nightly at two. " + "more filler " * 50
       + "\nThe backup runs nightly at two. Restores are tested monthly.\n")
DATA = DOC.encode()
FIRST = DATA.find(b"The backup")
SECOND = DATA.rfind(b"The backup")


def test_a_quote_with_context_resolves_and_verifies():
    got = excerpt(DOC, level="L1", quote=Quote("The backup runs nightly at two.", suffix=" Restores"),
                  expected_content_hash=blake3_hex(DOC))
    assert got.verified and got.method == "quote" and got.match == Position(SECOND, SECOND + 31)
    assert DATA[got.start:got.end].decode() == got.text and got.excerpt_hash == blake3_hex(got.text)
    assert got.start <= got.match.start and got.match.end <= got.end and len(got.text.encode()) <= 8192


def test_a_quote_found_twice_is_settled_by_the_position_or_flagged():
    quote = Quote("The backup runs nightly at two.")
    by_position = excerpt(DOC, level="L0", quote=quote, position=Position(FIRST, FIRST + 31))
    assert by_position.verified and by_position.match.start == FIRST
    ambiguous = excerpt(DOC, level="L0", quote=quote)
    assert not ambiguous.verified and ambiguous.verification_errors == [ex.QUOTE_AMBIGUOUS]


def test_a_quote_not_found_falls_back_to_the_position_unverified():
    got = excerpt(DOC, level="L1", quote=Quote("The backup runs weekly."), position=Position(0, 11))
    assert got.text.startswith("Intro line.") and got.method == "position"
    assert not got.verified and got.verification_errors == [ex.QUOTE_NOT_FOUND]
    lost = excerpt(DOC, level="L1", quote=Quote("nowhere to be found"))
    assert lost.match is None and lost.text == "" and lost.verification_errors == [ex.QUOTE_NOT_FOUND]


def test_a_replaced_document_is_never_a_silent_wrong_excerpt():
    old_hash = blake3_hex(DOC)
    replaced = DOC.replace("nightly", "weekly")
    got = excerpt(replaced, level="L1", position=Position(FIRST, FIRST + 31), expected_content_hash=old_hash)
    assert not got.verified and ex.CONTENT_HASH_MISMATCH in got.verification_errors


def test_positions_are_checked():
    assert excerpt(DOC, level="L1", position=Position(5, len(DATA) + 1)).verification_errors == [
        ex.POSITION_OUT_OF_RANGE]
    assert excerpt("é" * 10, level="L1", position=Position(1, 4)).verification_errors == [
        ex.POSITION_NOT_ON_CHARACTER]
    assert excerpt(DOC, level="L1").verification_errors == [ex.NO_LOCATOR]


def test_a_chunk_pointer_is_the_last_resort_and_its_hash_is_checked():
    span = Position(12, 40)
    got = excerpt(DOC, level="L0", chunk=(span, "h-now"), expected_chunk_hash="h-now")
    assert got.verified and got.method == "chunk" and got.match == span
    stale = excerpt(DOC, level="L0", chunk=(span, "h-now"), expected_chunk_hash="h-then")
    assert stale.verification_errors == [ex.CHUNK_HASH_MISMATCH]


def test_windows_respect_each_level_and_characters():
    long_doc = "ü" * 40000  # 80,000 bytes
    for level, limit in ex.LEVEL_BYTES.items():
        got = excerpt(long_doc, level=level, position=Position(40000, 40002))
        size = len(got.text.encode())
        # each end may give up one byte to land on a character boundary
        assert limit - 2 <= size <= limit and got.start <= 40000 and got.end >= 40002
    clipped = excerpt(DOC, level="L0", position=Position(0, len(DATA)))
    assert clipped.start == 0 and len(clipped.text.encode()) <= 256
