"""The OpenAPI documents say what the API enforces beyond drf-spectacular's defaults
(elf_kernel.api.openapi_schema): closed StrictSerializer bodies, list size limits, and query parameters
described by the very serializers the views validate them with. No stack needed."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from elf_domain.limits import MAX_NOTES_PER_REQUEST

URLCONFS = {"public": "elf_project.urls_public", "admin": "elf_project.urls_admin"}
STRICT_QUERY = "x-elf-strict-query"


@pytest.fixture(scope="module")
def docs() -> dict[str, dict]:
    return {bind: SchemaGenerator(urlconf=conf).get_schema(request=None, public=True)
            for bind, conf in URLCONFS.items()}


def _query(op: dict) -> dict[str, dict]:
    return {p["name"]: p for p in op.get("parameters", []) if p["in"] == "query"}


def test_strict_request_bodies_and_their_nested_serializers_are_closed(docs):
    schemas = docs["public"]["components"]["schemas"]
    for name in ("IngestNotesRequest", "NoteInRequest", "StructuredRequest", "PatchedPatchNoteRequest"):
        assert schemas[name]["additionalProperties"] is False, name
    # Responses are not StrictSerializers' business: left open.
    assert "additionalProperties" not in schemas["IngestNotesResponse"]


def test_list_fields_show_the_size_limits_drf_checks_itself(docs):
    schemas = docs["public"]["components"]["schemas"]
    notes = schemas["IngestNotesRequest"]["properties"]["notes"]  # many=True, allow_empty=False, max_length
    assert (notes["minItems"], notes["maxItems"]) == (1, MAX_NOTES_PER_REQUEST)
    note_ids = schemas["SessionNotesBodyRequest"]["properties"]["note_ids"]  # ListField(allow_empty=False)
    assert (note_ids["minItems"], note_ids["maxItems"]) == (1, 100)


def test_query_parameters_are_the_query_serializers_and_strict_ones_are_marked(docs):
    notes_list = docs["public"]["paths"]["/v2/notes"]["get"]
    params = _query(notes_list)
    assert set(params) == {"scope", "status", "type", "limit", "cursor"}
    assert params["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}
    assert params["status"]["schema"]["default"] == "active"
    assert notes_list[STRICT_QUERY] is True
    # RecentTracesQuery is a plain Serializer: unknown parameters are ignored, so no mark.
    recent = docs["admin"]["paths"]["/v2/admin/traces/recent"]["get"]
    assert STRICT_QUERY not in recent
    assert _query(recent)["cursor_created_at"]["schema"]["format"] == "date-time"
    # Bodies are not query strings: a POST never carries the mark.
    assert STRICT_QUERY not in docs["public"]["paths"]["/v2/notes/ingest"]["post"]


def test_enum_descriptions_do_not_repeat_the_choices(docs):
    mode = docs["public"]["components"]["schemas"]["SearchBodyRequest"]["properties"]["mode"]
    assert "* `quick_find`" not in mode.get("description", "")


def test_core_memory_routes_are_documented_and_policy_is_only_in_the_admin_document(docs):
    public, admin = docs["public"]["paths"], docs["admin"]["paths"]
    for path in ("/v2/core-memory/entries", "/v2/core-memory/resolve", "/v2/core-memory/compact",
                 "/v2/core-memory/utterances", "/v2/core-memory/profile.md", "/v2/core-memory/runs/{run_id}/session.md",
                 "/v2/core-memory/runs/{run_id}/end", "/v2/core-memory/runs/{run_id}/audit.jsonl",
                 "/v2/core-memory/runs/{run_id}/memory/pending"):
        assert path in public, path
    assert not [p for p in public if "policy" in p] and "/v2/admin/core-memory/policy.md" in admin
    profile = public["/v2/core-memory/profile.md"]
    assert set(profile["put"]["requestBody"]["content"]) == {"text/markdown", "application/json"}
    assert "text/markdown" in profile["get"]["responses"]["200"]["content"]
    upsert = docs["public"]["components"]["schemas"]["UpsertBodyRequest"]
    scope = upsert["properties"]["scope"]["allOf"][0]["$ref"].rsplit("/", 1)[1]
    assert upsert["additionalProperties"] is False and scope == "CoreMemoryScopeEnum"
    assert docs["public"]["components"]["schemas"][scope]["enum"] == ["profile", "session"]
