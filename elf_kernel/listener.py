"""Two listeners, one codebase: route each request by the port of the socket it arrived on.

gunicorn sets SERVER_PORT from the listening socket (not from the Host header), so a client on the public
bind cannot reach admin routes by forging Host.
"""

from __future__ import annotations

from elf_config.rules import parse_bind

from .runtime import get_config

PUBLIC_URLCONF = "elf_project.urls_public"
ADMIN_URLCONF = "elf_project.urls_admin"


def listener_urlconfs() -> dict[str, str]:
    svc = get_config().service
    return {
        str(parse_bind(svc.http_bind)[1]): PUBLIC_URLCONF,
        str(parse_bind(svc.admin_bind)[1]): ADMIN_URLCONF,
    }


class ListenerRoutingMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.urlconfs = listener_urlconfs()

    def __call__(self, request):
        # Unknown listener: the catch-all ROOT_URLCONF answers 404 to everything.
        urlconf = self.urlconfs.get(request.META.get("SERVER_PORT", ""))
        if urlconf is not None:
            request.urlconf = urlconf
        return self.get_response(request)
