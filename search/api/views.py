"""Search endpoints: sessions on the public bind (POST /v2/searches ...) and the raw explain search on the
admin bind (POST /v2/admin/searches/raw). The pipeline is search.services.pipeline."""

from __future__ import annotations

import time

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_domain.context_headers import READ_PROFILE
from elf_domain.vocabulary import READ_PROFILES
from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import RequestContext, context_from_request
from elf_kernel.errors import InvalidRequest
from elf_kernel.runtime import get_config
from docs_ext.services.excerpts import hydrate_pointer
from memory.api.notes_views import note_to_dict
from memory.selectors import readable_notes
from memory.services.hits import record_hits
from memory.services.note_fields import fields_of

from ..domain import search_filter
from ..services import sessions
from ..services.pipeline import SearchOutcome, SearchRequest
from ..services.search import search
from . import serializers as s

READ_PROFILE_HEADER = [OpenApiParameter(READ_PROFILE, str, OpenApiParameter.HEADER, required=True,
                                        enum=list(READ_PROFILES))]


def _search(request, serializer_cls, *, record_hits: bool | None, open_session: bool = False) -> SearchOutcome:
    """Validate, gate and run one search (record_hits None: from the body); the search service enqueues its trace
    (and opens the session when ``open_session``)."""
    ctx = context_from_request(request, require_read_profile=True)
    data = validated(serializer_cls, request.data)
    _, out = search_body(ctx, data, record_hits=record_hits, open_session=open_session)
    return out


def search_body(ctx: RequestContext, data: dict, *, record_hits: bool | None,
                open_session: bool = False) -> tuple[SearchRequest, SearchOutcome]:
    """Gate and run one search from a validated body (query, top_k, candidate_k, filter, mode, as_of) in ``ctx``
    (its read_profile set); with ``open_session`` the outcome carries the new search session. Shared by the /v2
    search routes and the deprecated POST /v1/memory/search."""
    require_english([("$.query", data["query"], NATURAL)])
    if not data["query"].strip():
        raise InvalidRequest("query must not be empty.", ["$.query"])
    cfg = get_config()
    expr = None
    if "filter" in data:
        try:
            expr = search_filter.parse_filter(data["filter"], "$.filter")
        except search_filter.FilterError as exc:
            raise InvalidRequest(exc.message, [exc.path]) from None
    top_k = data.get("top_k", cfg.memory.top_k)
    req = SearchRequest(
        query=data["query"].strip(), read_profile=ctx.read_profile, top_k=top_k,
        candidate_k=max(data.get("candidate_k", cfg.memory.candidate_k), top_k),
        mode=data.get("mode", cfg.search.default_mode), filter_expr=expr, filter_raw=data.get("filter"),
        record_hits=data.get("record_hits", False) if record_hits is None else record_hits,
        as_of=data.get("as_of"),
    )
    return req, search(cfg=cfg, ctx=ctx, req=req, open_session=open_session)


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
    @extend_schema(summary="Search and open a session (compact note index; never records hits)", operation_id="elf_searches_create",
                   parameters=CONTEXT_HEADERS + READ_PROFILE_HEADER, request=s.SearchBodySerializer,
                   responses={200: s.SearchSessionSerializer, **ERROR_RESPONSES})
    def post(self, request):
        started = time.perf_counter()
        out = _search(request, s.SearchBodySerializer, record_hits=False, open_session=True)
        return _timed(Response(_session_body(out.session, out.session.items)), out, started)


class SearchSessionView(APIView):
    @extend_schema(summary="Read a search session (touch extends its TTL)", operation_id="elf_searches_get", parameters=CONTEXT_HEADERS + [
        s.SessionQuerySerializer],
        responses={200: s.SearchSessionSerializer, **ERROR_RESPONSES})
    def get(self, request, search_id):
        ctx = context_from_request(request)
        q = validated(s.SessionQuerySerializer, request.query_params.dict(), "$.query")
        session = sessions.get_session(ctx, search_id, touch=q["touch"])
        items = sessions.live_items(ctx, session)
        return Response(_session_body(session, items[: q.get("top_k", len(items))]))


