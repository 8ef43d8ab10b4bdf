"""docs_excerpts_get: a bounded, verified excerpt of a readable document (domain.excerpts does the work), for the
route (``read_excerpt``) and for a note's pointer at search time (``hydrate_pointer``)."""

from __future__ import annotations

import uuid

from elf_config import ElfConfig
from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from ..domain.excerpts import Excerpt, Position, Quote, excerpt
from ..models import DocDocument
from ..selectors import doc_chunk, readable_docs
from .docs_enabled import require_enabled

RESOLVER = "elf_doc_ext/v1"  # source_ref/v1 pointers this extension resolves (supplement section 3)


def read_excerpt(*, cfg: ElfConfig, ctx: RequestContext, doc_id: uuid.UUID, level: str, quote: Quote | None,
                 position: Position | None, chunk_id: uuid.UUID | None, state: dict | None) -> dict:
    """docs_excerpts_get, the entry point its route calls: the quote's strings meet the English gate, then the
    excerpt of a readable document (404 otherwise), as the response body."""
    require_enabled(cfg)
    if quote is not None:
        require_english([(f"$.quote.{name}", text, NATURAL) for name, text in
                         (("exact", quote.exact), ("prefix", quote.prefix), ("suffix", quote.suffix)) if text])
    doc, got, chunk_hash = get_excerpt(ctx=ctx, doc_id=doc_id, level=level, quote=quote, position=position,
                                       chunk_id=chunk_id, state=state)
    return excerpt_view(doc, got, level=level, quote=quote, chunk_hash=chunk_hash)


def get_excerpt(*, ctx: RequestContext, doc_id: uuid.UUID, level: str, quote: Quote | None,
                position: Position | None, chunk_id: uuid.UUID | None, state: dict | None
                ) -> tuple[DocDocument, Excerpt, str | None]:
    """The document, the excerpt its locator names, and the current hash of the named chunk (if any)."""
    doc = readable_docs(ctx).filter(doc_id=doc_id).first()
    if doc is None:
        raise NotFound("No such document, or not readable for you.", ["$.doc_id"])
    chunk = None
    if chunk_id is not None:
        row = doc_chunk(doc.doc_id, chunk_id)
        if row is None:
            raise NotFound("No such chunk in this document.", ["$.chunk_id"])
        chunk = (Position(row.start_offset, row.end_offset), row.chunk_hash)
    state = state or {}
    got = excerpt(doc.content, level=level, quote=quote, position=position,
                  expected_content_hash=state.get("content_hash"), chunk=chunk,
                  expected_chunk_hash=state.get("chunk_hash"))
    return doc, got, chunk[1] if chunk else None


def excerpt_view(doc: DocDocument, got: Excerpt, *, level: str, quote: Quote | None, chunk_hash: str | None) -> dict:
    """The docs_excerpts_get response body of one excerpt."""
    return {
        "doc_id": doc.doc_id, "level": level, "excerpt": got.text, "start": got.start, "end": got.end,
        "locator": {
            "quote": {"exact": quote.exact, "prefix": quote.prefix, "suffix": quote.suffix} if quote else None,
            "position": {"start": got.match.start, "end": got.match.end} if got.match else None,
            "level": level, "method": got.method,
        },
        "hashes": {"content_hash": doc.content_hash, "excerpt_hash": got.excerpt_hash, "chunk_hash": chunk_hash},
        "verified": got.verified, "verification_errors": got.verification_errors,
    }


def _quote(raw) -> Quote | None:
    if isinstance(raw, dict) and isinstance(raw.get("exact"), str) and raw["exact"]:
        return Quote(raw["exact"], *(raw.get(k) if isinstance(raw.get(k), str) else None for k in ("prefix", "suffix")))
    return None


def _position(raw) -> Position | None:
    if isinstance(raw, dict) and all(type(raw.get(k)) is int and raw[k] >= 0 for k in ("start", "end")):
        return Position(raw["start"], raw["end"]) if raw["end"] >= raw["start"] else None
    return None


def hydrate_pointer(*, docs_enabled: bool, ctx: RequestContext, pointer, level: str = "L1") -> dict | None:
    """The excerpt a note's ``source_ref/v1`` pointer (resolver elf_doc_ext/v1) names, verified against the
    pointer's state; ``{"error_code": ...}`` when it cannot be read; None when it is not a document pointer."""
    if not isinstance(pointer, dict) or pointer.get("resolver") != RESOLVER or not isinstance(pointer.get("ref"), dict):
        return None
    if not docs_enabled:
        return {"error_code": "DOCS_DISABLED"}
    ref, locator = pointer["ref"], pointer.get("locator") if isinstance(pointer.get("locator"), dict) else {}
    try:
        doc_id = uuid.UUID(str(ref.get("doc_id")))
        chunk_id = uuid.UUID(str(ref["chunk_id"])) if ref.get("chunk_id") else None
    except ValueError:
        return {"error_code": "INVALID_POINTER"}
    state = pointer.get("state") if isinstance(pointer.get("state"), dict) else {}
    quote = _quote(locator.get("quote"))
    try:
        doc, got, chunk_hash = get_excerpt(ctx=ctx, doc_id=doc_id, level=level, quote=quote,
                                           position=_position(locator.get("position")), chunk_id=chunk_id,
                                           state={k: v for k, v in state.items() if isinstance(v, str)})
    except NotFound:
        return {"error_code": "DOC_UNAVAILABLE"}
    return excerpt_view(doc, got, level=level, quote=quote, chunk_hash=chunk_hash)
