"""GET /v2/context: echo the validated request context (lets an agent check its headers before writing)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_domain.context_headers import READ_PROFILE
from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.context import context_from_request


class ContextView(APIView):
    @extend_schema(
        summary="Echo the validated context headers",
        parameters=CONTEXT_HEADERS + [OpenApiParameter(READ_PROFILE, str, OpenApiParameter.HEADER, required=False)],
        responses={
            200: inline_serializer(
                "RequestContext",
                {
                    "tenant_id": serializers.CharField(),
                    "project_id": serializers.CharField(),
                    "agent_id": serializers.CharField(),
                    "read_profile": serializers.CharField(allow_null=True),
                },
            ),
            **ERROR_RESPONSES,
        },
    )
    def get(self, request):
        has_profile = "HTTP_X_ELF_READ_PROFILE" in request.META
        ctx = context_from_request(request, require_read_profile=has_profile)
        return Response(
            {"tenant_id": ctx.tenant_id, "project_id": ctx.project_id, "agent_id": ctx.agent_id,
             "read_profile": ctx.read_profile}
        )
