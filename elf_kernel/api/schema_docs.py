"""OpenAPI pieces shared by every endpoint: the context headers, the error body and its statuses."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from elf_domain.context_headers import AGENT, PROJECT, TENANT

CONTEXT_HEADERS = [
    OpenApiParameter(name, str, OpenApiParameter.HEADER, required=True) for name in (TENANT, PROJECT, AGENT)
]

ErrorBody = inline_serializer(
    "ErrorBody",
    {
        "error_code": serializers.CharField(help_text="NON_ENGLISH_INPUT | SCOPE_DENIED | INVALID_REQUEST | INTERNAL_ERROR | ..."),
        "message": serializers.CharField(),
        "fields": serializers.ListField(child=serializers.CharField(), help_text="JSONPaths, e.g. $.notes[0].text"),
    },
)

ERROR_RESPONSES = {
    400: OpenApiResponse(ErrorBody, description="Invalid request (INVALID_REQUEST)"),
    403: OpenApiResponse(ErrorBody, description="Scope denied (SCOPE_DENIED)"),
    404: OpenApiResponse(ErrorBody, description="Not found (NOT_FOUND)"),
    422: OpenApiResponse(ErrorBody, description="Non-English input (NON_ENGLISH_INPUT)"),
    500: OpenApiResponse(ErrorBody, description="Internal error (INTERNAL_ERROR)"),
}
