"""elf_mcp.json_schema: OpenAPI 3.0 schemas (drf-spectacular's shapes) to self-contained JSON Schema
2020-12, and refusal of what it cannot map. Pure functions: no Django, no stack."""

from __future__ import annotations

import pytest

from elf_mcp.json_schema import UnmappableSchema, to_json_schema
from elf_mcp.openapi_doc import arguments_schema, operation

COMPONENTS = {
    "Inner": {
        "type": "object",
        "description": "An inner object.",
        "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 9, "description": "a digit"}},
        "required": ["n"],
        "additionalProperties": False,
    },
    "Loose": {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
    "ChoiceEnum": {"enum": ["a", "b"], "type": "string"},
    "NullEnum": {"enum": [None]},
    "BlankEnum": {"enum": [""]},
}

EVERYTHING = {
    "type": "object",
    "properties": {
        "s": {"type": "string", "maxLength": 5, "minLength": 1, "pattern": "^[a-z]+$"},
        "maybe": {"type": "string", "nullable": True},
        "choice": {"allOf": [{"$ref": "#/components/schemas/ChoiceEnum"}], "default": "a", "description": "pick"},
        "nullable_choice": {"oneOf": [{"$ref": "#/components/schemas/ChoiceEnum"},
                                      {"$ref": "#/components/schemas/BlankEnum"},
                                      {"$ref": "#/components/schemas/NullEnum"}]},
        "plain_enum": {"$ref": "#/components/schemas/ChoiceEnum"},
        "nullable_int_enum": {"type": "integer", "enum": [1, 2], "nullable": True},
        "flag": {"type": "boolean", "default": True},
        "ratio": {"type": "number", "format": "double", "minimum": 0.0, "exclusiveMinimum": True},
        "count": {"type": "integer", "format": "int64", "maximum": 10, "exclusiveMaximum": False},
        "ident": {"type": "string", "format": "uuid", "example": "7d1c1b5e-0000-4000-8000-000000000000"},
        "blob": {"description": "any JSON"},
        "words": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": True},
        "inner": {"allOf": [{"$ref": "#/components/schemas/Inner"}], "nullable": True},
        "many": {"type": "array", "items": {"$ref": "#/components/schemas/Inner"}},
        "loose": {"$ref": "#/components/schemas/Loose"},
        "mapping": {"type": "object", "additionalProperties": {"type": "integer", "format": "int32"}},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": True},
        "secret": {"type": "string", "writeOnly": True, "x-elf-note": "vendor extensions are dropped"},
        "hidden": {"type": "string", "readOnly": True},
    },
    "required": ["s", "ratio", "ident", "words", "inner", "loose", "hidden"],
    "additionalProperties": False,
}


def test_converter_maps_every_shape():
    inner = {"type": "object", "description": "An inner object.",
             "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 9, "description": "a digit"}},
             "required": ["n"], "additionalProperties": False}
    assert to_json_schema(EVERYTHING, COMPONENTS) == {
        "type": "object",
        "properties": {
            "s": {"type": "string", "maxLength": 5, "minLength": 1, "pattern": "^[a-z]+$"},
            "maybe": {"type": ["string", "null"]},
            "choice": {"enum": ["a", "b"], "type": "string", "default": "a", "description": "pick"},
            "nullable_choice": {"enum": ["a", "b", "", None], "type": ["string", "null"]},
            "plain_enum": {"enum": ["a", "b"], "type": "string"},
            "nullable_int_enum": {"type": ["integer", "null"], "enum": [1, 2, None]},
            "flag": {"type": "boolean", "default": True},
            "ratio": {"type": "number", "exclusiveMinimum": 0.0},
            "count": {"type": "integer", "maximum": 10},
            "ident": {"type": "string", "format": "uuid", "examples": ["7d1c1b5e-0000-4000-8000-000000000000"]},
            "blob": {"description": "any JSON"},
            "words": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": True},
            "inner": {**inner, "type": ["object", "null"]},
            "many": {"type": "array", "items": inner},
            "loose": {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
            "mapping": {"type": "object", "additionalProperties": {"type": "integer"}},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "secret": {"type": "string"},
        },
        "required": ["s", "ratio", "ident", "words", "inner", "loose"],
        "additionalProperties": False,
    }


def test_converter_leaves_its_inputs_untouched():
    import copy

    before = copy.deepcopy((EVERYTHING, COMPONENTS))
    to_json_schema(EVERYTHING, COMPONENTS)
    assert before == (EVERYTHING, COMPONENTS)


@pytest.mark.parametrize("schema, message", [
    ({"type": "object", "discriminator": {"propertyName": "kind"}}, "keyword 'discriminator'"),
    ({"not": {"type": "string"}}, "keyword 'not'"),
    ({"allOf": [{"$ref": "#/components/schemas/Inner"}, {"$ref": "#/components/schemas/Loose"}]}, "allOf with 2"),
    ({"$ref": "#/components/schemas/Missing"}, "names no component"),
    ({"$ref": "https://example.com/schema.json"}, "does not point into components.schemas"),
    ({"$ref": "#/components/schemas/Node"}, "recursive"),
    ({"type": "array", "items": True}, "must be an object"),
], ids=["discriminator", "not", "allOf-two", "missing-ref", "foreign-ref", "recursive-ref", "non-object"])
def test_converter_refuses_a_shape_it_cannot_map(schema, message):
    node = {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}}
    components = {**COMPONENTS, "Node": node}
    with pytest.raises(UnmappableSchema, match=message):
        to_json_schema(schema, components)


DOC = {
    "paths": {"/v2/things/{thing_id}": {
        "get": {
            "parameters": [
                {"in": "header", "name": "X-ELF-Tenant-Id", "schema": {"type": "string"}, "required": True},
                {"in": "path", "name": "thing_id", "schema": {"type": "string", "format": "uuid"}, "required": True},
                {"in": "query", "name": "limit", "schema": {"type": "integer", "maximum": 9, "default": 5},
                 "description": "how many"},
                {"in": "query", "name": "kind", "schema": {"$ref": "#/components/schemas/ChoiceEnum"},
                 "required": True},
            ],
            "x-elf-strict-query": True,
        },
        "post": {
            "parameters": [{"in": "path", "name": "thing_id", "schema": {"type": "string"}, "required": True}],
            "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Inner"}}}},
        },
        "delete": {"parameters": [{"in": "path", "name": "thing_id", "schema": {"type": "string"}, "required": True}]},
    }},
    "components": {"schemas": COMPONENTS},
}


