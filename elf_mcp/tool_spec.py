"""One MCP tool = one elf-api operation: which listener, method and path. Its input schema is that
operation's in the API's OpenAPI document (elf_mcp/openapi.json)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import mcp_types as types

from elf_domain.vocabulary import READ_PROFILES

from .openapi_doc import BODY_METHODS, arguments_schema, documents, operation, path_parameter_names

PUBLIC, ADMIN = "public", "admin"
READ_PROFILE_ARG = "read_profile"
# The [mcp] context a body_context tool fills into its JSON body or query string when the caller leaves it out
# (elf_mcp.forward); each is an attribute of the same name on Upstream. tenant_id is the one that must be there.
CONTEXT_ARGS = ("tenant_id", "project_id", "agent_id")
TENANT_ARG = "tenant_id"
CONTEXT_ARG_DESCRIPTIONS = {
    "tenant_id": "Optional: elf-mcp fills in its own [mcp].tenant_id. elf-mcp acts for that one tenant: any "
    "other value is refused (ELF_MCP_TENANT_MISMATCH) without calling the API.",
    "project_id": "Optional: elf-mcp fills in its own [mcp].project_id (the ELF project whose event log, notes and "
    "core memory the call reads or writes); any other value is refused (ELF_MCP_CONTEXT_MISMATCH).",
    "agent_id": "Optional: elf-mcp fills in its own [mcp].agent_id (the agent recorded as writing the event or "
    "building the bundle); any other value is refused (ELF_MCP_CONTEXT_MISMATCH).",
}

__all__ = ["ADMIN", "BODY_METHODS", "CONTEXT_ARGS", "PUBLIC", "READ_PROFILE_ARG", "TENANT_ARG", "Param", "ToolSpec"]


@dataclass(frozen=True)
class Param:
    """A path parameter in the tool's own words (the OpenAPI document describes path parameters by type only;
    tests/mcp/test_mcp_schemas.py checks that the types agree)."""

    name: str
    schema: dict[str, Any]
    description: str


@dataclass(frozen=True)
class ToolSpec:
    """A tool forwarded to ``method path`` on the ``bind`` listener. Its arguments: ``path_params``, then the
    operation's JSON body (POST/PATCH/PUT) or query parameters (GET/DELETE) as the OpenAPI document describes
    them. ``read_profile_override``: the tool also takes an optional ``read_profile`` argument that replaces
    ``[mcp].read_profile`` in X-ELF-Read-Profile for that one call (search creation).
    ``read_profile_in_body``: the operation takes ``read_profile`` in its JSON body (the v1 search); the tool's
    argument is optional, and forward() sends ``[mcp].read_profile`` when the caller leaves it out (one given is
    sent as given: a per-call choice, as with ``read_profile_override``; with static keys elf-api refuses one the
    key does not allow).

    ``body_context``: the operation takes the caller's context in its body or query (the /api/v1 event log and
    bundle endpoints, agent-memory-acb-prd 9.3) rather than from the X-ELF-* headers alone. Those of
    CONTEXT_ARGS that the operation has (``context_args()``; tenant_id at least) become optional arguments:
    forward() fills in the [mcp] value of each one the caller omits (or passes as null), and refuses a
    tenant_id other than elf-mcp's own. session_id is the caller's conversation: never filled in."""

    name: str
    title: str
    description: str
    bind: Literal["public", "admin"]
    method: str
    path: str
    path_params: tuple[Param, ...] = ()
    read_profile_override: bool = False
    read_profile_in_body: bool = False
    body_context: bool = False
    read_only: bool = False
    destructive: bool = False

    def __post_init__(self) -> None:
        for p in self.path_params:
            if "{" + p.name + "}" not in self.path:
                raise ValueError(f"{self.name}: path {self.path} has no {{{p.name}}}")

    def input_schema(self, docs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """The tool's arguments as JSON Schema: path parameters, then the operation's body or query
        parameters from ``docs`` (default: the checked-in OpenAPI documents), then ``read_profile``."""
        doc = (docs or documents())[self.bind]
        op = operation(doc, self.method, self.path)
        if sorted(path_parameter_names(op)) != sorted(p.name for p in self.path_params):
            raise ValueError(f"{self.name}: path parameters {path_parameter_names(op)} of {self.method} {self.path} "
                             f"are not the tool's {[p.name for p in self.path_params]}")
        base = arguments_schema(doc, self.method, op)
        names = [p.name for p in self.path_params] + list(base["properties"])
        names += [READ_PROFILE_ARG] * self.read_profile_override
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: an argument name is used twice in {names}")
        properties = {p.name: {**p.schema, "description": p.description} for p in self.path_params}
        properties.update(base["properties"])
        context = _context_names(self._label(), base) if self.body_context else ()
        for name in context:
            properties[name] = {**properties[name], "description": CONTEXT_ARG_DESCRIPTIONS[name]}
        if self.read_profile_override:
            properties[READ_PROFILE_ARG] = {
                "type": "string", "enum": list(READ_PROFILES),
                "description": "Scopes this search reads (sent as X-ELF-Read-Profile). Omit to use the server's "
                "configured [mcp].read_profile.",
            }
        if self.read_profile_in_body:
            if READ_PROFILE_ARG not in base["properties"]:
                raise ValueError(
                    f"{self._label()}: read_profile_in_body, but the operation takes no {READ_PROFILE_ARG}"
                )
            properties[READ_PROFILE_ARG] = {
                "type": "string",
                "enum": list(READ_PROFILES),
                "description": "Scopes this search reads. Omit to use the server's configured [mcp].read_profile.",
            }
        filled = {*context, *([READ_PROFILE_ARG] * self.read_profile_in_body)}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        required = [p.name for p in self.path_params] + [n for n in base.get("required", []) if n not in filled]
        if required:
            schema["required"] = required
        if base.get("additionalProperties") is False:
            schema["additionalProperties"] = False
        return schema

    def context_args(self) -> tuple[str, ...]:
        """Which of CONTEXT_ARGS forward() fills in for this tool (none without ``body_context``), read from the
        checked-in OpenAPI document once per operation."""
        return _operation_context_args(self.bind, self.method, self.path, self._label()) if self.body_context else ()

    def _label(self) -> str:
        return f"{self.name} ({self.method} {self.path})"

    def mcp_tool(self, disabled_reason: str | None = None) -> types.Tool:
        description = self.description
        if disabled_reason:
            description = f"DISABLED in this elf-mcp configuration ({disabled_reason}). {description}"
        return types.Tool(
            name=self.name,
            title=self.title,
            description=description,
            input_schema=self.input_schema(),
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.read_only,
                destructive_hint=self.destructive if not self.read_only else None,
                open_world_hint=False,
            ),
        )


def _context_names(label: str, arguments: dict[str, Any]) -> tuple[str, ...]:
    """CONTEXT_ARGS among an operation's ``arguments`` (its arguments_schema); tenant_id must be one of them."""
    names = tuple(n for n in CONTEXT_ARGS if n in arguments["properties"])
    if TENANT_ARG not in names:
        raise ValueError(f"{label}: body_context, but the operation takes no {TENANT_ARG} in its body or query")
    return names


@cache
def _operation_context_args(bind: str, method: str, path: str, label: str) -> tuple[str, ...]:
    doc = documents()[bind]
    return _context_names(label, arguments_schema(doc, method, operation(doc, method, path)))
