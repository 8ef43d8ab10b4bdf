"""docs_excerpts_get: a bounded, verified excerpt of a readable document (domain.excerpts does the work)."""

from __future__ import annotations

import uuid

from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from ..domain.excerpts import Excerpt, Position, Quote, excerpt
from ..models import DocDocument
from ..selectors import doc_chunk, readable_docs


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

