"""The one place errors become HTTP: ``{error_code, message, fields}`` (spec v2 section 15 error body)."""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError as DbInterfaceError
from django.db import OperationalError as DbOperationalError
from django.http import Http404, JsonResponse
from qdrant_client.http.exceptions import ResponseHandlingException
from rest_framework import exceptions as drf_exc
from rest_framework.response import Response

from elf_infra.index.collection import IndexUnavailable

log = logging.getLogger("elf.errors")


class ElfError(Exception):
    """A request failure with a stable machine code and the JSONPaths of the offending fields."""

    status = 400
    error_code = "INVALID_REQUEST"

    def __init__(self, message: str, fields: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.fields = fields or []


class InvalidRequest(ElfError):
    status, error_code = 400, "INVALID_REQUEST"


class NonEnglishInput(ElfError):
    status, error_code = 422, "NON_ENGLISH_INPUT"

    def __init__(self, fields: list[str]):
        super().__init__(
            "Non-English input detected; upstream must canonicalize to English before calling ELF.", fields
        )


class ScopeDenied(ElfError):
    status, error_code = 403, "SCOPE_DENIED"


class NotFound(ElfError):
    status, error_code = 404, "NOT_FOUND"


class PayloadTooLarge(ElfError):
    status, error_code = 413, "PAYLOAD_TOO_LARGE"

    def __init__(self, size: int | None, limit: int):
        told = f"{size} bytes" if size is not None else f"more than {limit} bytes"
        super().__init__(f"Request body is {told}; the limit for this endpoint is {limit} bytes.", ["$"])


class ServiceUnavailable(ElfError):
    """A dependency is down (503): the request may be retried as it is. Keyed writes replay as NONE."""

    status, error_code = 503, "SERVICE_UNAVAILABLE"


class DatabaseUnavailable(ServiceUnavailable):
    error_code = "DATABASE_UNAVAILABLE"


class SearchIndexUnavailable(ServiceUnavailable):
    error_code = "INDEX_UNAVAILABLE"


def _dependency_down(exc: BaseException | None) -> ServiceUnavailable | None:
    """Postgres unreachable (connection refused, dropped or timed out waiting for the pool; Django wraps them as
    OperationalError / InterfaceError) or Qdrant unreachable (a collection handle's IndexUnavailable, or a direct
    client call that could not reach it): a 503 naming which, logged without a traceback."""
    if isinstance(exc, (DbOperationalError, DbInterfaceError)):
        down: ServiceUnavailable = DatabaseUnavailable("The database is unavailable; retry the request.")
    elif isinstance(exc, (IndexUnavailable, ResponseHandlingException)):
        down = SearchIndexUnavailable("The search index is unavailable; retry the request.")
    else:
        return None
    log.warning("%s: %s: %s", down.error_code, type(exc).__name__, str(exc).strip()[:500])
    return down


def _data_too_big(request) -> PayloadTooLarge:
    """Django's own cap (settings.DATA_UPLOAD_MAX_MEMORY_SIZE) as the same 413 as elf_kernel.body_limits."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    raw = str(getattr(request, "META", {}).get("CONTENT_LENGTH") or "")
    size = int(raw) if raw.isdigit() and int(raw) > limit else None
    return PayloadTooLarge(size, limit)


def error_body(error_code: str, message: str, fields: list[str] | None = None) -> dict[str, Any]:
    return {"error_code": error_code, "message": message, "fields": fields or []}


def jsonpaths(detail: Any, prefix: str = "$") -> list[str]:
    """Flatten DRF's nested validation detail into JSONPaths: {"notes": [{"text": [...]}]} -> $.notes[0].text."""
    if isinstance(detail, dict):
        out: list[str] = []
        for key, sub in detail.items():
            if key == "non_field_errors":
                path = prefix
            elif isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
                path = f"{prefix}[{key}]"  # ListField reports item errors keyed by index
            else:
                path = f"{prefix}.{key}"
            out.extend(jsonpaths(sub, path))
        return out
    if isinstance(detail, list) and detail and all(isinstance(x, (dict, list)) or x == {} for x in detail):
        out = []
        for i, sub in enumerate(detail):
            if sub:
                out.extend(jsonpaths(sub, f"{prefix}[{i}]"))
        return out
    return [prefix]


def first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for sub in detail.values():
            return first_message(sub)
    if isinstance(detail, list):
        for sub in detail:
            if sub:
                return first_message(sub)
    return str(detail)


def exception_handler(exc: Exception, context: dict) -> Response:
    if isinstance(exc, RequestDataTooBig):
        exc = _data_too_big(context.get("request"))
    exc = _dependency_down(exc) or exc
    if isinstance(exc, ElfError):
        return Response(error_body(exc.error_code, exc.message, exc.fields), status=exc.status)
    if isinstance(exc, drf_exc.ValidationError):
        paths = jsonpaths(exc.detail)
        return Response(
            error_body("INVALID_REQUEST", f"Invalid request: {first_message(exc.detail)}", paths), status=400
        )
    if isinstance(exc, drf_exc.ParseError):
        return Response(error_body("INVALID_REQUEST", f"Malformed request body: {exc.detail}", ["$"]), status=400)
    if isinstance(exc, drf_exc.UnsupportedMediaType):
        return Response(error_body("INVALID_REQUEST", str(exc.detail), ["$.headers.Content-Type"]), status=415)
    if isinstance(exc, (Http404, drf_exc.NotFound)):
        return Response(error_body("NOT_FOUND", "Not found.", []), status=404)
    if isinstance(exc, drf_exc.MethodNotAllowed):
        return Response(error_body("METHOD_NOT_ALLOWED", str(exc.detail), []), status=405)
    if isinstance(exc, (drf_exc.NotAuthenticated, drf_exc.AuthenticationFailed)):
        return Response(error_body("UNAUTHENTICATED", str(exc.detail), ["$.headers.Authorization"]), status=401)
    if isinstance(exc, drf_exc.PermissionDenied):
        return Response(error_body("FORBIDDEN", str(exc.detail), []), status=403)
    if isinstance(exc, drf_exc.APIException):
        return Response(error_body("INVALID_REQUEST", str(exc.detail), []), status=exc.status_code)
    view = context.get("view")
    log.exception("unhandled error in %s", type(view).__name__ if view else "request")
    return Response(error_body("INTERNAL_ERROR", "Internal error.", []), status=500)


def error_response(exc: ElfError) -> JsonResponse:
    """The error body of ``exc`` outside DRF (middleware, Django's handlers)."""
    return JsonResponse(error_body(exc.error_code, exc.message, exc.fields), status=exc.status)


def json_404(request, exception=None) -> JsonResponse:
    return JsonResponse(error_body("NOT_FOUND", "Not found.", []), status=404)


def json_500(request) -> JsonResponse:
    down = _dependency_down(sys.exc_info()[1])  # Django calls this handler inside its except block
    if down is not None:
        return error_response(down)
    return JsonResponse(error_body("INTERNAL_ERROR", "Internal error.", []), status=500)


def json_400(request, exception=None) -> JsonResponse:
    if isinstance(exception, RequestDataTooBig):
        return error_response(_data_too_big(request))
    return JsonResponse(error_body("INVALID_REQUEST", "Bad request.", []), status=400)
