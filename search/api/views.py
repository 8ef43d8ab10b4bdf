"""Search endpoints: sessions on the public bind (POST /v2/searches ...) and the raw explain search on the
admin bind (POST /v2/admin/searches/raw). The pipeline is search.services.pipeline."""

from __future__ import annotations

import time

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_domain.context_headers import READ_PROFILE
from elf_domain.vocabulary import READ_PROFILES
from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.runtime import get_config

from ..services import sessions
from ..services.pipeline import SearchOutcome
from ..services.search import search
from ..services.session_notes import session_notes
from . import serializers as s

READ_PROFILE_HEADER = [OpenApiParameter(READ_PROFILE, str, OpenApiParameter.HEADER, required=True,
                                        enum=list(READ_PROFILES))]


def _search(request, serializer_cls, *, record_hits: bool | None, open_session: bool = False) -> SearchOutcome:
    """Validate one search body and run the search use case as the request's context (record_hits None: from the
    body); the search service gates it, enqueues its trace (and opens the session when ``open_session``)."""
    ctx = context_from_request(request, require_read_profile=True)
    data = validated(serializer_cls, request.data)
    if record_hits is None:
        record_hits = data.get("record_hits", False)
    return search(cfg=get_config(), ctx=ctx, query=data["query"], top_k=data.get("top_k"),
                  candidate_k=data.get("candidate_k"), filter_raw=data.get("filter"), mode=data.get("mode"),
                  as_of=data.get("as_of"), record_hits=record_hits, open_session=open_session)


def _timed(response: Response, out: SearchOutcome, started: float) -> Response:
    """Server-Timing: ``search`` first, the view's whole time (what elf-bench reads), then the ms of each step
    (embed, recall, validate, rerank, rank, and when they ran expand and hits: search.services.pipeline; session
    and trace: search.services.search), then ``total`` (the same whole time). The steps never overlap, so they
    sum to at most ``total``; the rest is request parsing, the gates and the response body."""
    total = (time.perf_counter() - started) * 1000
    entries = [("search", total), *out.timings.items(), ("total", total)]
    response["Server-Timing"] = ", ".join(f"{name};dur={ms:.2f}" for name, ms in entries)
    return response


def _session_body(session, items) -> dict:
    return {"trace_id": str(session.trace_id), "search_id": str(session.search_id),
            "expires_at": session.expires_at.isoformat(), "items": items}


class SearchCreateView(APIView):
    @extend_schema(
        summary="Search and open a session (compact note index; never records hits)",
        operation_id="elf_searches_create",
        parameters=CONTEXT_HEADERS + READ_PROFILE_HEADER,
        request=s.SearchBodySerializer,
        responses={200: s.SearchSessionSerializer, **ERROR_RESPONSES},
    )
    def post(self, request):
        started = time.perf_counter()
        out = _search(request, s.SearchBodySerializer, record_hits=False, open_session=True)
        return _timed(Response(_session_body(out.session, out.session.items)), out, started)


class SearchSessionView(APIView):
    @extend_schema(
        summary="Read a search session (touch extends its TTL)",
        operation_id="elf_searches_get",
        parameters=CONTEXT_HEADERS + [s.SessionQuerySerializer],
        responses={200: s.SearchSessionSerializer, **ERROR_RESPONSES},
    )
    def get(self, request, search_id):
        ctx = context_from_request(request)
        q = validated(s.SessionQuerySerializer, request.query_params.dict(), "$.query")
        session = sessions.get_session(ctx, search_id, touch=q["touch"])
        items = sessions.live_items(ctx, session)
        return Response(_session_body(session, items[: q.get("top_k", len(items))]))


class SearchTimelineView(APIView):
    @extend_schema(
        summary="A search session's items grouped by day",
        operation_id="elf_searches_timeline",
        parameters=CONTEXT_HEADERS + [s.TimelineQuerySerializer],
        responses={200: s.TimelineSerializer, **ERROR_RESPONSES},
    )
    def get(self, request, search_id):
        ctx = context_from_request(request)
        q = validated(s.TimelineQuerySerializer, request.query_params.dict(), "$.query")
        session = sessions.get_session(ctx, search_id, touch=True)
        return Response(
            {
                "search_id": str(session.search_id),
                "expires_at": session.expires_at.isoformat(),
                "groups": sessions.timeline(sessions.live_items(ctx, session), q["group_by"]),
            }
        )


class SearchNotesView(APIView):
    @extend_schema(
        summary="Full notes for chosen ids of a session (records hits by default)",
        operation_id="elf_searches_notes",
        parameters=CONTEXT_HEADERS,
        request=s.SessionNotesBodySerializer,
        responses={200: s.SessionNotesResponseSerializer, **ERROR_RESPONSES},
    )
    def post(self, request, search_id):
        ctx = context_from_request(request)
        data = validated(s.SessionNotesBodySerializer, request.data)
        return Response(
            session_notes(
                cfg=get_config(),
                ctx=ctx,
                search_id=search_id,
                note_ids=data["note_ids"],
                record_hits=data["record_hits"],
                include_source_excerpts=data["include_source_excerpts"],
            )
        )


class RawSearchView(APIView):
    @extend_schema(
        summary="Chunk-level search with the full explain (admin, debugging and evaluation)",
        parameters=CONTEXT_HEADERS + READ_PROFILE_HEADER,
        request=s.RawSearchBodySerializer,
        responses={200: s.RawSearchResponseSerializer, **ERROR_RESPONSES},
    )
    def post(self, request):
        started = time.perf_counter()
        out = _search(request, s.RawSearchBodySerializer, record_hits=None)
        items = [
            {
                "result_handle": str(i.result_handle),
                "note_id": str(i.note.note_id),
                "chunk_id": str(i.chunk.chunk_id),
                "chunk_index": i.chunk.chunk_index,
                "start_offset": i.chunk.start_offset,
                "end_offset": i.chunk.end_offset,
                "snippet": i.snippet,
                "type": i.note.type,
                "key": i.note.key,
                "scope": i.note.scope,
                "importance": i.note.importance,
                "confidence": i.note.confidence,
                "updated_at": i.note.updated_at.isoformat(),
                "expires_at": i.note.expires_at.isoformat() if i.note.expires_at else None,
                "final_score": i.ranked.final_score,
                "source_ref": i.note.source_ref,
                "explain": i.explain(),
            }
            for i in out.items
        ]
        return _timed(Response({"trace_id": str(out.trace_id), "items": items}), out, started)
