"""OpenAPI 3.0 schema objects, as drf-spectacular writes them, to self-contained JSON Schema 2020-12.

A tool's input schema must stand alone (MCP clients get no ``components``), so every ``$ref`` is inlined.
Where the two dialects differ the OpenAPI form is rewritten: ``nullable: true`` becomes a ``"null"`` type
(and a ``None`` enum member), boolean ``exclusiveMinimum``/``exclusiveMaximum`` become numbers, the numeric
formats JSON Schema does not define (double, int64, ...) are dropped, ``example`` becomes ``examples``, and
``readOnly`` properties are left out (a caller cannot send them). Anything else this module does not know
raises ``UnmappableSchema`` rather than being passed on half-understood.
"""

from __future__ import annotations

import copy
from typing import Any

REF_PREFIX = "#/components/schemas/"
# Same meaning in OpenAPI 3.0 and JSON Schema 2020-12: copied as they are.
PLAIN = frozenset({
    "type", "enum", "default", "description", "title", "minimum", "maximum", "multipleOf", "minLength",
    "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "deprecated",
})
# OpenAPI's data-type formats; JSON Schema has no such format and "type" already says integer or number.
OPENAPI_ONLY_FORMATS = frozenset({"int32", "int64", "float", "double"})
# Meaningful to OpenAPI tooling only: a tool caller neither sends nor needs them.
IGNORED = frozenset({"writeOnly", "externalDocs", "xml"})


class UnmappableSchema(ValueError):
    """The OpenAPI schema uses a shape this converter cannot express faithfully."""


def to_json_schema(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema 2020-12 for the OpenAPI 3.0 ``schema``; ``components`` is the document's
    ``components.schemas``, which every ``$ref`` must point into."""
    return _convert(schema, components, "#", ())


def _convert(node: Any, components: dict[str, Any], where: str, refs: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise UnmappableSchema(f"{where}: a schema must be an object, not {node!r}")
    rest = dict(node)
    nullable = rest.pop("nullable", False)
    base: dict[str, Any] = {}
    if "$ref" in rest:
        base = _inline(rest.pop("$ref"), components, where, refs)
    elif "allOf" in rest:
        # drf-spectacular wraps a $ref in a one-element allOf to give it a description, default or nullable.
        parts = rest.pop("allOf")
        if not isinstance(parts, list) or len(parts) != 1:
            raise UnmappableSchema(f"{where}: allOf with {len(parts)} schemas cannot be flattened into one")
        base = _convert(parts[0], components, f"{where}/allOf/0", refs)
    out = {**base, **_keywords(rest, components, where, refs)}
    return _nullable(out) if nullable else out


def _inline(ref: Any, components: dict[str, Any], where: str, refs: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(ref, str) or not ref.startswith(REF_PREFIX):
        raise UnmappableSchema(f"{where}: $ref {ref!r} does not point into components.schemas")
    name = ref[len(REF_PREFIX):]
    if name in refs:
        raise UnmappableSchema(f"{where}: $ref {ref!r} is recursive and cannot be inlined")
    if name not in components:
        raise UnmappableSchema(f"{where}: $ref {ref!r} names no component")
    return _convert(components[name], components, ref, (*refs, name))


def _keywords(node: dict[str, Any], components: dict[str, Any], where: str,
              refs: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        at = f"{where}/{key}"
        if key in PLAIN:
            out[key] = copy.deepcopy(value)
        elif key == "format":
            if value not in OPENAPI_ONLY_FORMATS:
                out[key] = value
        elif key == "properties":
            out[key] = {name: _convert(prop, components, f"{at}/{name}", refs)
                        for name, prop in value.items() if not _read_only(prop)}
        elif key == "required":
            hidden = {name for name, prop in node.get("properties", {}).items() if _read_only(prop)}
            required = [name for name in value if name not in hidden]
            if required:
                out[key] = required
        elif key == "items":
            out[key] = _convert(value, components, at, refs)
        elif key == "additionalProperties":
            out[key] = value if isinstance(value, bool) else _convert(value, components, at, refs)
        elif key in ("oneOf", "anyOf"):
            out.update(_alternatives(key, [_convert(v, components, f"{at}/{i}", refs) for i, v in enumerate(value)]))
        elif key in ("exclusiveMinimum", "exclusiveMaximum"):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            if value is True and bound in node:
                out[key] = node[bound]  # 2020-12: the exclusive bound is the number itself
        elif key == "example":
            out["examples"] = [copy.deepcopy(value)]
        elif key in IGNORED or key == "readOnly" or key.startswith("x-"):
            continue
        else:
            raise UnmappableSchema(f"{at}: no JSON Schema mapping for the OpenAPI keyword {key!r}")
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if key in out:  # the inclusive bound it replaces must not stay next to it
            out.pop("minimum" if key == "exclusiveMinimum" else "maximum", None)
    return out


def _alternatives(key: str, branches: list[dict[str, Any]]) -> dict[str, Any]:
    """A oneOf/anyOf of plain enums (drf-spectacular's nullable or blankable choice: ``[Enum, NullEnum]``)
    becomes one enum; any other alternatives stay alternatives."""
    if branches and all(set(b) <= {"type", "enum", "description"} and "enum" in b for b in branches):
        values: list[Any] = []
        types: list[str] = []
        for b in branches:
            values += [v for v in b["enum"] if v not in values]
            for t in _types(b):
                if t not in types:
                    types.append(t)
        merged: dict[str, Any] = {"enum": values}
        if types:
            merged["type"] = types[0] if len(types) == 1 else types
        return merged
    return {key: branches}


def _types(branch: dict[str, Any]) -> list[str]:
    if "type" in branch:
        return [branch["type"]] if isinstance(branch["type"], str) else list(branch["type"])
    return ["null"] if branch["enum"] == [None] else []


def _read_only(prop: Any) -> bool:
    return isinstance(prop, dict) and prop.get("readOnly") is True


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Let ``schema`` accept null too. A schema without "type" and "enum" accepts null already."""
    out = dict(schema)
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    if "type" in out:
        types = [out["type"]] if isinstance(out["type"], str) else list(out["type"])
        out["type"] = types if "null" in types else [*types, "null"]
    elif "oneOf" in out or "anyOf" in out:
        key = "oneOf" if "oneOf" in out else "anyOf"
        out[key] = [*out[key], {"type": "null"}]
    return out
