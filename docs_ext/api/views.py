"""The Doc Extension endpoints (doc-extension-v1): docs_put, docs_get, delete, docs_excerpts_get, docs_search_l0,
publish and unpublish. Thin: validate the shape, call the route's use case (docs_ext.services: the switch, the
English gate, the write rule, the read rule and the owner), render with an output serializer. Disabled in config:
403 DOCS_DISABLED."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.runtime import get_config

from ..domain.excerpts import Position, Quote
from ..services.docs_enabled import require_enabled
from ..services.documents import delete_doc, get_doc, put_doc
from ..services.excerpts import read_excerpt
from ..services.publishing import publish_doc, unpublish_doc
from ..services.search_l0 import search_l0
from . import serializers as s


class DocsAPIView(APIView):
    # Every use case refuses when the extension is off; asking first as well keeps the documented answer (403
    # DOCS_DISABLED from every docs endpoint) ahead of the request's context headers and shape. (A comment, not a
    # docstring: drf-spectacular would publish a docstring as every operation's description.)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        require_enabled(get_config())


class DocsView(DocsAPIView):
    @extend_schema(summary="Store a document (docs_put): chunks and indexing queued in one transaction",
                   operation_id="elf_docs_put", parameters=CONTEXT_HEADERS, request=s.DocPutBody,
                   responses={200: s.DocPutOut, **ERROR_RESPONSES})
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.DocPutBody, request.data)
        doc, count = put_doc(cfg=get_config(), ctx=ctx, scope=data["scope"], title=data.get("title"),
                             content=data["content"], source_ref=data.get("source_ref"))
        return Response(s.DocPutOut({**doc.__dict__, "chunk_count": count}).data)


class DocDetailView(DocsAPIView):
    @extend_schema(summary="A document's metadata (docs_get); the content only with include_content=true",
                   operation_id="elf_docs_get", parameters=CONTEXT_HEADERS + [s.DocGetQuery],
                   responses={200: s.DocOut, **ERROR_RESPONSES})
    def get(self, request, doc_id):
        ctx = context_from_request(request)
        q = validated(s.DocGetQuery, request.query_params.dict(), "$.query")
        doc, count = get_doc(cfg=get_config(), ctx=ctx, doc_id=doc_id)
        return Response(s.DocOut({**doc.__dict__, "chunk_count": count,
                                  "content": doc.content if q["include_content"] else None}).data)

    @extend_schema(summary="Delete a document you own (its points leave the index)", operation_id="elf_docs_delete",
                   parameters=CONTEXT_HEADERS, responses={200: s.DocDeletedOut, **ERROR_RESPONSES})
    def delete(self, request, doc_id):
        ctx = context_from_request(request)
        doc = delete_doc(cfg=get_config(), ctx=ctx, doc_id=doc_id)
        return Response(s.DocDeletedOut({"doc_id": doc.doc_id, "status": doc.status}).data)


class DocExcerptsView(DocsAPIView):
    @extend_schema(summary="A bounded, verified excerpt (docs_excerpts_get): quote first, then position or chunk",
                   operation_id="elf_docs_excerpts_get", parameters=CONTEXT_HEADERS, request=s.ExcerptBody,
                   responses={200: s.ExcerptOut, **ERROR_RESPONSES})
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.ExcerptBody, request.data)
        quote = Quote(**data["quote"]) if data.get("quote") else None
        position = Position(**data["position"]) if data.get("position") else None
        return Response(s.ExcerptOut(read_excerpt(
            cfg=get_config(), ctx=ctx, doc_id=data["doc_id"], level=data["level"], quote=quote, position=position,
            chunk_id=data.get("chunk_id"), state=data.get("state"))).data)


class DocSearchL0View(DocsAPIView):
    @extend_schema(summary="Find document chunks (docs_search_l0): previews and ready-to-store source_ref pointers",
                   operation_id="elf_docs_search_l0", parameters=CONTEXT_HEADERS, request=s.SearchL0Body,
                   responses={200: s.SearchL0Out, **ERROR_RESPONSES})
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.SearchL0Body, request.data)
        hits = search_l0(cfg=get_config(), ctx=ctx, query=data["query"], top_k=data["top_k"],
                         candidate_k=data["candidate_k"], scope=data.get("scope"))
        return Response(s.SearchL0Out({"items": [{
            "doc_id": h.doc.doc_id, "chunk_id": h.chunk.chunk_id, "chunk_index": h.chunk.chunk_index,
            "title": h.doc.title, "scope": h.doc.scope, "score": h.score, "preview": h.preview,
            "source_ref": h.pointer(),
        } for h in hits]}).data)


def _moved(doc) -> Response:
    return Response(s.MovedOut({"doc_id": doc.doc_id, "scope": doc.scope}).data)


class DocPublishView(DocsAPIView):
    @extend_schema(summary="Publish a document you own to team_shared or org_shared (readers need a space grant)",
                   operation_id="elf_docs_publish", parameters=CONTEXT_HEADERS, request=s.PublishBody,
                   responses={200: s.MovedOut, **ERROR_RESPONSES})
    def post(self, request, doc_id):
        ctx = context_from_request(request)
        space = validated(s.PublishBody, request.data)["space"]
        return _moved(publish_doc(cfg=get_config(), ctx=ctx, doc_id=doc_id, space=space))


class DocUnpublishView(DocsAPIView):
    @extend_schema(summary="Bring a published document back to agent_private", operation_id="elf_docs_unpublish",
                   parameters=CONTEXT_HEADERS, request=s.PublishBody, responses={200: s.MovedOut, **ERROR_RESPONSES})
    def post(self, request, doc_id):
        ctx = context_from_request(request)
        space = validated(s.PublishBody, request.data)["space"]
        return _moved(unpublish_doc(cfg=get_config(), ctx=ctx, doc_id=doc_id, space=space))
