"""Per-key rate limits (``[security.rate_limits]``): 429 ``RATE_LIMITED`` with ``Retry-After`` over the limit.

The buckets live in Redis (``redis_url``, else ``worker.broker_url``): one EVALSHA of the token-bucket script
(elf_domain.rate_limits) per request, so every gunicorn worker and API host spends from the same bucket. When
Redis cannot be reached the limiter fails open: the request goes through, a warning is logged at most once a
minute, and Redis is not asked again for a few seconds (a down store costs no request a timeout each).

Only ``/v2/``, ``/v1/`` and ``/api/v1/`` requests are limited: /health, /openapi.json, /docs/, /metrics and the
Django admin pages never are. Runs after AuthMiddleware, whose matched key names the caller.
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from django.core.exceptions import MiddlewareNotUsed
from redis.backoff import NoBackoff
from redis.retry import Retry

from elf_config.schema import RateLimitsConfig
from elf_domain.context_headers import AGENT, PROJECT, TENANT
from elf_domain.rate_limits import TOKEN_BUCKET_LUA, bucket_keys, caller_identity, is_write, retry_after_seconds

from .auth import matched_key
from .errors import ElfError, error_response
from .runtime import get_config

LIMITED_PREFIXES = ("/v2/", "/v1/", "/api/v1/")
# Redis answers in well under a millisecond on the same host: a store slower than this counts as down.
STORE_TIMEOUT_S = 0.25
STORE_RETRY_AFTER_S = 5.0  # a failed store is skipped (requests go through) this long before it is tried again
WARN_EVERY_S = 60.0

log = logging.getLogger("elf.rate_limit")


class RateLimited(ElfError):
    status, error_code = 429, "RATE_LIMITED"


class TokenBuckets:
    """The Redis side: ``wait_ms`` spends a token (0) or says how long until one is there; None when the store
    is unavailable (fail open)."""

    def __init__(self, limits: RateLimitsConfig, url: str):
        self.limits = limits
        client = redis.Redis.from_url(url, socket_timeout=STORE_TIMEOUT_S, socket_connect_timeout=STORE_TIMEOUT_S,
                                      retry=Retry(NoBackoff(), 0))
        self.script = client.register_script(TOKEN_BUCKET_LUA)
        self._lock = threading.Lock()
        self._skip_until = 0.0
        self._next_warning = 0.0

    def _args(self, write: bool) -> list[float]:
        args = [self.limits.requests_per_second, self.limits.burst]
        if write:
            args += [self.limits.write_requests_per_second, self.limits.write_burst]
        return args

    def wait_ms(self, identity: str, *, write: bool) -> int | None:
        if time.monotonic() < self._skip_until:
            return None
        write = write and self.limits.has_write_budget
        try:
            return int(self.script(keys=bucket_keys(identity, write=write), args=self._args(write)))
        except (redis.RedisError, OSError) as exc:
            self._store_down(exc)
            return None

    def _store_down(self, exc: Exception) -> None:
        now = time.monotonic()
        with self._lock:
            self._skip_until = now + STORE_RETRY_AFTER_S
            warn = now >= self._next_warning
            if warn:
                self._next_warning = now + WARN_EVERY_S
        if warn:
            log.warning("rate limiter store unavailable, requests are not rate limited: %s: %s",
                        type(exc).__name__, exc)


def caller_of(request) -> str:
    """The identity whose buckets a request spends (elf_domain.rate_limits.caller_identity)."""
    key = matched_key(request)
    context = (request.headers.get(TENANT), request.headers.get(PROJECT), request.headers.get(AGENT))
    return caller_identity(key.token_id if key else None, context, request.META.get("REMOTE_ADDR"))


class RateLimitMiddleware:
    def __init__(self, get_response):
        cfg = get_config()
        limits = cfg.security.rate_limits
        if limits is None:
            raise MiddlewareNotUsed("no [security.rate_limits]")
        self.get_response = get_response
        self.buckets = TokenBuckets(limits, limits.redis_url or cfg.worker.broker_url)

    def __call__(self, request):
        if request.path_info.startswith(LIMITED_PREFIXES):
            wait = self.buckets.wait_ms(caller_of(request), write=is_write(request.method))
            if wait:
                seconds = retry_after_seconds(wait)
                response = error_response(RateLimited(
                    f"Rate limit exceeded for this caller; retry after {seconds} second{'s' * (seconds != 1)}."))
                response["Retry-After"] = str(seconds)
                return response
        return self.get_response(request)
