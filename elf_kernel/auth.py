"""Static API keys (spec v2 sections 14-15, ``security.auth_mode = "static_keys"``).

Every ``/v2/``, ``/v1/`` (the deprecated v1 API), ``/api/v1/`` (event log and bundles) and ``/metrics`` (served on
the admin bind only) request on either listener must carry ``Authorization: Bearer <token>`` matching one
``[[security.auth_keys]]`` entry; the admin listener also needs an admin key. The matched key is stored on the
request, and ``elf_kernel.context`` takes the tenant/project/agent context from it. ``/health``, the OpenAPI
schema, the docs page, the Django admin pages and static files are not covered.
"""

from __future__ import annotations

import hashlib
import hmac

from django.core.exceptions import MiddlewareNotUsed

from elf_config.schema import AuthKeyConfig, SecurityConfig

from .errors import ElfError, error_response
from .listener import ADMIN_URLCONF
from .runtime import get_config

PROTECTED_PREFIXES = ("/v2/", "/v1/", "/api/v1/", "/metrics")
REQUEST_ATTR = "elf_auth_key"
AUTHORIZATION_FIELD = "$.headers.Authorization"


class Unauthenticated(ElfError):
    status, error_code = 401, "UNAUTHENTICATED"

    def __init__(self, message: str):
        super().__init__(message, [AUTHORIZATION_FIELD])


class Forbidden(ElfError):
    status, error_code = 403, "FORBIDDEN"


def matched_key(request) -> AuthKeyConfig | None:
    """The key a request authenticated with (also through a DRF Request), or None when auth is off."""
    return getattr(request, REQUEST_ATTR, None)


def _digest(token: bytes) -> bytes:
    # Comparing fixed-length digests keeps compare_digest from leaking the configured tokens' lengths.
    return hashlib.sha256(token).digest()


def _bearer_token(request) -> bytes:
    raw = request.META.get("HTTP_AUTHORIZATION")
    if raw is None:
        raise Unauthenticated("Authorization: Bearer <token> is required.")
    scheme, _, token = raw.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise Unauthenticated("Authorization must be 'Bearer <token>'.")
    # WSGI hands headers over as latin-1 decoded text: back to the bytes the client sent.
    return token.encode("latin-1", errors="replace")


class KeyRing:
    """The configured keys, matched in constant time: every key is compared, whatever matches first."""

    def __init__(self, keys: list[AuthKeyConfig]):
        self._keys = [(_digest(k.token.encode("utf-8")), k) for k in keys]

    def match(self, token: bytes) -> AuthKeyConfig | None:
        presented = _digest(token)
        found = None
        for digest, key in self._keys:
            if hmac.compare_digest(digest, presented) and found is None:
                found = key
        return found


def authenticate(request, ring: KeyRing) -> AuthKeyConfig:
    """The key of this request; raises Unauthenticated or Forbidden (a user key on the admin listener)."""
    key = ring.match(_bearer_token(request))
    if key is None:
        raise Unauthenticated("Unknown bearer token.")
    if getattr(request, "urlconf", None) == ADMIN_URLCONF and not key.is_admin:
        raise Forbidden("Admin endpoints need an admin API key.", [AUTHORIZATION_FIELD])
    return key


class AuthMiddleware:
    """Runs right after ListenerRoutingMiddleware, which tells the admin listener from the public one."""

    def __init__(self, get_response, security: SecurityConfig | None = None):
        security = security or get_config().security
        if not security.static_keys:
            raise MiddlewareNotUsed("security.auth_mode is off")
        self.get_response = get_response
        self.ring = KeyRing(security.auth_keys or [])

    def __call__(self, request):
        if request.path_info.startswith(PROTECTED_PREFIXES):
            try:
                setattr(request, REQUEST_ATTR, authenticate(request, self.ring))
            except ElfError as exc:
                response = error_response(exc)
                if exc.status == 401:
                    response["WWW-Authenticate"] = "Bearer"
                return response
        return self.get_response(request)
