"""The event log and Active Context Bundles through elf-mcp, end to end: a real elf-mcp process (with an [mcp]
context) in front of a real elf-api (its own database and ports), driven with the official MCP client over
Streamable HTTP. The /api/v1 operations take tenant_id, agent_id and project_id in the body or query; the tools
are called without them, and elf-mcp fills them in from [mcp] (and refuses another tenant)."""

from __future__ import annotations

import uuid

import pytest

from elf_mcp.acb_tools import acb_tools
from tests.conftest import mcp_call, mcp_session, start_elf_mcp_for

RUN = uuid.uuid4().hex[:8]
MCP_CONTEXT = {"tenant_id": f"acb-tenant-{RUN}", "project_id": "acb-project", "agent_id": "acb-agent",
               "read_profile": "private_plus_project"}
USER = {"type": "human", "id": "user"}
TOOL_OUTPUT = ("service: billing\n"
               "listen_port: 8443\n"
               "database: billing_ledger\n"
               "owner: payments team\n")


@pytest.fixture(scope="module")
def url(isolated_services_module):
    s = isolated_services_module("mcp_acb")
    s.start_api()
    proc, url = start_elf_mcp_for(s, MCP_CONTEXT)
    yield url
    proc.stop()


def session_id() -> str:
    return f"sess-{uuid.uuid4().hex[:12]}"


def _ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def _error(result) -> dict:
    assert result.is_error, result.content[0].text
    return result.structured_content


def _record(url, session: str, kind: str, content: dict, actor: dict | None = None, **extra) -> dict:
    args = {"session_id": session, "channel": "private", "actor": actor or USER, "kind": kind, "content": content,
            **extra}
    return _ok(mcp_call(url, "elf_acb_record_event", args))


def _items(bundle: dict) -> dict[str, list[dict]]:
    return {s["name"]: s["items"] for s in bundle["sections"]}


def test_lists_the_acb_tools_with_the_context_optional(url):
    listed = {t.name: t for t in mcp_session(url, lambda s: s.list_tools()).tools}
    mine = {t.name for t in acb_tools()}
    assert len(mine) == 6 and mine <= set(listed)
    record = listed["elf_acb_record_event"].input_schema
    assert {"tenant_id", "agent_id", "project_id", "session_id", "kind", "content"} <= set(record["properties"])
    assert sorted(record["required"]) == ["actor", "channel", "content", "kind", "session_id"]
    assert record["additionalProperties"] is False
    assert "[mcp].tenant_id" in record["properties"]["tenant_id"]["description"]
    assert listed["elf_acb_build"].input_schema["required"] == ["session_id"]
    artifact = listed["elf_acb_get_artifact"].input_schema
    assert set(artifact["properties"]) == {"artifact_id", "tenant_id", "project_id", "agent_id", "channel"}
    assert artifact["required"] == ["artifact_id"]
    assert listed["elf_acb_query_decisions"].annotations.read_only_hint is True
    assert "query_text" in listed["elf_acb_build"].description


def test_record_a_message_and_a_tool_result_then_the_bundle_holds_the_output(url):
    session = session_id()
    message = _record(url, session, "message", {"text": "Which port does the billing service listen on?"})
    assert message["event_id"].startswith("evt_") and message["chunk_ids"] and message["artifact_id"] is None
    call = _record(url, session, "tool_call", {"tool": "fs.read_file", "args": {"path": "config/billing.yaml"}},
                   actor={"type": "agent", "id": MCP_CONTEXT["agent_id"]}, refs=[message["event_id"]])
    result = _record(url, session, "tool_result", {"tool": "fs.read_file", "output": TOOL_OUTPUT,
                                                   "path": "config/billing.yaml"},
                     actor={"type": "tool", "id": "fs.read_file"}, refs=[call["event_id"]])
    assert (result["artifact_id"], result["withheld"]) == (None, False)  # 4 lines: no artifact

    bundle = _ok(mcp_call(url, "elf_acb_build", {"session_id": session,
                                                 "query_text": "Which port does the billing service listen on?",
                                                 "max_tokens": 8000}))
    assert bundle["budget_tokens"] == 8000 and bundle["token_used_est"] <= 8000
    items = _items(bundle)
    # The build ran as elf-mcp's agent and project (filled in from [mcp]) ...
    assert items["identity"][0]["text"] == (f"You are agent {MCP_CONTEXT['agent_id']} in session {session} "
                                            f"(project {MCP_CONTEXT['project_id']}).")
    # ... and the events were recorded as that same agent: nothing to hand over from another one.
    assert items["handoff_packet"] == []
    # The tool output is in the bundle (the recent window or the evidence the query found: whichever section
    # claims it first), and every recorded event is there once: a claimed chunk is not repeated elsewhere.
    quoting = [i for s in ("retrieved_evidence", "recent_window") for i in items[s] if result["event_id"] in i["refs"]]
    assert len(quoting) == 1 and "listen_port: 8443" in quoting[0]["text"]
    for event in (message, call, result):
        assert sum(event["event_id"] in i["refs"] for s in items.values() for i in s) == 1, event
    assert {"port", "listen"} <= set(bundle["provenance"]["query_terms"])
    assert bundle["provenance"]["filters"]["channel"] == "private"


