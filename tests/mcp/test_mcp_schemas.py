"""elf-mcp's tool table against the API it fronts: every tool is a real endpoint, its input schema is the
operation's in the OpenAPI document, and the MCP package holds no policy and imports neither Django nor the
API's code. No stack needed: the OpenAPI documents are generated in-process from the same urlconfs elf-api
serves."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from elf_domain.limits import MAX_NOTES_PER_REQUEST
from elf_mcp.catalog import all_tools
from elf_mcp.tool_spec import BODY_METHODS, CONTEXT_ARGS, READ_PROFILE_ARG, TENANT_ARG, ToolSpec
from elf_project.openapi_export import build_documents
from tests.conftest import REPO, write_mcp_config

SPEC_SECTION_17 = {
    "elf_notes_ingest", "elf_events_ingest", "elf_searches_create", "elf_searches_get", "elf_searches_timeline",
    "elf_searches_notes", "elf_notes_list", "elf_notes_get", "elf_notes_patch", "elf_notes_delete",
    "elf_admin_events_ingestion_profiles_list", "elf_admin_events_ingestion_profiles_create",
    "elf_admin_events_ingestion_profile_get", "elf_admin_events_ingestion_profile_versions_list",
    "elf_admin_events_ingestion_profile_default_get", "elf_admin_events_ingestion_profile_default_set",
}
GRAPH = {"elf_graph_facts_list", "elf_graph_entity_get"}
DOCS = {"elf_docs_put", "elf_docs_get", "elf_docs_delete", "elf_docs_search_l0", "elf_docs_excerpts_get",
        "elf_docs_publish", "elf_docs_unpublish"}
SHARING = {
    "elf_notes_deprecate",
    "elf_notes_publish",
    "elf_notes_unpublish",
    "elf_space_grants_list",
    "elf_space_grant_upsert",
    "elf_space_grant_revoke",
}
ADMIN_READBACKS = {
    "elf_admin_traces_recent",
    "elf_admin_trace_get",
    "elf_admin_trace_bundle_get",
    "elf_admin_trajectory_get",
    "elf_admin_trace_item_get",
    "elf_admin_searches_raw",
}
GRAPH_ADMIN = {
    "elf_admin_graph_predicates_list",
    "elf_admin_graph_predicate_patch",
    "elf_admin_graph_predicate_aliases_add",
    "elf_admin_graph_predicate_aliases_list",
}
CORE_MEMORY = {
    "elf_core_memory_upsert",
    "elf_core_memory_delete",
    "elf_core_memory_resolve",
    "elf_core_memory_compact",
    "elf_core_memory_utterance",
    "elf_core_memory_profile_get",
    "elf_core_memory_profile_put",
    "elf_core_memory_session_get",
    "elf_core_memory_session_put",
    "elf_core_memory_run_end",
    "elf_core_memory_audit",
    "elf_core_memory_pending_list",
    "elf_core_memory_pending_confirm",
    "elf_core_memory_pending_reject",
}
CORE_MEMORY_ADMIN = {
    "elf_admin_core_memory_policy_get",
    "elf_admin_core_memory_policy_put",
    "elf_admin_core_memory_upsert",
    "elf_admin_core_memory_delete",
}
# agent-memory-acb-prd section 11 (record_event, build_acb, get_artifact, query_decisions) and the 7.3 writes.
ACB = {
    "elf_acb_record_event",
    "elf_acb_build",
    "elf_acb_get_artifact",
    "elf_acb_query_decisions",
    "elf_acb_record_decision",
    "elf_acb_task",
}
# elf-memory-service-v1.md section 17: the v1 tools, each on its v1 route (section 15).
V1 = {"memory_add_note", "memory_add_event", "memory_search", "memory_list", "memory_update", "memory_delete"}
# API operations deliberately without a tool: an echo for curl checks, and an operator's maintenance job (also
# under its v1 name).
NOT_TOOLS = {("GET", "/v2/context"), ("POST", "/v2/admin/qdrant/rebuild"), ("POST", "/v1/admin/rebuild_qdrant")}
TOOLS = all_tools()


@pytest.fixture(scope="module")
def openapi() -> dict[str, dict]:
    """What elf-api serves now (the tools read the checked-in copy; tests/mcp/test_mcp_openapi.py keeps them equal)."""
    return json.loads(json.dumps(build_documents()))


def _operation(openapi, tool) -> dict:
    op = openapi[tool.bind]["paths"].get(tool.path, {}).get(tool.method.lower())
    assert op is not None, f"{tool.name}: elf-api serves no {tool.method} {tool.path} on the {tool.bind} bind"
    return op


def _resolve(doc: dict, schema: dict) -> dict:
    return doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema


def test_tool_names_cover_spec_section_17_and_the_extras():
    assert {t.name for t in TOOLS} == (
        SPEC_SECTION_17
        | SHARING
        | ADMIN_READBACKS
        | GRAPH
        | GRAPH_ADMIN
        | DOCS
        | CORE_MEMORY
        | CORE_MEMORY_ADMIN
        | ACB
        | V1
    )
    assert len(TOOLS) == len({t.name for t in TOOLS})


def test_every_api_operation_has_a_tool(openapi):
    tools = {(t.method, t.path) for t in TOOLS}
    missing = []
    for bind, doc in openapi.items():
        for path, ops in doc["paths"].items():
            for method in ops:
                key = (method.upper(), path)
                if path.startswith(("/v2/", "/v1/", "/api/v1/")) and key not in tools and key not in NOT_TOOLS:
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
    for p in params:
        if p["in"] == "path":  # the tool's own Param schema must not contradict the API's
            mine, api = schema["properties"][p["name"]], p["schema"]
            assert (mine.get("type"), mine.get("format")) == (api.get("type"), api.get("format")), p["name"]
            assert sorted(mine.get("enum", [])) == sorted(api.get("enum", [])), p["name"]
    # optional in the tool, whatever the API requires: elf-mcp fills them in
    filled = set(tool.context_args()) | ({READ_PROFILE_ARG} if tool.read_profile_in_body else set())
    required = set(schema.get("required", [])) - path_names
    if tool.method in BODY_METHODS:
        body = (
            _resolve(openapi[tool.bind], op["requestBody"]["content"]["application/json"]["schema"])
            if "requestBody" in op
            else {"properties": {}}
        )  # a bodiless POST (e.g. ending a run)
        assert props - path_names == set(body["properties"])
        assert required == set(body.get("required", [])) - filled
    else:
        assert "requestBody" not in op
        assert props - path_names == {p["name"] for p in params if p["in"] == "query"}
        assert required == {p["name"] for p in params if p["in"] == "query" and p.get("required")} - filled


def _arguments(openapi, tool) -> tuple[set[str], set[str]]:
    """(names, required names) of what the operation takes besides path parameters: its body or query."""
    op = _operation(openapi, tool)
    if tool.method in BODY_METHODS:
        if "requestBody" not in op:
            return set(), set()
        body = _resolve(openapi[tool.bind], op["requestBody"]["content"]["application/json"]["schema"])
        return set(body["properties"]), set(body.get("required", []))
    query = [p for p in op.get("parameters", []) if p["in"] == "query"]
    return {p["name"] for p in query}, {p["name"] for p in query if p.get("required")}


def test_body_context_exactly_where_the_api_takes_the_tenant_in_the_body_or_query(openapi):
    """The rule for ``body_context``: a tool has it if and only if its operation takes tenant_id in the body or
    query (the /api/v1 endpoints, PRD 9.3, where it is required without API keys, and the v1 routes; the /v2 ones
    read the X-ELF-* headers). Then each of tenant_id,
    project_id and agent_id the operation takes is filled in by elf-mcp: in the tool's schema it is listed but
    optional, and described as filled in; every other argument keeps the API's required-ness (session_id stays
    required: elf-mcp has no session of its own)."""
    flagged = {t.name for t in TOOLS if t.body_context}
    needs_tenant = {t.name for t in TOOLS if TENANT_ARG in _arguments(openapi, t)[0]}
    assert flagged == needs_tenant == ACB | V1
    for tool in TOOLS:
        names, api_required = _arguments(openapi, tool)
        schema = tool.input_schema()
        context = tool.context_args()
        assert context == tuple(n for n in CONTEXT_ARGS if n in names and tool.body_context)
        assert not set(context) & set(schema.get("required", [])), tool.name
        for name in context:
            assert "elf-mcp fills in its own [mcp]." + name in schema["properties"][name]["description"]
        assert ("session_id" in schema.get("required", [])) == ("session_id" in api_required), tool.name
    by_name = {t.name: t for t in TOOLS}
    assert by_name["elf_acb_record_event"].context_args() == ("tenant_id", "project_id", "agent_id")
    # the two GETs take the three too (issue 31: a read is the caller's project's, and may repeat its agent)
    assert (
        by_name["elf_acb_get_artifact"].context_args()
        == by_name["elf_acb_query_decisions"].context_args()
        == ("tenant_id", "project_id", "agent_id")
    )
    assert sorted(by_name["elf_acb_build"].input_schema()["required"]) == ["session_id"]
    assert by_name["elf_acb_get_artifact"].input_schema()["required"] == ["artifact_id"]


def test_body_context_on_an_operation_without_tenant_id_is_refused():
    """A flag that could fill nothing is a mistake in the tool table, found when the schema is built."""
    wrong = ToolSpec("elf_wrong", "Wrong", "", bind="public", method="GET", path="/v2/notes", body_context=True)
    with pytest.raises(ValueError, match="takes no tenant_id"):
        wrong.input_schema()
    with pytest.raises(ValueError, match="takes no tenant_id"):
        wrong.context_args()
    assert ToolSpec("elf_plain", "Plain", "", bind="public", method="GET", path="/v2/notes").context_args() == ()


def test_read_profile_override_only_where_a_search_is_created():
    overriding = {t.name for t in TOOLS if t.read_profile_override}
    assert overriding == {"elf_searches_create", "elf_admin_searches_raw"}
    prop = next(t for t in TOOLS if t.name == "elf_searches_create").input_schema()["properties"][READ_PROFILE_ARG]
    assert prop["enum"] == ["private_only", "private_plus_project", "all_scopes"]
    # traces/recent has a read_profile *filter*: it stays a query parameter, not a header override.
    recent = next(t for t in TOOLS if t.name == "elf_admin_traces_recent")
    assert not recent.read_profile_override and READ_PROFILE_ARG in recent.input_schema()["properties"]
    # the v1 search takes read_profile in its body (required there): optional in the tool, [mcp]'s when omitted
    assert {t.name for t in TOOLS if t.read_profile_in_body} == {"memory_search"}
    v1_search = next(t for t in TOOLS if t.name == "memory_search").input_schema()
    assert v1_search["required"] == ["query"] and v1_search["additionalProperties"] is False
    assert v1_search["properties"][READ_PROFILE_ARG]["enum"] == ["private_only", "private_plus_project", "all_scopes"]


def test_v1_tools_are_the_v1_routes_with_v1s_arguments(openapi):
    """Section 17 of v1: one tool per v1 route, the arguments of the v1 body (the list's query string), the
    caller's ids filled in by elf-mcp."""
    by_name = {t.name: t for t in TOOLS if t.name in V1}
    assert {(t.method, t.path) for t in by_name.values()} == {("GET", "/v1/memory/list")} | {
        ("POST", f"/v1/memory/{r}") for r in ("add_note", "add_event", "search", "update", "delete")
    }
    assert all(t.name == "memory_" + t.path.rsplit("/", 1)[1] and t.bind == "public" for t in by_name.values())
    assert sorted(by_name["memory_update"].input_schema()["required"]) == ["note_id"]  # in the body, not the URL
    assert sorted(by_name["memory_add_note"].input_schema()["required"]) == ["notes", "scope"]
    assert "required" not in by_name["memory_list"].input_schema()
    assert by_name["memory_search"].read_only and by_name["memory_delete"].destructive


def test_ingest_schema_is_the_ingest_serializer():
    schema = next(t for t in TOOLS if t.name == "elf_notes_ingest").input_schema()
    assert sorted(schema["required"]) == ["notes", "scope"] and schema["additionalProperties"] is False
    notes = schema["properties"]["notes"]
    assert (notes["type"], notes["minItems"], notes["maxItems"]) == ("array", 1, MAX_NOTES_PER_REQUEST)
    item = notes["items"]
    assert sorted(item["required"]) == ["confidence", "importance", "text", "type"]
    assert item["additionalProperties"] is False  # nested StrictSerializers are closed too
    assert item["properties"]["importance"] == {"type": "number", "minimum": 0.0, "maximum": 1.0}
    assert item["properties"]["key"] == {"type": ["string", "null"], "maxLength": 128, "minLength": 1}
    # No length cap on text: memory.max_note_chars is the WriteGate's policy, answered as REJECT_TOO_LONG.
    assert item["properties"]["text"] == {"type": "string"}
    relation = item["properties"]["structured"]["properties"]["relations"]["items"]
    assert sorted(relation["required"]) == ["object", "predicate", "subject"]


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_input_schema_is_self_contained_json_schema_2020_12(tool):
    schema = tool.input_schema()
    Draft202012Validator.check_schema(schema)
    assert "$ref" not in json.dumps(schema) and schema["type"] == "object"


def test_strict_query_and_open_query_tools():
    """A StrictSerializer query string answers 400 for unknown parameters; a plain one ignores them."""
    by_name = {t.name: t.input_schema() for t in TOOLS}
    assert by_name["elf_notes_list"]["additionalProperties"] is False
    assert by_name["elf_notes_list"]["properties"]["limit"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 200,
        "default": 50,
    }
    assert "additionalProperties" not in by_name["elf_admin_traces_recent"]
    assert by_name["elf_space_grants_list"]["properties"]["include_revoked"]["default"] is False


# Anything that decides about content, and Django itself; the MCP adapter imports none of them.
POLICY_MODULES = (
    "memory",
    "search",
    "traces",
    "graph",
    "docs_ext",
    "core_memory",
    "elf_kernel",
    "elf_infra",
    "elf_project",
    "django",
    "rest_framework",
    "drf_spectacular",
)


def _policy(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in POLICY_MODULES)


def test_mcp_package_imports_no_policy_and_reads_no_memory_limits():
    package = Path(__file__).resolve().parents[2] / "elf_mcp"
    offenders = []
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: import {n}" for n in names if _policy(n)]
            if isinstance(node, ast.Attribute) and node.attr in ("memory", "scopes", "max_note_chars"):
                offenders.append(f"{path.name}: reads .{node.attr}")
    assert not offenders, offenders


# Runs in a fresh interpreter: elf-mcp's real start-up (config, upstream, every tool schema, the ASGI app)
# with uvicorn.run stubbed out, then the list of loaded modules.
START_WITHOUT_DJANGO = """
import json, sys
import uvicorn
uvicorn.run = lambda app, **kwargs: None
from elf_mcp.catalog import all_tools
from elf_mcp.main import main
assert main(["-c", sys.argv[1]]) == 0
tools = all_tools()
assert len(tools) == 71 and all(t.mcp_tool().input_schema for t in tools)
print(json.dumps(sorted(sys.modules)))
"""


def test_elf_mcp_starts_without_importing_django(tmp_path):
    config = write_mcp_config(tmp_path / "elf.toml")
    done = subprocess.run(
        [sys.executable, "-c", START_WITHOUT_DJANGO, str(config)], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-4000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "elf_mcp.server" in loaded  # the start-up really ran
    assert [m for m in loaded if _policy(m)] == []
