"""OpenAPI pieces shared by every endpoint: the context headers, the error body and its statuses."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from elf_domain.context_headers import AGENT, PROJECT, TENANT

CONTEXT_HEADERS = [
    OpenApiParameter(name, str, OpenApiParameter.HEADER, required=True) for name in (TENANT, PROJECT, AGENT)
]

ErrorBody = inline_serializer(
    "ErrorBody",
    {
        "error_code": serializers.CharField(
            help_text="NON_ENGLISH_INPUT | SCOPE_DENIED | INVALID_REQUEST | INTERNAL_ERROR | ..."
        ),
        "message": serializers.CharField(),
        "fields": serializers.ListField(child=serializers.CharField(), help_text="JSONPaths, e.g. $.notes[0].text"),
    },
)

ERROR_RESPONSES = {
    400: OpenApiResponse(ErrorBody, description="Invalid request (INVALID_REQUEST)"),
    401: OpenApiResponse(
        ErrorBody, description="No or an unknown API key, when security.auth_mode requires one (UNAUTHENTICATED)"
    ),
    403: OpenApiResponse(ErrorBody, description="Scope denied (SCOPE_DENIED)"),
    404: OpenApiResponse(ErrorBody, description="Not found (NOT_FOUND)"),
    413: OpenApiResponse(ErrorBody, description="Request body over the size cap (PAYLOAD_TOO_LARGE)"),
    # gunicorn refuses a request line over 4094 bytes (limit_request_line) before ELF sees it: its own HTML page.
    (414, "text/html"): OpenApiResponse(
        OpenApiTypes.STR,
        description="Request line (method, path and query) over 4094 bytes, answered by the HTTP server",
    ),
    422: OpenApiResponse(ErrorBody, description="Non-English input (NON_ENGLISH_INPUT)"),
    429: OpenApiResponse(ErrorBody, description="Over the caller's rate limit, with Retry-After (RATE_LIMITED)"),
    500: OpenApiResponse(ErrorBody, description="Internal error (INTERNAL_ERROR)"),
    503: OpenApiResponse(
        ErrorBody,
        description="Postgres or the search index is unreachable "
        "(SERVICE_UNAVAILABLE, DATABASE_UNAVAILABLE, INDEX_UNAVAILABLE)",
    ),
}


def error_responses(extra: dict[int, str]) -> dict[int, OpenApiResponse]:
    """ERROR_RESPONSES plus an operation's own error statuses, each described by its error codes."""
    return {
        **ERROR_RESPONSES,
        **{status: OpenApiResponse(ErrorBody, description=text) for status, text in extra.items()},
    }
