"""elf-mcp end to end: a real elf-mcp process in front of the real elf-api and elf-worker of the test stack,
driven with the official MCP client over Streamable HTTP."""

from __future__ import annotations

import time
import uuid

import pytest

from elf_mcp.catalog import all_tools
from tests.conftest import mcp_call, mcp_session, start_elf_mcp, write_mcp_config

RUN = uuid.uuid4().hex[:8]
MCP_CONTEXT = {"tenant_id": f"mcp-tenant-{RUN}", "project_id": "mcp-project", "agent_id": "mcp-agent",
               "read_profile": "private_plus_project"}
THEME = "Preference: the user wants a dark theme in every code editor."


@pytest.fixture(scope="module")
def url(live_api, live_worker, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("mcp-live")

    def mutate(data):
        data["mcp"] = dict(MCP_CONTEXT)

    proc, url = start_elf_mcp(write_mcp_config(workdir / "elf.toml", mutate), workdir / "mcp.log")
    yield url
    proc.stop()


def _ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def _error(result) -> dict:
    assert result.is_error, result.content[0].text
    return result.structured_content


def _ingest(url, text: str, key: str, scope: str = "agent_private") -> dict:
    note = {"type": "preference", "key": key, "text": text, "importance": 0.7, "confidence": 0.9}
    return _ok(mcp_call(url, "elf_notes_ingest", {"scope": scope, "notes": [note]}))["results"][0]


def _search_until_found(url, query: str, note_id: str, timeout: float = 60) -> dict:
    """The note is indexed by the worker after commit: search until it shows up."""
    deadline = time.monotonic() + timeout
    while True:
        session = _ok(mcp_call(url, "elf_searches_create", {"query": query, "mode": "quick_find"}))
        if note_id in [i["note_id"] for i in session["items"]]:
            return session
        assert time.monotonic() < deadline, f"note {note_id} not found by search within {timeout}s: {session}"
        time.sleep(0.5)


def test_lists_every_mapped_tool_with_its_input_schema(url):
    listed = {t.name: t for t in mcp_session(url, lambda s: s.list_tools()).tools}
    assert set(listed) == {t.name for t in all_tools()}
    for tool in listed.values():
        assert tool.input_schema["type"] == "object" and tool.description
    props = {name: set(t.input_schema["properties"]) for name, t in listed.items()}
    assert props["elf_notes_ingest"] == {"scope", "notes"}
    assert props["elf_searches_create"] == {"query", "top_k", "candidate_k", "filter", "mode", "read_profile", "as_of"}
    assert props["elf_searches_notes"] == {"search_id", "note_ids", "record_hits", "include_source_excerpts"}
    assert props["elf_notes_get"] == {"note_id"}
    assert props["elf_space_grant_upsert"] == {"space", "grantee_kind", "grantee_agent_id"}
    assert props["elf_admin_trace_bundle_get"] == {"trace_id", "mode", "stage_items_limit", "candidates_limit"}
    assert sorted(listed["elf_notes_ingest"].input_schema["required"]) == ["notes", "scope"]


def test_ingest_search_and_read_back_in_the_mcp_context(url):
    result = _ingest(url, THEME, "editor_theme")
    assert result["op"] == "ADD", result
    note_id = result["note_id"]
    session = _search_until_found(url, "Which editor theme does the user like?", note_id)
    again = _ok(mcp_call(url, "elf_searches_get", {"search_id": session["search_id"]}))
    assert again["search_id"] == session["search_id"] and note_id in [i["note_id"] for i in again["items"]]
    timeline = _ok(mcp_call(url, "elf_searches_timeline", {"search_id": session["search_id"], "group_by": "none"}))
    assert note_id in [i["note_id"] for g in timeline["groups"] for i in g["items"]]
    read = _ok(mcp_call(url, "elf_searches_notes", {"search_id": session["search_id"], "note_ids": [note_id]}))
    (hit,) = read["results"]
    assert hit["error"] is None and hit["note"]["text"] == THEME
    # The [mcp] context headers reached the API: the note belongs to [mcp]'s tenant, project and agent.
    note = _ok(mcp_call(url, "elf_notes_get", {"note_id": note_id}))
    assert {k: note[k] for k in ("tenant_id", "project_id", "agent_id")} == {
        k: MCP_CONTEXT[k] for k in ("tenant_id", "project_id", "agent_id")}
    listed = _ok(mcp_call(url, "elf_notes_list", {"scope": "agent_private"}))
    assert note_id in [n["note_id"] for n in listed["notes"]]


def test_non_english_input_is_a_structured_tool_error(url):
    note = {"type": "fact", "text": "Пользователь предпочитает тёмную тему во всех редакторах.",
            "importance": 0.5, "confidence": 0.5}
    err = _error(mcp_call(url, "elf_notes_ingest", {"scope": "agent_private", "notes": [note]}))
    assert err["error_code"] == "NON_ENGLISH_INPUT"
    assert err["fields"] == ["$.notes[0].text"]
    assert err["http_status"] == 422 and err["message"]


def test_forwards_an_over_long_note_untouched_and_returns_the_api_rejection(url, test_cfg):
    sentence = "The deployment checklist covers backups, migrations and the smoke tests. "
    text = (sentence * (test_cfg.memory.max_note_chars // len(sentence) + 2)).strip()
    assert len(text) > test_cfg.memory.max_note_chars
    result = _ingest(url, text, "long_checklist")
    assert (result["op"], result["reason_code"]) == ("REJECTED", "REJECT_TOO_LONG")
    assert result["note_id"] is None


def test_patch_and_delete_through_the_tools(url):
    note_id = _ingest(url, "Preference: the user wants tabs rendered four spaces wide.", "tab_width")["note_id"]
    patched = _ok(mcp_call(url, "elf_notes_patch", {"note_id": note_id, "importance": 0.2}))
    assert (patched["note_id"], patched["op"]) == (note_id, "UPDATE")
    deleted = _ok(mcp_call(url, "elf_notes_delete", {"note_id": note_id}))
    assert (deleted["note_id"], deleted["op"]) == (note_id, "DELETE")
    note = _ok(mcp_call(url, "elf_notes_get", {"note_id": note_id}))
    assert (note["status"], note["importance"]) == ("deleted", 0.2)
    err = _error(mcp_call(url, "elf_notes_get", {"note_id": str(uuid.uuid4())}))
    assert (err["error_code"], err["http_status"]) == ("NOT_FOUND", 404)


def test_read_profile_override_is_forwarded_to_the_api(url):
    err = _error(mcp_call(url, "elf_searches_create", {"query": "Which editor theme?", "read_profile": "everything"}))
    assert err["error_code"] == "INVALID_REQUEST"
    assert err["fields"] == ["$.headers.X-ELF-Read-Profile"]
    ok = mcp_call(url, "elf_searches_create", {"query": "Which editor theme?", "read_profile": "private_only"})
    assert not ok.is_error


def test_admin_tools_reach_the_admin_bind(url):
    recent = _ok(mcp_call(url, "elf_admin_traces_recent", {"limit": 5}))
    assert recent["schema"] == "elf.recent_traces/v1"
    err = _error(mcp_call(url, "elf_admin_events_ingestion_profile_default_get"))
    assert (err["error_code"], err["http_status"]) == ("NOT_FOUND", 404)
    raw = _ok(mcp_call(url, "elf_admin_searches_raw", {"query": "Which editor theme does the user like?"}))
    assert set(raw) == {"trace_id", "items"}


def test_graph_predicate_tools_reach_the_admin_bind(url, test_stack):
    import psycopg

    scope_key, pid = f"{MCP_CONTEXT['tenant_id']}:{MCP_CONTEXT['project_id']}", str(uuid.uuid4())
    with psycopg.connect(test_stack.storage.postgres.dsn) as conn:
        conn.execute("INSERT INTO graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, "
                     "canonical_norm, cardinality, status) VALUES (%s, %s, %s, %s, 'mentors', 'mentors', 'multi', "
                     "'pending')", (pid, scope_key, MCP_CONTEXT["tenant_id"], MCP_CONTEXT["project_id"]))
    try:
        listed = _ok(mcp_call(url, "elf_admin_graph_predicates_list", {"scope": "tenant_project"}))
        assert [p["predicate_id"] for p in listed["predicates"]] == [pid]
        patched = _ok(mcp_call(url, "elf_admin_graph_predicate_patch", {"predicate_id": pid, "status": "active"}))
        assert (patched["predicate_id"], patched["status"]) == (pid, "active")
        added = _ok(mcp_call(url, "elf_admin_graph_predicate_aliases_add", {"predicate_id": pid, "alias": "Coaches"}))
        assert [a["alias_norm"] for a in added["aliases"]] == ["coaches"]
        assert _ok(mcp_call(url, "elf_admin_graph_predicate_aliases_list", {"predicate_id": pid})) == added
        err = _error(mcp_call(url, "elf_admin_graph_predicate_patch", {"predicate_id": pid, "status": "pending"}))
        assert (err["error_code"], err["http_status"], err["fields"]) == ("INVALID_REQUEST", 400, ["$.status"])
    finally:
        with psycopg.connect(test_stack.storage.postgres.dsn) as conn:
            conn.execute("DELETE FROM graph_predicates WHERE predicate_id = %s", (pid,))


def test_publish_and_grant_tools(url):
    # Needs the sharing endpoints (POST /v2/notes/{id}/publish|unpublish, /v2/spaces/{space}/grants[/revoke]).
    note_id = _ingest(url, "Decision: the team deploys on Tuesdays after the standup.", "deploy_day")["note_id"]
    published = _ok(mcp_call(url, "elf_notes_publish", {"note_id": note_id, "space": "team_shared"}))
    assert published == {"note_id": note_id, "space": "team_shared"}
    granted = _ok(mcp_call(url, "elf_space_grant_upsert", {"space": "team_shared", "grantee_kind": "agent",
                                                          "grantee_agent_id": "mcp-reviewer"}))
    assert (granted["grantee_agent_id"], granted["granted"]) == ("mcp-reviewer", True)
    grants = _ok(mcp_call(url, "elf_space_grants_list", {"space": "team_shared"}))["grants"]
    assert "mcp-reviewer" in [g["grantee_agent_id"] for g in grants]
    revoked = _ok(mcp_call(url, "elf_space_grant_revoke", {"space": "team_shared", "grantee_kind": "agent",
                                                          "grantee_agent_id": "mcp-reviewer"}))
    assert revoked == {"revoked": True}
    unpublished = _ok(mcp_call(url, "elf_notes_unpublish", {"note_id": note_id, "space": "team_shared"}))
    assert unpublished == {"note_id": note_id, "space": "agent_private"}
    err = _error(mcp_call(url, "elf_space_grants_list", {"space": "nowhere"}))
    assert (err["error_code"], err["http_status"]) == ("INVALID_REQUEST", 400)


def test_the_v1_tools_work_in_the_mcp_context(url):
    """v1 section 17's tools over v1's routes: the [mcp] ids are filled into each v1 body, v1's shapes come back."""
    added = _ok(mcp_call(url, "memory_add_note", {"scope": "agent_private", "notes": [
        {"type": "fact", "key": "v1_ledger_close", "text": "Fact: the v1 ledger closes on Fridays.", "importance": 0.6,
         "confidence": 0.9, "ttl_days": None}]}))
    (result,) = added["results"]
    assert set(result) == {"note_id", "op", "reason_code"} and result["op"] == "ADD", result
    note_id = result["note_id"]
    note = _ok(mcp_call(url, "elf_notes_get", {"note_id": note_id}))
    assert {k: note[k] for k in ("tenant_id", "project_id", "agent_id")} == {
        k: MCP_CONTEXT[k] for k in ("tenant_id", "project_id", "agent_id")}

    deadline = time.monotonic() + 60
    while True:  # indexed by the worker after commit
        items = _ok(mcp_call(url, "memory_search", {"query": "When does the v1 ledger close?", "top_k": 5}))["items"]
        if note_id in [i["note_id"] for i in items]:
            break
        assert time.monotonic() < deadline, items
        time.sleep(0.5)
    hit = next(i for i in items if i["note_id"] == note_id)
    assert hit["text"] == "Fact: the v1 ledger closes on Fridays." and "final_score" in hit
    listed = _ok(mcp_call(url, "memory_list", {"scope": "agent_private"}))
    assert note_id in [n["note_id"] for n in listed["notes"]]

    updated = _ok(
        mcp_call(url, "memory_update", {"note_id": note_id, "text": "Fact: the v1 ledger closes on Mondays."})
    )
    assert updated == {"note_id": note_id, "op": "UPDATE", "reason_code": None}
    assert _ok(mcp_call(url, "memory_delete", {"note_id": note_id})) == {"note_id": note_id, "op": "DELETE"}
    assert _ok(mcp_call(url, "elf_notes_get", {"note_id": note_id}))["status"] == "deleted"

    event = _ok(
        mcp_call(
            url,
            "memory_add_event",
            {
                "dry_run": True,
                "messages": [{"role": "user", "content": "Remember that I prefer short answers in English."}],
            },
        )
    )
    assert set(event) == {"extracted", "results"}
    assert all(set(r) == {"note_id", "op", "reason_code", "reason"} for r in event["results"])

    err = _error(
        mcp_call(
            url,
            "memory_add_note",
            {
                "scope": "agent_private",
                "notes": [
                    {"type": "fact", "text": "事実：台帳は金曜日に締まる。", "importance": 0.5, "confidence": 0.5}
                ],
            },
        )
    )
    assert (err["error_code"], err["http_status"], err["fields"]) == ("NON_ENGLISH_INPUT", 422, ["$.notes[0].text"])
    assert err["message"].startswith("CJK detected")
    err = _error(mcp_call(url, "memory_search", {"query": "ledger", "tenant_id": "someone-else"}))
    assert err["error_code"] == "ELF_MCP_TENANT_MISMATCH"