def test_record_a_decision_query_it_and_supersede_it(url):
    session = session_id()
    first = _ok(mcp_call(url, "elf_acb_record_decision", {
        "session_id": session, "decision": "Serve the billing API on port 8443 behind the internal proxy.",
        "rationale": ["The proxy terminates TLS for every internal service."], "scope": "project"}))
    assert first["decision_id"].startswith("dec_") and first["event_id"]
    found = _ok(mcp_call(url, "elf_acb_query_decisions", {"q": "billing proxy port", "session_id": session}))
    (row,) = found["decisions"]
    assert (row["decision_id"], row["status"], row["session_id"]) == (first["decision_id"], "active", session)
    assert row["agent_id"] == MCP_CONTEXT["agent_id"] and row["rationale"] == [
        "The proxy terminates TLS for every internal service."]

    second = _ok(mcp_call(url, "elf_acb_record_decision", {
        "session_id": session, "decision": "Serve the billing API on port 9443 behind the internal proxy.",
        "supersedes": first["decision_id"]}))
    every = {d["decision_id"]: d for d in _ok(mcp_call(url, "elf_acb_query_decisions",
                                                       {"session_id": session, "status": "all"}))["decisions"]}
    assert every[first["decision_id"]]["status"] == "superseded"
    assert every[first["decision_id"]]["superseded_by"] == second["decision_id"]
    assert every[second["decision_id"]]["supersedes"] == first["decision_id"]

    again = _error(mcp_call(url, "elf_acb_record_decision", {
        "session_id": session, "decision": "Serve the billing API on port 7443.", "supersedes": first["decision_id"]}))
    assert (again["error_code"], again["http_status"]) == ("DECISION_SUPERSEDED", 409)


def test_a_tool_output_over_64_kb_is_kept_whole_as_an_artifact(url):
    session = session_id()
    lines = [f"line {n:05d}: the billing ledger keeps every invoice for seven years." for n in range(1, 1401)]
    output = "\n".join(lines) + "\n"
    assert len(output.encode()) > 64 * 1024
    recorded = _record(url, session, "tool_result", {"tool": "fs.read_file", "output": output,
                                                     "path": "docs/ledger.txt"},
                       actor={"type": "tool", "id": "fs.read_file"})
    artifact_id = recorded["artifact_id"]
    assert artifact_id and artifact_id.startswith("art_")

    bundle = _ok(mcp_call(url, "elf_acb_build", {"session_id": session}))
    truncated = {(tuple(o["candidates"]), o["artifact_id"]) for o in bundle["omissions"]
                 if o["reason"] == "truncated_tool_output"}
    assert truncated == {((recorded["event_id"],), artifact_id)}

    artifact = _ok(mcp_call(url, "elf_acb_get_artifact", {"artifact_id": artifact_id}))
    assert artifact["text"] == output
    assert (artifact["artifact_id"], artifact["session_id"], artifact["refs"]) == (
        artifact_id, session, [recorded["event_id"]])
    assert artifact["meta"]["bytes"] == len(output.encode()) and artifact["meta"]["path"] == "docs/ledger.txt"

    missing = _error(mcp_call(url, "elf_acb_get_artifact", {"artifact_id": "art_does_not_exist"}))
    assert (missing["error_code"], missing["http_status"]) == ("NOT_FOUND", 404)


