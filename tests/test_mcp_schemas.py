"""elf-mcp's tool table against the API it fronts: every tool is a real endpoint, its input schema is the
request serializer's, and the MCP package holds no policy. No stack needed: the OpenAPI documents are
generated in-process from the same urlconfs elf-api serves."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from elf_mcp.catalog import all_tools
from elf_mcp.serializer_schema import serializer_schema
from elf_mcp.tool_spec import BODY_METHODS, READ_PROFILE_ARG
from elf_kernel.api.strict import StrictSerializer

SPEC_SECTION_17 = {
    "elf_notes_ingest", "elf_events_ingest", "elf_searches_create", "elf_searches_get", "elf_searches_timeline",
    "elf_searches_notes", "elf_notes_list", "elf_notes_get", "elf_notes_patch", "elf_notes_delete",
    "elf_admin_events_ingestion_profiles_list", "elf_admin_events_ingestion_profiles_create",
    "elf_admin_events_ingestion_profile_get", "elf_admin_events_ingestion_profile_versions_list",
    "elf_admin_events_ingestion_profile_default_get", "elf_admin_events_ingestion_profile_default_set",
}
SHARING = {"elf_notes_publish", "elf_notes_unpublish", "elf_space_grants_list", "elf_space_grant_upsert",
           "elf_space_grant_revoke"}
ADMIN_READBACKS = {"elf_admin_traces_recent", "elf_admin_trace_get", "elf_admin_trace_bundle_get",
                   "elf_admin_trajectory_get", "elf_admin_trace_item_get", "elf_admin_searches_raw"}
# API operations deliberately without a tool: an echo for curl checks, and an operator's maintenance job.
NOT_TOOLS = {("GET", "/v2/context"), ("POST", "/v2/admin/qdrant/rebuild")}
URLCONFS = {"public": "elf_project.urls_public", "admin": "elf_project.urls_admin"}
TOOLS = all_tools()


@pytest.fixture(scope="module")
def openapi() -> dict[str, dict]:
    return {bind: SchemaGenerator(urlconf=conf).get_schema(request=None, public=True) for bind, conf in URLCONFS.items()}


def _operation(openapi, tool) -> dict:
    op = openapi[tool.bind]["paths"].get(tool.path, {}).get(tool.method.lower())
    assert op is not None, f"{tool.name}: elf-api serves no {tool.method} {tool.path} on the {tool.bind} bind"
    return op


def _resolve(doc: dict, schema: dict) -> dict:
    return doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema


def test_tool_names_cover_spec_section_17_and_the_extras():
    assert {t.name for t in TOOLS} == SPEC_SECTION_17 | SHARING | ADMIN_READBACKS
    assert len(TOOLS) == len({t.name for t in TOOLS})


def test_every_api_operation_has_a_tool(openapi):
    tools = {(t.method, t.path) for t in TOOLS}
    missing = []
    for bind, doc in openapi.items():
        for path, ops in doc["paths"].items():
            for method in ops:
                key = (method.upper(), path)
                if path.startswith("/v2/") and key not in tools and key not in NOT_TOOLS:
                    missing.append(f"{bind}: {key}")
    assert not missing, f"endpoints without an MCP tool: {missing}"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_tool_arguments_are_the_operations_parameters_and_body(openapi, tool):
    op = _operation(openapi, tool)
    params = [p for p in op.get("parameters", []) if p["in"] != "header"]
    schema = tool.input_schema()
    props = set(schema["properties"]) - ({READ_PROFILE_ARG} if tool.read_profile_override else set())
    path_names = {p["name"] for p in params if p["in"] == "path"}
    assert path_names == {p.name for p in tool.path_params}
    assert path_names <= set(schema.get("required", []))
    if tool.method in BODY_METHODS:
        body = _resolve(openapi[tool.bind], op["requestBody"]["content"]["application/json"]["schema"])
        assert props - path_names == set(body["properties"])
        assert set(schema.get("required", [])) - path_names == set(body.get("required", []))
    else:
        assert "requestBody" not in op
        assert props - path_names == {p["name"] for p in params if p["in"] == "query"}


def test_read_profile_override_only_where_a_search_is_created():
    overriding = {t.name for t in TOOLS if t.read_profile_override}
    assert overriding == {"elf_searches_create", "elf_admin_searches_raw"}
    prop = next(t for t in TOOLS if t.name == "elf_searches_create").input_schema()["properties"][READ_PROFILE_ARG]
    assert prop["enum"] == ["private_only", "private_plus_project", "all_scopes"]
    # traces/recent has a read_profile *filter*: it stays a query parameter, not a header override.
    recent = next(t for t in TOOLS if t.name == "elf_admin_traces_recent")
    assert not recent.read_profile_override and READ_PROFILE_ARG in recent.input_schema()["properties"]


def test_ingest_schema_is_the_ingest_serializer():
    schema = next(t for t in TOOLS if t.name == "elf_notes_ingest").input_schema()
    assert schema["required"] == ["scope", "notes"] and schema["additionalProperties"] is False
    notes = schema["properties"]["notes"]
    assert (notes["type"], notes["minItems"], notes["maxItems"]) == ("array", 1, 100)
    item = notes["items"]
    assert item["required"] == ["type", "text", "importance", "confidence"]
    assert item["properties"]["importance"] == {"type": "number", "minimum": 0.0, "maximum": 1.0}
    assert item["properties"]["key"] == {"type": ["string", "null"], "maxLength": 128}
    # No length cap on text: memory.max_note_chars is the WriteGate's policy, answered as REJECT_TOO_LONG.
    assert item["properties"]["text"] == {"type": "string"}
    relation = item["properties"]["structured"]["properties"]["relations"]["items"]
    assert relation["required"] == ["subject", "predicate", "object"]


class _Inner(StrictSerializer):
    n = serializers.IntegerField(min_value=1, max_value=9, help_text="a digit")


class _Loose(serializers.Serializer):
    when = serializers.DateTimeField(required=False)


class _Everything(StrictSerializer):
    s = serializers.CharField(max_length=5)
    maybe = serializers.CharField(required=False, allow_null=True)
    choice = serializers.ChoiceField(choices=["a", "b"], required=False, allow_null=True, default="a")
    flag = serializers.BooleanField(required=False, default=True)
    ratio = serializers.FloatField(min_value=0.0)
    ident = serializers.UUIDField()
    blob = serializers.JSONField(required=False, allow_null=True)
    words = serializers.ListField(child=serializers.CharField(), allow_empty=False, max_length=3)
    inner = _Inner(allow_null=True)
    many = _Inner(many=True, required=False)
    loose = _Loose()
    mapping = serializers.DictField(child=serializers.IntegerField(), required=False)
    hidden = serializers.CharField(read_only=True)


def test_converter_maps_every_field_kind():
    inner = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 9,
                                                    "description": "a digit"}},
             "required": ["n"], "additionalProperties": False}
    assert serializer_schema(_Everything) == {
        "type": "object",
        "properties": {
            "s": {"type": "string", "maxLength": 5},
            "maybe": {"type": ["string", "null"]},
            "choice": {"type": ["string", "null"], "enum": ["a", "b", None], "default": "a"},
            "flag": {"type": "boolean", "default": True},
            "ratio": {"type": "number", "minimum": 0.0},
            "ident": {"type": "string", "format": "uuid"},
            "blob": {},
            "words": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "inner": {**inner, "type": ["object", "null"]},
            "many": {"type": "array", "items": inner},
            "loose": {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
            "mapping": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "required": ["s", "ratio", "ident", "words", "inner", "loose"],
        "additionalProperties": False,
    }


def test_converter_refuses_a_field_it_cannot_map():
    class _Odd(serializers.Serializer):
        f = serializers.FileField()

    with pytest.raises(TypeError, match="FileField"):
        serializer_schema(_Odd)


# Anything that decides about content lives in these; the MCP adapter must not import them.
POLICY_MODULES = ("memory.domain", "memory.services", "memory.search", "memory.selectors", "traces.services",
                  "traces.selectors", "elf_infra.providers")


def test_mcp_package_imports_no_policy_and_reads_no_memory_limits():
    package = Path(__file__).resolve().parent.parent / "elf_mcp"
    offenders = []
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: import {n}" for n in names if n.startswith(POLICY_MODULES)]
            if isinstance(node, ast.Attribute) and node.attr in ("memory", "scopes", "max_note_chars"):
                offenders.append(f"{path.name}: reads .{node.attr}")
    assert not offenders, offenders
