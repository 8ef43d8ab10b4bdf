"""Byte-offset chunks of a document (Doc Extension v1): about ``target_bytes`` of UTF-8 each, overlapping by
``overlap_bytes``, cut at a paragraph, line, sentence or word break near the target when there is one, and
never inside a character. Offsets are UTF-8 byte offsets into the document's content. Pure."""

from __future__ import annotations

from dataclasses import dataclass

TARGET_BYTES, OVERLAP_BYTES, MAX_CHUNKS = 2048, 256, 4096  # doc-extension-v1 "Limits"

# Breaks preferred for a cut, best first; a cut falls just after the break.
_BREAKS = (b"\n\n", b"\n", b". ", b"? ", b"! ", b" ")


class TooManyChunks(ValueError):
    """The document would need more chunks than the configured maximum."""


@dataclass(frozen=True)
class DocChunkSpan:
    index: int
    start: int  # UTF-8 byte offsets into the content
    end: int
    text: str


def _char_start(data: bytes, pos: int) -> int:
    """``pos`` moved back to the first byte of the character it falls in."""
    while 0 < pos < len(data) and (data[pos] & 0xC0) == 0x80:
        pos -= 1
    return pos


def _cut(data: bytes, start: int, target: int) -> int:
    """Where the chunk starting at ``start`` ends: the last preferred break in its second half, else the
    target itself (on a character boundary)."""
    limit = start + target
    if limit >= len(data):
        return len(data)
    floor = start + target // 2
    for brk in _BREAKS:
        at = data.rfind(brk, floor, limit)
        if at != -1:
            return at + len(brk)
    return _char_start(data, limit)


def chunk_document(content: str, *, target_bytes: int, overlap_bytes: int, max_chunks: int) -> list[DocChunkSpan]:
    """The chunks of ``content``; an empty document has none."""
    if not 0 <= overlap_bytes < target_bytes // 2:
        raise ValueError("overlap_bytes must be below half of target_bytes")
    data = content.encode("utf-8")
    chunks: list[DocChunkSpan] = []
    start = 0
    while start < len(data):
        end = _cut(data, start, target_bytes)
        if len(chunks) == max_chunks:
            raise TooManyChunks(f"more than {max_chunks} chunks of {target_bytes} bytes")
        chunks.append(DocChunkSpan(len(chunks), start, end, data[start:end].decode("utf-8")))
        if end == len(data):
            break
        start = _char_start(data, max(end - overlap_bytes, start + 1))
    return chunks