def test_the_identity_is_elf_mcps_own_and_another_one_is_refused(url):
    session = session_id()
    own = _record(url, session, "message", {"text": "Keep the audit log for one year."},
                  tenant_id=MCP_CONTEXT["tenant_id"])  # passing its own tenant is fine
    other = {"tenant_id": "someone-else", "session_id": session, "channel": "private", "actor": USER,
             "kind": "message", "content": {"text": "This must not be recorded anywhere."}}
    for tool, args in (("elf_acb_record_event", other),
                       ("elf_acb_build", {"tenant_id": "someone-else", "session_id": session}),
                       ("elf_acb_get_artifact", {"tenant_id": "someone-else", "artifact_id": "art_x"}),
                       ("elf_acb_query_decisions", {"tenant_id": "someone-else"}),
                       ("elf_acb_record_decision", {"tenant_id": "someone-else", "session_id": session,
                                                    "decision": "This must not be recorded."}),
                       ("elf_acb_task", {"tenant_id": "someone-else", "session_id": session, "title": "Nope"})):
        err = _error(mcp_call(url, tool, args))
        assert (err["error_code"], err["fields"]) == ("ELF_MCP_TENANT_MISMATCH", ["$.tenant_id"]), tool
        assert "http_status" not in err  # refused by elf-mcp: nothing reached elf-api
    for name in ("project_id", "agent_id"):  # nor another project or agent of its tenant (issue 31)
        for tool, args in (("elf_acb_record_event", {**other, "tenant_id": None, name: "someone-else"}),
                           ("elf_acb_build", {"session_id": session, name: "someone-else"}),
                           ("elf_acb_get_artifact", {"artifact_id": "art_x", name: "someone-else"}),
                           ("elf_acb_query_decisions", {name: "someone-else"})):
            err = _error(mcp_call(url, tool, args))
            assert (err["error_code"], err["fields"]) == ("ELF_MCP_CONTEXT_MISMATCH", [f"$.{name}"]), tool
            assert "http_status" not in err
    bundle = _ok(mcp_call(url, "elf_acb_build", {"session_id": session}))
    texts = [i["text"] for i in _items(bundle)["recent_window"]]
    assert len(texts) == 1 and "Keep the audit log for one year." in texts[0] and own["event_id"]
    assert _ok(mcp_call(url, "elf_acb_query_decisions", {"session_id": session}))["decisions"] == []


def test_api_errors_come_back_as_tool_errors(url):
    session = session_id()
    thai = _error(mcp_call(url, "elf_acb_record_event", {
        "session_id": session, "channel": "private", "actor": USER, "kind": "message",
        "content": {"text": "โปรเจกต์นี้มีไว้ทำอะไร"}}))
    assert (thai["error_code"], thai["http_status"], thai["fields"]) == ("NON_ENGLISH_INPUT", 422, ["$.content.text"])
    bad = _error(mcp_call(url, "elf_acb_record_event", {"session_id": session, "channel": "private", "actor": USER,
                                                        "kind": "message", "content": {"words": "hello"}}))
    assert (bad["error_code"], bad["http_status"]) == ("INVALID_REQUEST", 400)
    assert bad["fields"] and all(f.startswith("$.content.") for f in bad["fields"])
    for tool, args in (("elf_acb_record_decision", {"session_id": session, "decision": "เราจะใช้พอร์ต 8443"}),
                       ("elf_acb_task", {"session_id": session, "title": "งานใหม่ของทีม"}),
                       ("elf_acb_build", {"session_id": session, "query_text": "โปรเจกต์นี้มีไว้ทำอะไร"})):
        err = _error(mcp_call(url, tool, args))
        assert (err["error_code"], err["http_status"]) == ("NON_ENGLISH_INPUT", 422) and err["fields"], tool
    unknown = _error(mcp_call(url, "elf_acb_record_decision", {"session_id": session, "decision": "Use port 8443.",
                                                               "supersedes": "dec_does_not_exist"}))
    assert (unknown["error_code"], unknown["http_status"]) == ("NOT_FOUND", 404)
    task = _ok(mcp_call(url, "elf_acb_task", {"session_id": session, "title": "Wire the billing proxy",
                                              "status": "doing"}))
    assert task["task_id"]
    bundle = _ok(mcp_call(url, "elf_acb_build", {"session_id": session}))
    assert any(task["task_id"] in i["refs"] for i in _items(bundle)["task_state"])

