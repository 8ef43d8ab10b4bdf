"""The English gate for a document's content (Doc Extension v1, "English-only boundary"), pure.

A body of at most ``SAMPLE_ABOVE_BYTES`` bytes of UTF-8 gets exactly the notes' natural-language check
(``check_natural_language``: NFKC, characters, scripts, then LID over the whole prose). A larger body gets
the same NFKC, character and script checks over every character, and language identification over windows:
``WINDOW_BYTES`` of the NFKC text's UTF-8 starting every ``STRIDE_BYTES`` (0, 4096, 8192, ...; the last window
ends at or before the body's end), each judged alone by the same LID step and thresholds as a note, the body
refused at the first confident non-English window.

The bound: any stretch of ``CAUGHT_STRETCH_BYTES`` (STRIDE + WINDOW - 1) bytes (of the NFKC text's UTF-8, the
form every check judges; for precomposed Latin text the same bytes as sent) holds a whole window. The
first window starting at or after the stretch's start ``a`` starts before ``a + STRIDE`` and so ends by
``a + STRIDE - 1 + WINDOW``. (A window is cut to whole characters, losing at most 3 bytes at each end, which
only shrinks it inside the stretch.) So a body holding a non-English stretch of that length anywhere has a
window of that language alone, and LID refuses a window of prose of another language (tests/domain/
test_domain_doc_body_gate.py places such stretches at every alignment to the windows and at random offsets,
in six languages). Shorter stretches between windows are not read by LID. LID over the whole body did not
catch them either, nor longer ones: 8 KiB of French, Spanish, German, Italian, Portuguese or Dutch in the
middle of 20 KiB of English dialogue left the whole body's verdict English. The character and script checks
read the whole body, so one CJK character or zero-width space anywhere is still refused.
"""

from __future__ import annotations

from collections.abc import Iterator

from elf_domain.english_gate import (
    REFERENCE_LID_THRESHOLDS,
    GateFailure,
    LidThresholds,
    check_characters,
    check_language,
    check_natural_language,
    normalize,
)

SAMPLE_ABOVE_BYTES = 8 * 1024  # bodies up to this size are checked whole, as a note's text is
WINDOW_BYTES = 1024
STRIDE_BYTES = 4096
CAUGHT_STRETCH_BYTES = STRIDE_BYTES + WINDOW_BYTES - 1


def _char_start(data: bytes, pos: int) -> int:
    """``pos`` moved forward to the first byte of a character."""
    while pos < len(data) and (data[pos] & 0xC0) == 0x80:
        pos += 1
    return pos


def _char_end(data: bytes, pos: int) -> int:
    """``pos`` moved back so that the bytes before it end on a whole character."""
    while 0 < pos < len(data) and (data[pos] & 0xC0) == 0x80:
        pos -= 1
    return pos


def window_spans(size: int, *, window: int = WINDOW_BYTES, stride: int = STRIDE_BYTES) -> list[tuple[int, int]]:
    """The byte spans [start, end) LID reads in a body of ``size`` bytes: one at every multiple of ``stride``
    whose window fits."""
    return [(start, start + window) for start in range(0, size - window + 1, stride)]


def _windows(data: bytes) -> Iterator[str]:
    for start, end in window_spans(len(data)):
        yield data[_char_start(data, start) : _char_end(data, end)].decode("utf-8")


def check_document_body(text: str, *, thresholds: LidThresholds = REFERENCE_LID_THRESHOLDS) -> GateFailure | None:
    """None when a document's content passes the English gate; the failure otherwise (see the module)."""
    if len(text.encode("utf-8")) <= SAMPLE_ABOVE_BYTES:
        return check_natural_language(text, thresholds=thresholds)
    normalized = normalize(text)
    failure = check_characters(normalized, allow_newlines=True)
    if failure is not None:
        return failure
    for window in _windows(normalized.encode("utf-8")):
        failure = check_language(window, thresholds)
        if failure is not None:
            return failure
    return None