def test_query_parameters_become_the_arguments_and_headers_and_path_stay_out():
    op = operation(DOC, "GET", "/v2/things/{thing_id}")
    assert arguments_schema(DOC, "GET", op) == {
        "type": "object",
        "properties": {"limit": {"type": "integer", "maximum": 9, "default": 5, "description": "how many"},
                       "kind": {"enum": ["a", "b"], "type": "string"}},
        "required": ["kind"],
        "additionalProperties": False,  # x-elf-strict-query: the API refuses unknown query parameters
    }
    plain = {**op}
    del plain["x-elf-strict-query"]
    assert "additionalProperties" not in arguments_schema(DOC, "GET", plain)
    assert arguments_schema(DOC, "DELETE", operation(DOC, "DELETE", "/v2/things/{thing_id}")) == {
        "type": "object", "properties": {}}


def test_a_json_body_becomes_the_arguments():
    op = operation(DOC, "POST", "/v2/things/{thing_id}")
    assert arguments_schema(DOC, "POST", op) == to_json_schema(COMPONENTS["Inner"], COMPONENTS)


def test_an_operation_the_document_lacks_is_named():
    with pytest.raises(KeyError, match="no PATCH /v2/things/{thing_id}"):
        operation(DOC, "PATCH", "/v2/things/{thing_id}")
