"""Search snippets: a chunk stitched with its immediate neighbours (spec v2 section 13, steps 12-13), pure.

Chunk offsets are half-open UTF-8 byte ranges into the note text (memory_note_chunks). Consecutive chunks
overlap (chunking overlap) or, when a chunk ends before the whitespace that separates it from the next,
leave a gap. Stitching places the chunks by their offsets, so overlapping bytes appear once; a gap, whose
bytes no chunk holds, becomes a single space.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ChunkText:
    """A chunk's UTF-8 byte range ``[start_offset, end_offset)`` in the note text and its text."""

    start_offset: int
    end_offset: int
    text: str


def _merge(chunks: list[ChunkText]) -> tuple[bytes, list[int]]:
    """Merged bytes of ``chunks`` (sorted by start offset) and where each chunk's bytes begin in them."""
    merged = bytearray()
    positions = []
    end = 0  # note offset of the end of ``merged``
    for i, chunk in enumerate(chunks):
        data = chunk.text.encode("utf-8")
        if len(data) != chunk.end_offset - chunk.start_offset:
            raise ValueError("chunk text length does not match its offsets")
        if i == 0:
            positions.append(0)
            merged += data
        elif chunk.start_offset > end:
            merged += b" "
            positions.append(len(merged))
            merged += data
        else:
            positions.append(len(merged) - (end - chunk.start_offset))
            # Offsets are character boundaries in the note text, so this cut is one in the chunk too.
            merged += data[max(0, end - chunk.start_offset) :]
        end = max(end, chunk.end_offset)
    return bytes(merged), positions


def _window(merged: bytes, hit_start: int, hit_end: int, max_bytes: int) -> bytes:
    """At most ``max_bytes`` of ``merged`` around ``[hit_start, hit_end)``: the hit centred with equal context
    either side (more on one side when the other runs out), or the hit's head when the hit alone is longer;
    ends moved inward to UTF-8 character boundaries."""
    if len(merged) <= max_bytes:
        return merged
    hit_len = hit_end - hit_start
    if hit_len >= max_bytes:
        start = hit_start
    else:
        start = hit_start - (max_bytes - hit_len) // 2
        start = max(0, min(start, len(merged) - max_bytes))
    end = start + max_bytes
    while start < end and (merged[start] & 0xC0) == 0x80:  # continuation byte: not a character start
        start += 1
    while end < len(merged) and end > start and (merged[end] & 0xC0) == 0x80:
        end -= 1
    return merged[start:end]


def stitch_snippet(chunk_index: int, chunks_by_index: Mapping[int, ChunkText], *, max_bytes: int | None = None) -> str:
    """The text of chunk ``chunk_index`` joined with chunks ``chunk_index - 1`` and ``chunk_index + 1`` where
    present (a first or last chunk, or neighbour metadata that is missing, just has less context).

    With ``max_bytes`` the snippet is cut to at most that many UTF-8 bytes, keeping the chunk itself in the
    middle of the context kept (or its beginning, when the chunk alone is longer than ``max_bytes``).

    Raises KeyError when ``chunk_index`` itself is missing and ValueError when a chunk's text does not have
    the byte length its offsets say, or ``max_bytes`` is not positive.
    """
    if max_bytes is not None and max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    hit = chunks_by_index[chunk_index]
    present = [i for i in (chunk_index - 1, chunk_index, chunk_index + 1) if i in chunks_by_index]
    present.sort(key=lambda i: (chunks_by_index[i].start_offset, chunks_by_index[i].end_offset))
    merged, positions = _merge([chunks_by_index[i] for i in present])
    if max_bytes is None:
        return merged.decode("utf-8")
    hit_start = positions[present.index(chunk_index)]
    return _window(merged, hit_start, hit_start + hit.end_offset - hit.start_offset, max_bytes).decode("utf-8")
