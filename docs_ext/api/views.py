"""The Doc Extension endpoints (doc-extension-v1): docs_put, docs_get, delete and docs_excerpts_get. Thin:
validate, gate, call a service, render with an output serializer. Disabled in config: 403 DOCS_DISABLED."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_domain.english_gate import source_ref_fields
from elf_domain.spaces import AGENT_PRIVATE, scope_of_space
from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.errors import InvalidRequest, NotFound
from elf_kernel.runtime import get_config

from ..domain.excerpts import Position, Quote
from ..selectors import chunk_count, readable_docs
from ..services.documents import delete_doc, move_doc, put_doc, require_enabled
from ..services.excerpts import excerpt_view, get_excerpt
from ..services.search_l0 import search_l0
from . import serializers as s


def _context(request):
    cfg = get_config()
    require_enabled(cfg)
    return cfg, context_from_request(request)


class DocsView(APIView):
    @extend_schema(summary="Store a document (docs_put): chunks and indexing queued in one transaction",
                   operation_id="elf_docs_put", parameters=CONTEXT_HEADERS, request=s.DocPutBody,
                   responses={200: s.DocPutOut, **ERROR_RESPONSES})
    def post(self, request):
        cfg, ctx = _context(request)
        data = validated(s.DocPutBody, request.data)
        fields = [("$.content", data["content"], NATURAL)]
        if data.get("title"):
            fields.append(("$.title", data["title"], NATURAL))
        if data.get("source_ref") is not None:
            fields += list(source_ref_fields(data["source_ref"], "$.source_ref"))
        require_english(fields)
        doc, count = put_doc(cfg=cfg, ctx=ctx, scope=data["scope"], title=data.get("title"), content=data["content"],
                             source_ref=data.get("source_ref"))
        return Response(s.DocPutOut({**doc.__dict__, "chunk_count": count}).data)


class DocDetailView(APIView):
    @extend_schema(summary="A document's metadata (docs_get); the content only with include_content=true",
                   operation_id="elf_docs_get", parameters=CONTEXT_HEADERS + [s.DocGetQuery],
                   responses={200: s.DocOut, **ERROR_RESPONSES})
    def get(self, request, doc_id):
        _, ctx = _context(request)
        q = validated(s.DocGetQuery, request.query_params.dict(), "$.query")
        doc = readable_docs(ctx).filter(doc_id=doc_id).first()
        if doc is None:
            raise NotFound("No such document, or not readable for you.", ["$.path.doc_id"])
        return Response(s.DocOut({**doc.__dict__, "chunk_count": chunk_count(doc.doc_id),
                                  "content": doc.content if q["include_content"] else None}).data)

    @extend_schema(summary="Delete a document you own (its points leave the index)", operation_id="elf_docs_delete",
                   parameters=CONTEXT_HEADERS, responses={200: s.DocDeletedOut, **ERROR_RESPONSES})
    def delete(self, request, doc_id):
        cfg, ctx = _context(request)
        doc = delete_doc(cfg=cfg, ctx=ctx, doc_id=doc_id)
        return Response(s.DocDeletedOut({"doc_id": doc.doc_id, "status": doc.status}).data)


class DocExcerptsView(APIView):
    @extend_schema(summary="A bounded, verified excerpt (docs_excerpts_get): quote first, then position or chunk",
                   operation_id="elf_docs_excerpts_get", parameters=CONTEXT_HEADERS, request=s.ExcerptBody,
                   responses={200: s.ExcerptOut, **ERROR_RESPONSES})
    def post(self, request):
        _, ctx = _context(request)
        data = validated(s.ExcerptBody, request.data)
        quote = Quote(**data["quote"]) if data.get("quote") else None
        require_english([(f"$.quote.{k}", v, NATURAL) for k, v in (data.get("quote") or {}).items() if v])
        position = Position(**data["position"]) if data.get("position") else None
        doc, got, chunk_hash = get_excerpt(ctx=ctx, doc_id=data["doc_id"], level=data["level"], quote=quote,
                                           position=position, chunk_id=data.get("chunk_id"), state=data.get("state"))
        return Response(s.ExcerptOut(excerpt_view(doc, got, level=data["level"], quote=quote,
                                                  chunk_hash=chunk_hash)).data)


class DocSearchL0View(APIView):
    @extend_schema(summary="Find document chunks (docs_search_l0): previews and ready-to-store source_ref pointers",
                   operation_id="elf_docs_search_l0", parameters=CONTEXT_HEADERS, request=s.SearchL0Body,
                   responses={200: s.SearchL0Out, **ERROR_RESPONSES})
    def post(self, request):
        cfg, ctx = _context(request)
        data = validated(s.SearchL0Body, request.data)
        require_english([("$.query", data["query"], NATURAL)])
        if not data["query"].strip():
            raise InvalidRequest("query must not be empty.", ["$.query"])
        hits = search_l0(cfg=cfg, ctx=ctx, query=data["query"].strip(), top_k=data["top_k"],
                         candidate_k=max(data["candidate_k"], data["top_k"]), scope=data.get("scope"))
        return Response(s.SearchL0Out({"items": [{
            "doc_id": h.doc.doc_id, "chunk_id": h.chunk.chunk_id, "chunk_index": h.chunk.chunk_index,
            "title": h.doc.title, "scope": h.doc.scope, "score": h.score, "preview": h.preview,
            "source_ref": h.pointer(),
        } for h in hits]}).data)


def _move(request, doc_id, *, publish: bool):
    cfg, ctx = _context(request)
    space = validated(s.PublishBody, request.data)["space"]
    scope = scope_of_space(space)
    if not publish:
        current = readable_docs(ctx).filter(doc_id=doc_id).values_list("scope", flat=True).first()
        if current is not None and current != scope:
            raise InvalidRequest(f"The document is in {current}, not in {space}.", ["$.space"])
        scope = AGENT_PRIVATE
    doc = move_doc(cfg=cfg, ctx=ctx, doc_id=doc_id, scope=scope)
    return Response(s.MovedOut({"doc_id": doc.doc_id, "scope": doc.scope}).data)


class DocPublishView(APIView):
    @extend_schema(summary="Publish a document you own to team_shared or org_shared (readers need a space grant)",
                   operation_id="elf_docs_publish", parameters=CONTEXT_HEADERS, request=s.PublishBody,
                   responses={200: s.MovedOut, **ERROR_RESPONSES})
    def post(self, request, doc_id):
        return _move(request, doc_id, publish=True)


class DocUnpublishView(APIView):
    @extend_schema(summary="Bring a published document back to agent_private", operation_id="elf_docs_unpublish",
                   parameters=CONTEXT_HEADERS, request=s.PublishBody, responses={200: s.MovedOut, **ERROR_RESPONSES})
    def post(self, request, doc_id):
        return _move(request, doc_id, publish=False)
