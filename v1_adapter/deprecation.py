"""What every deprecated v1 route (elf-memory-service-v1.md section 15, POST /v1/admin/rebuild_qdrant of section
14) answers with, errors included: ``Deprecation: @<unix time>`` (RFC 9745: a Structured Field Date, the moment
the route became deprecated, in the past: it is deprecated now) and ``Link: <v2 route>; rel="successor-version"``
(RFC 8288), and the OpenAPI marks that go with them (``deprecated: true``, both response headers).
"""

from __future__ import annotations

from datetime import UTC, datetime

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import ERROR_RESPONSES

from .english import reject_cjk

# When the v1 routes were added, already deprecated in favour of v2: 2026-11-24T00:00:00Z.
DEPRECATED_AT = datetime(2026, 11, 24, tzinfo=UTC)
DEPRECATION = f"@{int(DEPRECATED_AT.timestamp())}"

RESPONSE_HEADERS = [
    OpenApiParameter("Deprecation", str, OpenApiParameter.HEADER, response=True,
                     description=f"RFC 9745: `{DEPRECATION}` ({DEPRECATED_AT:%Y-%m-%d}), the route is deprecated."),
    OpenApiParameter("Link", str, OpenApiParameter.HEADER, response=True,
                     description='RFC 8288: `</v2/...>; rel="successor-version"`, the v2 route to use instead.'),
]


def v1_schema(*, operation_id: str, summary: str, successor: str, request=None, response=None, parameters=(),
              errors=ERROR_RESPONSES):
    """extend_schema for a v1 route: deprecated, its successor named, the deprecation headers described; ``errors``
    are the successor's error responses."""
    return extend_schema(
        operation_id=operation_id, summary=summary, deprecated=True, tags=["v1 (deprecated)"],
        description=f"Deprecated v1 route (elf-memory-service-v1.md), served by the same services as its "
        f"successor, {successor}. Every response carries `Deprecation` and a `Link` to the successor.",
        parameters=[*parameters, *RESPONSE_HEADERS], request=request,
        responses={200: response, **errors},
    )


class DeprecatedV1View(APIView):
    """Adds the deprecation headers to every response of the view, error bodies included, and refuses CJK anywhere
    in the request (v1 invariant I4, v1_adapter.english) once the caller is authenticated."""

    successor = ""  # the v2 route's path
    takes_input = True  # False: the route reads no body or query string, so none is parsed for CJK either

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if not self.takes_input:
            return
        if request.method in ("GET", "HEAD"):
            reject_cjk({k: v if len(v) > 1 else v[0] for k, v in request.query_params.lists()}, "$.query")
        else:
            reject_cjk(request.data)

    def successor_path(self) -> str:
        return self.successor

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Deprecation"] = DEPRECATION
        response["Link"] = f'<{self.successor_path()}>; rel="successor-version"'
        return response
