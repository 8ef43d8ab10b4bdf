"""One MCP tool = one elf-api endpoint: which listener, method and path, and which serializer shapes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types
from rest_framework import serializers

from elf_domain.vocabulary import READ_PROFILES

from .serializer_schema import serializer_schema

PUBLIC, ADMIN = "public", "admin"
BODY_METHODS = ("POST", "PATCH", "PUT")
READ_PROFILE_ARG = "read_profile"


@dataclass(frozen=True)
class Param:
    """A path parameter, or a query parameter that no serializer describes."""

    name: str
    schema: dict[str, Any]
    description: str


@dataclass(frozen=True)
class ToolSpec:
    """``body`` is the JSON body serializer (POST/PATCH); ``query`` the query-string serializer (GET), and
    ``query_params`` query parameters the view reads without one. ``read_profile_override``: the tool takes an optional ``read_profile`` argument that replaces
    ``[mcp].read_profile`` in X-ELF-Read-Profile for that one call (search creation)."""

    name: str
    title: str
    description: str
    bind: Literal["public", "admin"]
    method: str
    path: str
    path_params: tuple[Param, ...] = ()
    body: type[serializers.Serializer] | None = None
    query: type[serializers.Serializer] | None = None
    query_params: tuple[Param, ...] = ()
    read_profile_override: bool = False
    read_only: bool = False
    destructive: bool = False

    def __post_init__(self) -> None:
        if self.body is not None and self.method not in BODY_METHODS:
            raise ValueError(f"{self.name}: a body needs POST/PATCH/PUT, not {self.method}")
        if (self.query is not None or self.query_params) and self.method in BODY_METHODS:
            raise ValueError(f"{self.name}: query parameters are for GET/DELETE tools")
        for p in self.path_params:
            if "{" + p.name + "}" not in self.path:
                raise ValueError(f"{self.name}: path {self.path} has no {{{p.name}}}")

    def input_schema(self) -> dict[str, Any]:
        shape = self.body or self.query
        base = serializer_schema(shape) if shape is not None else {"type": "object", "properties": {}}
        extra = [*self.path_params, *self.query_params]
        names = [p.name for p in extra] + list(base["properties"]) + ([READ_PROFILE_ARG] * self.read_profile_override)
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: an argument name is used twice in {names}")
        properties = {p.name: {**p.schema, "description": p.description} for p in self.path_params}
        properties.update(base["properties"])
        properties.update({p.name: {**p.schema, "description": p.description} for p in self.query_params})
        if self.read_profile_override:
            properties[READ_PROFILE_ARG] = {
                "type": "string", "enum": list(READ_PROFILES),
                "description": "Scopes this search reads (sent as X-ELF-Read-Profile). Omit to use the server's "
                "configured [mcp].read_profile.",
            }
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        required = [p.name for p in self.path_params] + base.get("required", [])
        if required:
            schema["required"] = required
        if base.get("additionalProperties") is False:
            schema["additionalProperties"] = False
        return schema

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
