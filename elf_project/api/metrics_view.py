"""GET /metrics on the admin bind: Prometheus text exposition (elf_kernel.observability.metrics).

A plain Django view, not a DRF one: it is no part of the JSON API or its OpenAPI document. With static API keys
on, AuthMiddleware asks for an admin key here as on every admin route.
"""

from __future__ import annotations

from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import CONTENT_TYPE_LATEST

from elf_kernel.errors import error_body
from elf_kernel.observability.metrics import exposition


@csrf_exempt  # no session state is read or changed; other methods get the JSON 405 below, not a CSRF page
def metrics_view(request) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        response = JsonResponse(error_body("METHOD_NOT_ALLOWED", f'Method "{request.method}" not allowed.'),
                                status=405)
        response["Allow"] = "GET, HEAD"
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
