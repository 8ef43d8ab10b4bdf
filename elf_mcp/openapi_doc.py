"""elf-api's OpenAPI documents, read from the checked-in ``openapi.json`` next to this module, and the
arguments of one operation as a JSON Schema object.

``openapi.json`` is ``{"public": <document>, "admin": <document>}``, one document per listener, written by
``manage.py -c elf.toml export_openapi`` (a test fails when it is stale). Reading it needs neither Django
nor the API's code, which is what keeps elf-mcp a plain HTTP client of the API.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from .json_schema import to_json_schema

OPENAPI_FILE = "openapi.json"
BODY_METHODS = ("POST", "PATCH", "PUT")
JSON = "application/json"
# Set by elf_kernel.api.openapi_schema on operations whose query serializer rejects unknown parameters
# (OpenAPI 3.0 cannot say that of a query string).
STRICT_QUERY = "x-elf-strict-query"


@cache
def documents() -> dict[str, dict[str, Any]]:
    """The OpenAPI document of each bind ("public", "admin"), as checked in."""
    text = resources.files(__package__).joinpath(OPENAPI_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def operation(doc: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    """The operation object of ``method path``; KeyError naming it when the document has none."""
    op = doc.get("paths", {}).get(path, {}).get(method.lower())
    if op is None:
        raise KeyError(f"the OpenAPI document has no {method} {path}; regenerate {OPENAPI_FILE} or fix the tool")
    return op


def path_parameter_names(op: dict[str, Any]) -> list[str]:
    return [p["name"] for p in op.get("parameters", []) if p["in"] == "path"]


def arguments_schema(doc: dict[str, Any], method: str, op: dict[str, Any]) -> dict[str, Any]:
    """The object schema of what a caller sends besides path parameters and headers: the JSON request body
    for POST/PATCH/PUT, the query parameters otherwise."""
    components = doc.get("components", {}).get("schemas", {})
    if method in BODY_METHODS:
        body = op.get("requestBody", {}).get("content", {}).get(JSON)
        if body is None:
            return {"type": "object", "properties": {}}
        schema = to_json_schema(body["schema"], components)
        if schema.get("type") != "object" or "properties" not in schema:
            raise ValueError(f"the {method} body is not an object with properties: {schema}")
        return schema
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in op.get("parameters", []):
        if p["in"] != "query":
            continue
        prop = to_json_schema(p.get("schema", {}), components)
        if p.get("description"):
            prop["description"] = p["description"]
        properties[p["name"]] = prop
        if p.get("required"):
            required.append(p["name"])
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if op.get(STRICT_QUERY):
        schema["additionalProperties"] = False
    return schema
