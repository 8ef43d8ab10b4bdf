"""A tool call becomes one HTTP request to elf-api; the answer becomes the tool result. Nothing else.

The arguments are not checked here: path parameters go into the URL, ``read_profile`` (on the tools that
take it) into X-ELF-Read-Profile, and everything else, untouched, into the JSON body (POST/PATCH) or the
query string (GET/DELETE; a null argument is left out, since a query string cannot carry null). elf-api
validates and answers; its error body comes back as a tool error with the HTTP status added.

One addition, on ``body_context`` tools only (the /api/v1 endpoints that take the caller's context in the body
or query): each of the operation's tenant_id, project_id and agent_id the caller omits (or passes as null) is
set from [mcp], and a tenant_id, project_id or agent_id other than elf-mcp's own is refused here, unsent: elf-mcp
acts for one identity (with static keys elf-api refuses it too, 403). And on ``read_profile_in_body`` tools (the
v1 search, which takes its read profile in the body): a read_profile the caller omits is [mcp].read_profile.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx2
import mcp_types as types

from .tool_spec import BODY_METHODS, READ_PROFILE_ARG, TENANT_ARG, ToolSpec
from .upstream import Upstream

# Stable codes for failures that happen before or instead of an elf-api answer.
API_UNAVAILABLE = "ELF_API_UNAVAILABLE"  # could not connect: nothing reached elf-api
API_TIMEOUT = "ELF_API_TIMEOUT"  # sent, but no answer in time: the call may or may not have taken effect
API_BAD_RESPONSE = "ELF_API_BAD_RESPONSE"  # an answer without the {error_code, message, fields} body
TOOL_DISABLED = "ELF_MCP_TOOL_DISABLED"  # the capability is off in this elf-mcp configuration
UNKNOWN_TOOL = "ELF_MCP_UNKNOWN_TOOL"
MISSING_PATH_PARAM = "ELF_MCP_MISSING_PATH_PARAM"  # the URL cannot be built without it
UNSENDABLE_REQUEST = "ELF_MCP_UNSENDABLE_REQUEST"  # HTTP cannot carry an argument (e.g. a newline in a header)
TENANT_MISMATCH = "ELF_MCP_TENANT_MISMATCH"  # a body_context call named another tenant than [mcp].tenant_id
CONTEXT_MISMATCH = "ELF_MCP_CONTEXT_MISMATCH"  # ... another project or agent than [mcp]'s

CONNECT_TIMEOUT_S = 5.0
# A little beyond elf-api's own request timeout (120 s, elf_project.entrypoints.api), so that a slow call
# ends with elf-api's answer rather than ours.
READ_TIMEOUT_S = 130.0


def http_client() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(timeout=httpx2.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S))


def tool_error(error_code: str, message: str, fields: list[str] | None = None, **extra: Any) -> types.CallToolResult:
    return _result({"error_code": error_code, "message": message, "fields": fields or [], **extra}, is_error=True)


def _result(payload: Any, *, is_error: bool) -> types.CallToolResult:
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=payload if isinstance(payload, dict) else None,
        is_error=is_error,
    )


def _query_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value)  # true/false, numbers, and JSON for anything structured


async def forward(client: httpx2.AsyncClient, upstream: Upstream, spec: ToolSpec,
                  arguments: dict[str, Any] | None) -> types.CallToolResult:
    if spec.bind == "admin" and upstream.admin_disabled_reason:
        return tool_error(TOOL_DISABLED, f"{spec.name} is disabled: {upstream.admin_disabled_reason}.")
    args = dict(arguments or {})
    segments = {}
    for p in spec.path_params:
        value = args.pop(p.name, None)
        if value is None or value == "":
            return tool_error(MISSING_PATH_PARAM, f"{p.name} is required: it is part of the URL.", [f"$.{p.name}"])
        segments[p.name] = quote(str(value), safe="")
    refused = _fill_context(spec, upstream, args)
    if refused is not None:
        return refused
    read_profile = args.pop(READ_PROFILE_ARG, None) if spec.read_profile_override else None
    if spec.read_profile_in_body and args.get(READ_PROFILE_ARG) is None:
        args[READ_PROFILE_ARG] = upstream.read_profile
    url = upstream.base_url(spec.bind) + spec.path.format(**segments)
    request: dict[str, Any] = {}
    if spec.method in BODY_METHODS:
        request["json"] = args
    elif args:
        request["params"] = {k: _query_value(v) for k, v in args.items() if v is not None}
    try:
        # UTF-8 on the wire, as elf-api reads the context headers (it answers for values it does not accept).
        headers = {k: v.encode("utf-8") for k, v in upstream.headers(read_profile).items()}
        response = await client.request(spec.method, url, headers=headers, **request)
    except httpx2.TimeoutException as exc:
        if isinstance(exc, httpx2.ConnectTimeout):
            return tool_error(API_UNAVAILABLE, f"elf-api at {url} did not accept a connection in time.")
        return tool_error(API_TIMEOUT, f"elf-api at {url} did not answer within {READ_TIMEOUT_S:.0f} s; the call "
                          "may or may not have taken effect.")
    except (httpx2.LocalProtocolError, ValueError, UnicodeError) as exc:  # refused on our side: never sent
        return tool_error(UNSENDABLE_REQUEST, f"the request cannot be sent over HTTP: {exc}.")
    except httpx2.RequestError as exc:
        return tool_error(API_UNAVAILABLE, f"elf-api is unreachable at {url}: {exc.__class__.__name__}.")
    return _from_response(response)


def _fill_context(spec: ToolSpec, upstream: Upstream, args: dict[str, Any]) -> types.CallToolResult | None:
    """Set the [mcp] value of each context argument the caller left out; a tool error for another identity's."""
    for name in spec.context_args():
        own = getattr(upstream, name)
        given = args.get(name)
        if given is None:
            args[name] = own
        elif given != own:
            code = TENANT_MISMATCH if name == TENANT_ARG else CONTEXT_MISMATCH
            return tool_error(code, f"{name} {given!r} is not this elf-mcp's {own!r}: it acts for that one "
                              f"identity only. Omit {name} (it is filled in).", [f"$.{name}"])
    return None


def _is_json(response: httpx2.Response) -> bool:
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    return media_type == "application/json" or media_type.endswith("+json")


def _from_response(response: httpx2.Response) -> types.CallToolResult:
    # A success body of another media type (text/markdown, JSON lines) is passed through as text, even when it
    # happens to parse as JSON (a one-line JSON lines body does).
    try:
        payload = response.json() if _is_json(response) or not response.is_success else None
    except ValueError:
        payload = None
    if response.is_success:
        return _result(payload if payload is not None else response.text, is_error=False)
    if isinstance(payload, dict) and "error_code" in payload:
        return _result({**payload, "http_status": response.status_code}, is_error=True)
    return tool_error(API_BAD_RESPONSE, f"elf-api answered HTTP {response.status_code} without an error body.",
                      http_status=response.status_code, body=response.text[:2000])
