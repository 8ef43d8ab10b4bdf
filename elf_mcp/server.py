"""The MCP server: the official SDK's low-level ``Server`` (the tool schemas are ours, built from the API's
OpenAPI documents, so no function-signature introspection is wanted) behind its Streamable HTTP app at /mcp."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx2
import mcp_types as types
from mcp.server.lowlevel import Server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .forward import UNKNOWN_TOOL, forward, http_client, tool_error
from .tool_spec import ToolSpec
from .upstream import Upstream

MCP_PATH = "/mcp"
SERVER_NAME = "elf-mcp"


@dataclass
class _State:
    client: httpx2.AsyncClient


def instructions(upstream: Upstream) -> str:
    return (
        "ELF is your long-term memory of short English facts (notes). Before answering something that may "
        "depend on what was remembered, search with elf_searches_create, then read the notes you need with "
        "elf_searches_notes. Store what you learn with elf_notes_ingest (facts you formulate) or "
        "elf_events_ingest (facts quoted from a conversation). Before each turn, load the user's core memory "
        "(preferences, this run's goal, the operator's rules) with elf_core_memory_resolve and your run_id, and "
        "pass a user's 'remember that ...' or 'forget ...' to elf_core_memory_utterance. Record every message, "
        "tool call, tool result, decision and task update of a conversation with elf_acb_record_event (same "
        "session_id throughout), and before each LLM call build its context with elf_acb_build, query_text being "
        "the user's latest request. All text must be English. "
        f"You act as agent {upstream.agent_id!r} in project {upstream.project_id!r} of tenant "
        f"{upstream.tenant_id!r}; searches read the {upstream.read_profile} scopes unless a call says otherwise. "
        "Errors carry error_code, message, fields (JSONPaths) and http_status."
    )


def build_server(upstream: Upstream, tools: list[ToolSpec]) -> Server:
    by_name = {t.name: t for t in tools}
    if len(by_name) != len(tools):
        raise ValueError("duplicate tool names")
    listed = [t.mcp_tool(upstream.admin_disabled_reason if t.bind == "admin" else None) for t in tools]
    schemas = {t.name: t.input_schema for t in listed}

    @asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[_State]:
        async with http_client() as client:
            yield _State(client)

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = by_name.get(params.name)
        if spec is None:
            return tool_error(UNKNOWN_TOOL, f"No tool named {params.name!r}; tools/list names them all.")
        return await forward(ctx.lifespan_context.client, upstream, spec, params.arguments)

    return Server(
        SERVER_NAME, version=_version(), instructions=instructions(upstream), lifespan=lifespan,
        get_tool_input_schema=schemas.get, on_list_tools=list_tools, on_call_tool=call_tool,
    )


def build_app(upstream: Upstream, tools: list[ToolSpec], host: str) -> Starlette:
    server = build_server(upstream, tools)

    async def health(_request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "tools": len(tools)})

    # Stateless and plain JSON answers: every call is one independent forward, so there is no session to keep
    # and nothing to stream; a restarted elf-mcp never strands a client's session.
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host,
        custom_starlette_routes=[Route("/health", health, methods=["GET"])],
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("elf-memory")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "0"
