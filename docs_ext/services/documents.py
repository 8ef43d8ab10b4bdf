"""docs_put, docs_get and delete (Doc Extension v1), each the one entry point its route calls: the switch, the
English gate, the write rule and the owner, then the document, its byte-offset chunks and the indexing outbox row
in one transaction; the worker embeds and indexes after commit."""

from __future__ import annotations

import uuid
from dataclasses import replace

from django.db import connection, transaction
from django.utils import timezone

from elf_config import ElfConfig
from elf_domain.english_gate import collect_non_english, source_ref_fields
from elf_domain.spaces import home_project, scope_writable
from elf_domain.vocabulary import OutboxOp
from elf_kernel.api.english_fields import NATURAL
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError, NonEnglishInput, NotFound, ScopeDenied

from ..domain.body_gate import check_document_body
from ..domain.chunking import MAX_CHUNKS, OVERLAP_BYTES, TARGET_BYTES, DocChunkSpan, TooManyChunks, chunk_document
from ..domain.excerpts import blake3_hex
from ..indexing.outbox import enqueue
from ..models import DocDocument, DocStatus
from ..selectors import chunk_count, owned_doc, readable_docs
from .docs_enabled import require_enabled

_COPY_CHUNKS = ("COPY doc_chunks (chunk_id, doc_id, chunk_index, start_offset, end_offset, chunk_text, chunk_hash) "
                "FROM STDIN")


class DocTooLarge(ElfError):
    status, error_code = 413, "PAYLOAD_TOO_LARGE"


class TooLongForChunks(ElfError):
    status, error_code = 422, "DOC_TOO_MANY_CHUNKS"


def check_writable(cfg: ElfConfig, scope: str, path: str) -> None:
    """Notes' write rule (``scope_writable``: in scopes.allowed and true in [scopes.write_allowed]), which
    add_note reports as REJECT_SCOPE_DENIED; a document is one object, so it is a 403 SCOPE_DENIED naming
    ``path``."""
    if not scope_writable(scope, cfg.scopes.allowed, cfg.scopes.write_allowed):
        raise ScopeDenied(f"Scope {scope} is not allowed for writes by this service's configuration "
                          "([scopes.write_allowed]; add_note rejects it with REJECT_SCOPE_DENIED).", [path])


def put_doc(*, cfg: ElfConfig, ctx: RequestContext, scope: str, title: str | None, content: str,
            source_ref: dict | None) -> tuple[DocDocument, int]:
    """docs_put: the content (by windows above a size: ``domain.body_gate``), a title and the source_ref's
    strings meet the English gate (422 naming every failing field, in that order), then the document and its
    chunks are stored and its indexing queued; returns the document and its chunk count."""
    require_enabled(cfg)
    failing = [] if check_document_body(content) is None else ["$.content"]
    fields = [("$.title", title, NATURAL)] if title else []
    if source_ref is not None:
        fields += list(source_ref_fields(source_ref, "$.source_ref"))
    failing += collect_non_english(fields)
    if failing:
        raise NonEnglishInput(failing)
    return _store(cfg=cfg, ctx=ctx, scope=scope, title=title, content=content, source_ref=source_ref)


@transaction.atomic
def _store(*, cfg: ElfConfig, ctx: RequestContext, scope: str, title: str | None, content: str,
           source_ref: dict | None) -> tuple[DocDocument, int]:
    check_writable(cfg, scope, "$.scope")
    data = content.encode("utf-8")
    if len(data) > cfg.docs.max_doc_bytes:
        raise DocTooLarge(f"The content is {len(data)} bytes of UTF-8; the limit is {cfg.docs.max_doc_bytes} "
                          "(docs.max_doc_bytes).", ["$.content"])
    try:
        chunks = chunk_document(content, target_bytes=TARGET_BYTES, overlap_bytes=OVERLAP_BYTES,
                                max_chunks=MAX_CHUNKS)
    except TooManyChunks as exc:
        raise TooLongForChunks(str(exc), ["$.content"]) from None
    now = timezone.now()
    home = replace(ctx, project_id=home_project(ctx.project_id, scope))
    doc = DocDocument.objects.create(
        tenant_id=home.tenant_id, project_id=home.project_id, agent_id=ctx.agent_id, scope=scope, title=title,
        source_ref=source_ref, content=content, content_hash=blake3_hex(data), content_bytes=len(data),
        status=DocStatus.ACTIVE, created_at=now, updated_at=now)
    _copy_chunks(doc.doc_id, chunks)
    enqueue(doc_id=doc.doc_id, op=OutboxOp.UPSERT, embedding_version=cfg.embedding_version)
    return doc, len(chunks)


def _copy_chunks(doc_id: uuid.UUID, chunks: list[DocChunkSpan]) -> None:
    """The document's chunks as rows of ``doc_chunks`` in one COPY, in the current transaction."""
    with connection.cursor() as cur, cur.copy(_COPY_CHUNKS) as copy:
        for c in chunks:
            copy.write_row((uuid.uuid4(), doc_id, c.index, c.start, c.end, c.text, blake3_hex(c.text)))


def get_doc(*, cfg: ElfConfig, ctx: RequestContext, doc_id: uuid.UUID) -> tuple[DocDocument, int]:
    """docs_get: a document the caller may read (the notes' read rule) and its chunk count; 404 otherwise."""
    require_enabled(cfg)
    doc = readable_docs(ctx).filter(doc_id=doc_id).first()
    if doc is None:
        raise NotFound("No such document, or not readable for you.", ["$.path.doc_id"])
    return doc, chunk_count(doc.doc_id)


@transaction.atomic
def delete_doc(*, cfg: ElfConfig, ctx: RequestContext, doc_id: uuid.UUID) -> DocDocument:
    """Mark an owned document deleted and queue the removal of its points."""
    require_enabled(cfg)
    doc = owned_doc(ctx, doc_id)
    if doc is None:
        if readable_docs(ctx).filter(doc_id=doc_id).exists():
            raise ScopeDenied("Only the document's owner may delete it.", ["$.path.doc_id"])
        raise NotFound("No such document.", ["$.path.doc_id"])
    DocDocument.objects.filter(doc_id=doc.doc_id).update(status=DocStatus.DELETED, updated_at=timezone.now())
    enqueue(doc_id=doc.doc_id, op=OutboxOp.DELETE, embedding_version=cfg.embedding_version)
    doc.status = DocStatus.DELETED
    return doc
