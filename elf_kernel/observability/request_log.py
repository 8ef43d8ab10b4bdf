"""The outermost middleware: a request id for every request, echoed in ``X-Request-Id``; one JSON log line and one
latency observation per request; and a ``Server-Timing`` entry ``app`` on every response: the request's time
inside Django, middleware and rendering included (after the view's own entries, e.g. a search's ``search``).

The route is the URL pattern that matched (``v2/notes/<uuid:note_id>``), not the path, so ids do not explode the
metric's label values; a path no pattern matches is ``<unmatched>``.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.urls import Resolver404, resolve

from elf_domain.context_headers import AGENT, PROJECT, TENANT

from ..auth import matched_key
from ..listener import ADMIN_URLCONF, PUBLIC_URLCONF
from . import log_context
from .json_logging import EXTRA_ATTR
from .metrics import observe_request

REQUEST_ID_HEADER = "X-Request-Id"
SERVER_TIMING = "Server-Timing"
REQUEST_ID_META = "HTTP_X_REQUEST_ID"
UNMATCHED_ROUTE = "<unmatched>"
_BINDS = {PUBLIC_URLCONF: "public", ADMIN_URLCONF: "admin"}
_HEADER_FIELDS = {TENANT: "tenant_id", PROJECT: "project_id", AGENT: "agent_id"}

log = logging.getLogger("elf.request")


def route_of(request) -> str:
    """The matched URL pattern (also for a response given before URL resolution, e.g. a 401)."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        urlconf = getattr(request, "urlconf", None)
        if request.path_info.startswith(settings.STATIC_URL):  # answered by WhiteNoise before URL resolution
            return settings.STATIC_URL + "<path>"
        if urlconf is None:
            return UNMATCHED_ROUTE
        try:
            match = resolve(request.path_info, urlconf=urlconf)
        except Resolver404:
            return UNMATCHED_ROUTE
    return "/" + match.route if match.route else UNMATCHED_ROUTE


def _context_fields(request) -> dict[str, str | None]:
    """tenant/project/agent: the API key's when the request authenticated with one, else its context headers."""
    key = matched_key(request)
    if key is not None:
        return {"tenant_id": key.tenant_id, "project_id": key.project_id, "agent_id": key.agent_id}
    return {field: request.headers.get(name) for name, field in _HEADER_FIELDS.items()}


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = log_context.request_id_from(request.META.get(REQUEST_ID_META))
        token = log_context.bind({"request_id": request_id, **_context_fields(request)})
        start = time.perf_counter()
        try:
            response = self.get_response(request)
            response[REQUEST_ID_HEADER] = request_id
            seconds = time.perf_counter() - start
            own = response.get(SERVER_TIMING)
            response[SERVER_TIMING] = (f"{own}, " if own else "") + f"app;dur={seconds * 1000:.2f}"
            self._record(request, response.status_code, seconds)
            return response
        finally:
            log_context.unbind(token)

    @staticmethod
    def _record(request, status: int, seconds: float) -> None:
        route, bind = route_of(request), _BINDS.get(getattr(request, "urlconf", None), "none")
        observe_request(bind=bind, method=request.method, route=route, status=status, seconds=seconds)
        log_context.update(_context_fields(request))
        duration_ms = round(seconds * 1000, 1)
        log.log(
            logging.ERROR if status >= 500 else logging.INFO,
            "%s %s %s %sms", request.method, request.path, status, duration_ms,
            extra={EXTRA_ATTR: {"method": request.method, "route": route, "path": request.path, "status": status,
                                "duration_ms": duration_ms, "bind": bind}},
        )


class RequestContextMiddleware:
    """Right after AuthMiddleware: the API key (if any) now fixes tenant/project/agent for the rest of the request,
    so log lines and the Celery tasks it enqueues carry the key's context."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        log_context.update(_context_fields(request))
        return self.get_response(request)