class SearchTimelineView(APIView):
    @extend_schema(summary="A search session's items grouped by day", operation_id="elf_searches_timeline", parameters=CONTEXT_HEADERS + [
        s.TimelineQuerySerializer],
        responses={200: s.TimelineSerializer, **ERROR_RESPONSES})
    def get(self, request, search_id):
        ctx = context_from_request(request)
        q = validated(s.TimelineQuerySerializer, request.query_params.dict(), "$.query")
        session = sessions.get_session(ctx, search_id, touch=True)
        return Response({"search_id": str(session.search_id), "expires_at": session.expires_at.isoformat(),
                         "groups": sessions.timeline(sessions.live_items(ctx, session), q["group_by"])})


class SearchNotesView(APIView):
    @extend_schema(summary="Full notes for chosen ids of a session (records hits by default)", operation_id="elf_searches_notes",
                   parameters=CONTEXT_HEADERS, request=s.SessionNotesBodySerializer,
                   responses={200: s.SessionNotesResponseSerializer, **ERROR_RESPONSES})
    def post(self, request, search_id):
        ctx = context_from_request(request)
        data = validated(s.SessionNotesBodySerializer, request.data)
        session = sessions.get_session(ctx, search_id, touch=True)
        live = {i["note_id"] for i in sessions.live_items(ctx, session)}
        in_session = {i["note_id"] for i in session.items}
        wanted = [str(n) for n in data["note_ids"]]
        notes = {str(n.note_id): n for n in readable_notes(ctx).filter(note_id__in=[w for w in wanted if w in live])}
        structured = fields_of(n.note_id for n in notes.values())
        results = []
        for nid in wanted:
            if nid in notes:
                results.append({"note_id": nid, "note": note_to_dict(notes[nid], structured.get(notes[nid].note_id)),
                                "error": None})
            else:
                code = "NOT_IN_SESSION" if nid not in in_session else "NOTE_UNAVAILABLE"
                results.append({"note_id": nid, "note": None, "error": {"error_code": code}})
        if data["include_source_excerpts"]:
            docs_on = get_config().docs_enabled
            for item in results:
                if item["note"] is not None:
                    item["source_excerpt"] = hydrate_pointer(docs_enabled=docs_on, ctx=ctx,
                                                             pointer=notes[item["note_id"]].source_ref)
        if data["record_hits"] and notes:
            scores = {i["note_id"]: i["final_score"] for i in session.items}
            record_hits(session.query, [(notes[n].note_id, None, scores[n]) for n in wanted if n in notes])
        return Response({"search_id": str(session.search_id), "expires_at": session.expires_at.isoformat(),
                         "results": results})


class RawSearchView(APIView):
    @extend_schema(summary="Chunk-level search with the full explain (admin, debugging and evaluation)",
                   parameters=CONTEXT_HEADERS + READ_PROFILE_HEADER, request=s.RawSearchBodySerializer,
                   responses={200: s.RawSearchResponseSerializer, **ERROR_RESPONSES})
    def post(self, request):
        started = time.perf_counter()
        out = _search(request, s.RawSearchBodySerializer, record_hits=None)
        items = [{
            "result_handle": str(i.result_handle), "note_id": str(i.note.note_id), "chunk_id": str(i.chunk.chunk_id),
            "chunk_index": i.chunk.chunk_index, "start_offset": i.chunk.start_offset, "end_offset": i.chunk.end_offset,
            "snippet": i.snippet, "type": i.note.type, "key": i.note.key, "scope": i.note.scope,
            "importance": i.note.importance, "confidence": i.note.confidence,
            "updated_at": i.note.updated_at.isoformat(),
            "expires_at": i.note.expires_at.isoformat() if i.note.expires_at else None,
            "final_score": i.ranked.final_score, "source_ref": i.note.source_ref, "explain": i.explain(),
        } for i in out.items]
        return _timed(Response({"trace_id": str(out.trace_id), "items": items}), out, started)
