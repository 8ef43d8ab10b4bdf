"""Excerpts with verification (Doc Extension v1, supplement section 3): resolve a pointer's locator against
the document's current content (a TextQuoteSelector first, then a TextPositionSelector), cut a bounded window
around it, and say whether the excerpt can be trusted as evidence. Pure: content and hashes in, excerpt out.

``verified`` is true only when the locator resolved as given and every hash the pointer carries matches the
current document; otherwise the excerpt is best effort and ``verification_errors`` says why, with stable codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blake3 import blake3

LEVEL_BYTES = {"L0": 256, "L1": 8192, "L2": 32768}

QUOTE_NOT_FOUND = "QUOTE_NOT_FOUND"
QUOTE_AMBIGUOUS = "QUOTE_AMBIGUOUS"
QUOTE_POSITION_MISMATCH = "QUOTE_POSITION_MISMATCH"
POSITION_OUT_OF_RANGE = "POSITION_OUT_OF_RANGE"
POSITION_NOT_ON_CHARACTER = "POSITION_NOT_ON_CHARACTER"
CONTENT_HASH_MISMATCH = "CONTENT_HASH_MISMATCH"
CHUNK_HASH_MISMATCH = "CHUNK_HASH_MISMATCH"
NO_LOCATOR = "NO_LOCATOR"


def blake3_hex(data: bytes | str) -> str:
    return blake3(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


@dataclass(frozen=True)
class Quote:
    exact: str
    prefix: str | None = None
    suffix: str | None = None


@dataclass(frozen=True)
class Position:
    start: int  # UTF-8 byte offsets
    end: int


@dataclass(frozen=True)
class Excerpt:
    text: str
    start: int
    end: int
    match: Position | None  # the located span inside the window, None when nothing resolved
    method: str | None  # "quote" | "position" | None
    excerpt_hash: str
    verification_errors: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return self.match is not None and not self.verification_errors


def _on_boundary(data: bytes, pos: int) -> bool:
    return pos == len(data) or (0 <= pos < len(data) and (data[pos] & 0xC0) != 0x80)


def _occurrences(data: bytes, quote: Quote) -> list[Position]:
    """Every byte span of ``quote.exact`` whose surroundings match the prefix and suffix given."""
    exact, prefix, suffix = (s.encode("utf-8") if s else b"" for s in (quote.exact, quote.prefix, quote.suffix))
    spans, at = [], data.find(exact)
    while exact and at != -1:
        end = at + len(exact)
        if data[max(0, at - len(prefix)):at] == prefix and data[end:end + len(suffix)] == suffix:
            spans.append(Position(at, end))
        at = data.find(exact, at + 1)
    return spans


def locate(
    data: bytes, quote: Quote | None, position: Position | None
) -> tuple[Position | None, str | None, list[str]]:
    """The span a locator names, how it was found, and what did not check out. The quote is preferred; the
    position breaks a tie between several quote matches and is the fallback when the quote is not found."""
    errors: list[str] = []
    pos_ok = position is not None and 0 <= position.start <= position.end <= len(data)
    if position is not None and not pos_ok:
        errors.append(POSITION_OUT_OF_RANGE)
    elif position is not None and not (_on_boundary(data, position.start) and _on_boundary(data, position.end)):
        errors.append(POSITION_NOT_ON_CHARACTER)
        pos_ok = False
    if quote is not None:
        spans = _occurrences(data, quote)
        if len(spans) == 1 or (spans and pos_ok and position in spans):
            chosen = position if pos_ok and position in spans else spans[0]
            if pos_ok and chosen != position:
                errors.append(QUOTE_POSITION_MISMATCH)
            return chosen, "quote", errors
        if spans:  # several matches and no position to choose: the first, flagged
            return spans[0], "quote", errors + [QUOTE_AMBIGUOUS]
        errors.append(QUOTE_NOT_FOUND)
    if pos_ok:
        return position, "position", errors
    return None, None, errors or [NO_LOCATOR]


def window(data: bytes, span: Position, max_bytes: int) -> tuple[int, int]:
    """At most ``max_bytes`` around ``span``: the span itself clipped when it is longer, else the span with
    context on both sides; both ends on character boundaries."""
    if span.end - span.start >= max_bytes:
        start, end = span.start, span.start + max_bytes
    else:
        extra = max_bytes - (span.end - span.start)
        start = max(0, span.start - extra // 2)
        end = min(len(data), start + max_bytes)
        start = max(0, end - max_bytes)
    while not _on_boundary(data, start):
        start += 1
    while not _on_boundary(data, end):
        end -= 1
    return start, end


def excerpt(
    content: str,
    *,
    level: str,
    quote: Quote | None = None,
    position: Position | None = None,
    expected_content_hash: str | None = None,
    chunk: tuple[Position, str] | None = None,
    expected_chunk_hash: str | None = None,
) -> Excerpt:
    """The excerpt of ``level`` (L0/L1/L2) a locator names in ``content``. ``chunk`` is the (span, current
    chunk_hash) of the chunk the pointer names, when it names one: its span is the locator of last resort and
    its hash is checked against ``expected_chunk_hash``."""
    data = content.encode("utf-8")
    span, method, errors = locate(data, quote, position if position is not None or chunk is None else chunk[0])
    if method == "position" and position is None and chunk is not None:
        method = "chunk"
    if expected_content_hash is not None and expected_content_hash != blake3_hex(data):
        errors.append(CONTENT_HASH_MISMATCH)
    if expected_chunk_hash is not None and (chunk is None or chunk[1] != expected_chunk_hash):
        errors.append(CHUNK_HASH_MISMATCH)
    if span is None:
        return Excerpt("", 0, 0, None, None, blake3_hex(b""), errors)
    start, end = window(data, span, LEVEL_BYTES[level])
    piece = data[start:end]
    return Excerpt(piece.decode("utf-8"), start, end, span, method, blake3_hex(piece), errors)
