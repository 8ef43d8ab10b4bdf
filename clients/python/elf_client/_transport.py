"""HTTP for both clients: the client's settings, one call's description, and sending it with retries."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

import httpx

from ._errors import ElfError
from ._operations import OPERATIONS, READ_PROFILE_OPERATIONS
from ._retry import RetryPolicy, parse_retry_after

log = logging.getLogger("elf_client")

TENANT, PROJECT, AGENT, READ_PROFILE = "X-ELF-Tenant-Id", "X-ELF-Project-Id", "X-ELF-Agent-Id", "X-ELF-Read-Profile"
USER_AGENT = "elf-client-python/0.1.0"


@dataclass(frozen=True)
class ClientConfig:
    """Everything a client is set up with once.

    ``tenant_id``/``project_id``/``agent_id`` go out as the ``X-ELF-*`` context headers of every request (and as
    the caller ids the event log's ``/api/v1`` bodies and queries take). With ``security.auth_mode =
    "static_keys"`` the ``token`` is sent as ``Authorization: Bearer <token>`` and the key fixes the context:
    leave the ids out (or repeat the key's). ``read_profile`` is sent on the calls that take
    ``X-ELF-Read-Profile`` (search sessions).
    """

    base_url: str = "http://127.0.0.1:8089"
    tenant_id: str | None = None
    project_id: str | None = None
    agent_id: str | None = None
    read_profile: str | None = "private_plus_project"
    token: str | None = None
    timeout: float = 30.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    headers: Mapping[str, str] = field(default_factory=dict)

    def with_context(self, **changes: Any) -> ClientConfig:
        return replace(self, **changes)

    def base_headers(self) -> dict[str, str]:
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **dict(self.headers)}
        for name, value in ((TENANT, self.tenant_id), (PROJECT, self.project_id), (AGENT, self.agent_id)):
            if value is not None:
                headers[name] = value
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def caller_ids(self) -> dict[str, str]:
        """The caller ids the event log's bodies and queries state (those that are set)."""
        ids = {"tenant_id": self.tenant_id, "project_id": self.project_id, "agent_id": self.agent_id}
        return {k: v for k, v in ids.items() if v is not None}


@dataclass
class Call:
    """One operation of the API (by operationId) with its arguments."""

    operation: str
    path: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, Any] | None = None
    json: Any = None
    headers: Mapping[str, str] | None = None
    read_profile: str | None = None
    expect: str = "json"  # json | ndjson

    def url_path(self) -> str:
        method, template = OPERATIONS[self.operation]
        path = template
        for name, value in self.path.items():
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        return path


def _query(params: Mapping[str, Any] | None) -> dict[str, str] | None:
    if not params:
        return None
    out = {}
    for k, v in params.items():
        if v is None:
            continue
        out[k] = ("true" if v else "false") if isinstance(v, bool) else str(v)
    return out


def build_request(client: httpx.Client | httpx.AsyncClient, config: ClientConfig, call: Call) -> httpx.Request:
    method = OPERATIONS[call.operation][0]
    headers = config.base_headers()
    if call.operation in READ_PROFILE_OPERATIONS:
        profile = call.read_profile or config.read_profile
        if profile is not None:
            headers[READ_PROFILE] = profile
    if call.headers:
        headers.update(call.headers)
    kwargs: dict[str, Any] = {"params": _query(call.params), "headers": headers}
    if call.json is not None:
        kwargs["content"] = json.dumps(call.json, ensure_ascii=False, allow_nan=False).encode("utf-8")
        headers["Content-Type"] = "application/json"
    return client.build_request(method, call.url_path(), **kwargs)


def parse_response(response: httpx.Response, call: Call) -> Any:
    if response.is_success:
        if call.expect == "ndjson":
            return [json.loads(line) for line in response.text.splitlines() if line.strip()]
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            request = response.request
            raise ElfError(response.status_code, "INVALID_RESPONSE", "The answer is not JSON: " + response.text[:200],
                           method=request.method, url=str(request.url), body=response.text) from None
    raise error_of(response)


def error_of(response: httpx.Response) -> ElfError:
    request = response.request
    retry_after = parse_retry_after(response.headers.get("Retry-After"))
    body: Any
    try:
        body = response.json()
    except ValueError:
        body = response.text
    if isinstance(body, dict) and isinstance(body.get("error_code"), str):
        fields = body.get("fields")
        return ElfError(response.status_code, body["error_code"], str(body.get("message", "")),
                        fields if isinstance(fields, list) else [], retry_after=retry_after, method=request.method,
                        url=str(request.url), body=body)
    text = body if isinstance(body, str) else json.dumps(body)
    return ElfError(response.status_code, f"HTTP_{response.status_code}", text[:1000] or response.reason_phrase,
                    retry_after=retry_after, method=request.method, url=str(request.url), body=body)


def transport_error(exc: httpx.TransportError, request: httpx.Request) -> ElfError:
    code = "TIMEOUT" if isinstance(exc, httpx.TimeoutException) else "CONNECTION_ERROR"
    if isinstance(exc, httpx.ConnectTimeout):
        code = "CONNECTION_ERROR"  # never reached the service: as safe to repeat as a refused connection
    return ElfError(None, code, f"{type(exc).__name__}: {exc}", method=request.method, url=str(request.url))


def _client_kwargs(config: ClientConfig) -> dict[str, Any]:
    return {"base_url": config.base_url.rstrip("/"), "timeout": config.timeout}


class SyncTransport:
    def __init__(self, config: ClientConfig, http: httpx.Client | None = None,
                 transport: httpx.BaseTransport | None = None):
        self.config = config
        self.owns_http = http is None
        self.http = http or httpx.Client(transport=transport, **_client_kwargs(config))

    def derive(self, config: ClientConfig) -> SyncTransport:
        """The same connection pool under other settings (closing the derived one leaves the pool open)."""
        other = SyncTransport(config, self.http)
        return other

    def send(self, call: Call) -> Any:
        policy = self.config.retry
        attempt = 0
        while True:
            attempt += 1
            request = build_request(self.http, self.config, call)
            try:
                return parse_response(self.http.send(request), call)
            except httpx.TransportError as exc:
                error = transport_error(exc, request)
            except ElfError as exc:
                error = exc
            delay = policy.delay(attempt, error)
            if delay is None:
                raise error
            _announce(policy, attempt, delay, error)
            time.sleep(delay)

    def close(self) -> None:
        if self.owns_http:
            self.http.close()


class AsyncTransport:
    def __init__(self, config: ClientConfig, http: httpx.AsyncClient | None = None,
                 transport: httpx.AsyncBaseTransport | None = None):
        self.config = config
        self.owns_http = http is None
        self.http = http or httpx.AsyncClient(transport=transport, **_client_kwargs(config))

    def derive(self, config: ClientConfig) -> AsyncTransport:
        return AsyncTransport(config, self.http)

    async def send(self, call: Call) -> Any:
        policy = self.config.retry
        attempt = 0
        while True:
            attempt += 1
            request = build_request(self.http, self.config, call)
            try:
                return parse_response(await self.http.send(request), call)
            except httpx.TransportError as exc:
                error = transport_error(exc, request)
            except ElfError as exc:
                error = exc
            delay = policy.delay(attempt, error)
            if delay is None:
                raise error
            _announce(policy, attempt, delay, error)
            await asyncio.sleep(delay)

    async def aclose(self) -> None:
        if self.owns_http:
            await self.http.aclose()


def _announce(policy: RetryPolicy, attempt: int, delay: float, error: ElfError) -> None:
    log.info("ELF call failed (%s), attempt %d of %d; retrying in %.2fs", error.error_code, attempt,
             policy.max_attempts, delay)
    if policy.on_retry is not None:
        policy.on_retry(attempt, delay, error)
