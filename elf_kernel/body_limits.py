"""Request body caps, checked before a view reads the body.

Supplement section 4: "request bodies capped (1 MiB, docs 4 MiB)". A Content-Length above the cap is
answered 413 without reading the body. A chunked request has no Content-Length: gunicorn passes it on with
none and Django then reads its body as empty (a JSON POST would fail as if nothing had been sent), so it is
read here, at most cap + 1 bytes, and handed to the view with its real length.
"""

from __future__ import annotations

from io import BytesIO

from django.http import JsonResponse

from .errors import PayloadTooLarge, error_response

MAX_BODY_BYTES = 1024 * 1024  # every request (supplement section 4)
DOCS_MAX_BODY_BYTES = 4 * 1024 * 1024  # the docs extension under /v2/docs (supplement section 4)
DOCS_PREFIX = "/v2/docs"
READ_CHUNK_BYTES = 64 * 1024


def body_limit_for(path: str) -> int:
    if path == DOCS_PREFIX or path.startswith(DOCS_PREFIX + "/"):
        return DOCS_MAX_BODY_BYTES
    return MAX_BODY_BYTES


def declared_length(meta: dict) -> int | None:
    """The request's Content-Length; None when it sends none (chunked), 0 when it is unreadable."""
    raw = meta.get("CONTENT_LENGTH")
    if raw in (None, ""):
        return None
    try:
        return max(int(raw), 0)
    except ValueError:
        return 0  # Django reads such a body as empty too


def _is_chunked(meta: dict) -> bool:
    return "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()


def _read_at_most(stream, limit: int) -> bytes:
    """Up to limit + 1 bytes: one byte more than the cap tells an oversize body from a full one."""
    parts, size = [], 0
    while size <= limit:
        part = stream.read(min(READ_CHUNK_BYTES, limit + 1 - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def _too_large(size: int | None, limit: int) -> JsonResponse:
    return error_response(PayloadTooLarge(size, limit))


class BodyLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = body_limit_for(request.path_info)
        length = declared_length(request.META)
        if length is not None:
            if length > limit:
                return _too_large(length, limit)
        elif _is_chunked(request.META):
            body = _read_at_most(request.META["wsgi.input"], limit)
            if len(body) > limit:
                return _too_large(None, limit)
            # Django built its stream from the missing Content-Length (0 bytes): hand it the body read here,
            # the way HttpRequest.body leaves a request it has read (DRF reads the stream, views .body).
            request.META["CONTENT_LENGTH"] = str(len(body))
            request._body = body
            request._stream = BytesIO(body)
        return self.get_response(request)
