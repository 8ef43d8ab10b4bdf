"""Sentence-aware chunking of note text by tokens (spec v2 section 12).

Pure: the caller tokenizes (``token_byte_spans`` of the embedding model's tokenizer) and passes the spans.
Offsets are UTF-8 byte offsets into the text, as stored in memory_note_chunks and the Qdrant payload.

Rules:
- A text of at most ``max_tokens`` tokens is one chunk covering the whole text (offsets 0 and its byte
  length), so a short note always has exactly one chunk, index 0.
- Otherwise chunks end on sentence boundaries where possible: each chunk takes as many whole sentences as
  fit in ``max_tokens``. A sentence longer than ``max_tokens`` on its own is cut by tokens.
- Consecutive chunks overlap by at most ``overlap_tokens`` tokens. After a cut on a sentence boundary the
  overlap is the longest run of whole trailing sentences that fits (none when the last sentence alone is
  longer); after a cut inside a sentence it is the last ``overlap_tokens`` tokens.
- Every chunk adds text the previous one did not have, so the sequence always ends.
- The first chunk starts at byte 0 and the last ends at the text's end. Otherwise a chunk of tokens
  ``[a, b)`` spans from the start of token ``a`` to the start of token ``b``, trailing whitespace excluded,
  so characters the tokenizer drops (zero-width, unknown) stay inside a chunk.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# A sentence ends after terminal punctuation (optionally followed by closing quotes or brackets) and
# whitespace, or at a line break. The next sentence starts at the next non-whitespace byte. Working on
# bytes is safe: UTF-8 multi-byte sequences never contain ASCII bytes.
_SENTENCE_END = re.compile(rb"[.!?]+[\"')\]]*\s+|\n\s*")
_WHITESPACE = b" \t\n\r\f\v"


@dataclass(frozen=True)
class Chunk:
    """One chunk: its position in the note, its UTF-8 byte range ``[start_offset, end_offset)`` and text."""

    index: int
    start_offset: int
    end_offset: int
    text: str


def sentence_starts(data: bytes) -> list[int]:
    """Byte offsets where a sentence other than the first begins (sorted, strictly inside ``data``)."""
    starts = []
    for match in _SENTENCE_END.finditer(data):
        if 0 < match.end() < len(data):
            starts.append(match.end())
    return starts


def _boundary_tokens(starts: list[int], token_spans: list[tuple[int, int]]) -> list[int]:
    """Token indexes (strictly between 0 and the token count) at which a sentence begins."""
    token_starts = [s for s, _ in token_spans]
    found = {bisect.bisect_left(token_starts, b) for b in starts}
    return sorted(i for i in found if 0 < i < len(token_spans))


def chunk_text(
    text: str, token_spans: list[tuple[int, int]], *, max_tokens: int, overlap_tokens: int
) -> list[Chunk]:
    """Split ``text`` into chunks of at most ``max_tokens`` tokens (see the module docstring for the rules).

    ``token_spans`` are the half-open UTF-8 byte ranges of the tokens of ``text``, in order (special tokens
    excluded). Requires ``max_tokens > 0`` and ``0 <= overlap_tokens < max_tokens``.
    """
    if max_tokens <= 0 or not 0 <= overlap_tokens < max_tokens:
        raise ValueError("chunking needs max_tokens > 0 and 0 <= overlap_tokens < max_tokens")
    data = text.encode("utf-8")
    n = len(token_spans)
    if n <= max_tokens:
        return [Chunk(0, 0, len(data), text)]

    boundaries = _boundary_tokens(sentence_starts(data), token_spans)
    ranges: list[tuple[int, int]] = []  # token ranges [a, b)
    a, prev_end = 0, 0
    while True:
        limit = a + max_tokens
        if limit >= n:
            ranges.append((a, n))
            break
        # The last sentence boundary that fits and still moves past the previous chunk's end.
        i = bisect.bisect_right(boundaries, limit) - 1
        if i >= 0 and boundaries[i] > max(a, prev_end):
            b, on_sentence = boundaries[i], True
        else:
            b, on_sentence = limit, False
        ranges.append((a, b))
        if on_sentence:
            # The earliest sentence start within the overlap window; b itself means no overlap.
            j = bisect.bisect_left(boundaries, max(b - overlap_tokens, a + 1))
            next_a = boundaries[j] if j < len(boundaries) and boundaries[j] < b else b
        else:
            next_a = max(b - overlap_tokens, a + 1)
        a, prev_end = next_a, b

    chunks = []
    for index, (a, b) in enumerate(ranges):
        start = 0 if a == 0 else token_spans[a][0]
        if b == n:
            end = len(data)
        else:
            end = token_spans[b][0]
            while end > start and data[end - 1] in _WHITESPACE:
                end -= 1
        chunks.append(Chunk(index, start, end, data[start:end].decode("utf-8")))
    return chunks
