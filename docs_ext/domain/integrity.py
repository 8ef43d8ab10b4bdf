"""Does a stored document still hold together? Its content hash, and every chunk's offsets, text and hash."""

from __future__ import annotations

from collections.abc import Iterable

from .excerpts import blake3_hex


def integrity_problems(content: str, content_hash: str, chunks: Iterable[tuple[int, int, int, str, str]]) -> list[str]:
    """Problems of a document whose ``chunks`` are (index, start, end, text, chunk_hash); empty when sound."""
    data = content.encode("utf-8")
    problems = [] if blake3_hex(data) == content_hash else ["content_hash does not match the content"]
    for index, start, end, text, chunk_hash in chunks:
        if data[start:end] != text.encode("utf-8"):
            problems.append(f"chunk {index}: bytes {start}-{end} of the content differ from its text")
        if blake3_hex(text) != chunk_hash:
            problems.append(f"chunk {index}: chunk_hash does not match its text")
    return problems
