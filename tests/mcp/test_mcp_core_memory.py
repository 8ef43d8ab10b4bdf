"""Core memory through elf-mcp, end to end: a real elf-mcp process in front of a real elf-api (its own database
and ports), driven with the official MCP client over Streamable HTTP. PROFILE.md and SESSION.md on the public
bind, POLICY.md on the admin bind, each endpoint one tool."""

from __future__ import annotations

import json
import uuid

import pytest

from elf_mcp.core_memory_tools import admin_core_memory_tools, core_memory_tools
from tests.conftest import mcp_call, mcp_session, start_elf_mcp_for

RUN = uuid.uuid4().hex[:8]
MCP_CONTEXT = {"tenant_id": f"cm-tenant-{RUN}", "project_id": "cm-project", "agent_id": "cm-agent",
               "read_profile": "private_plus_project"}
PROFILE = (
    "# PROFILE\n"
    "\n"
    "## Preferences\n"
    "- key:response.tone | value:professional-friendly | priority:70 | ttl:none | source:user_explicit | "
    "updated_at:2026-02-07T11:00:00Z\n"
    "- key:response.format.default | value:bullet-summary | priority:60 | ttl:none | source:user_inferred | "
    "updated_at:2026-02-07T11:05:00Z\n"
)
POLICY = (
    "# POLICY\n"
    "\n"
    "## Guardrails\n"
    "- key:policy.prohibit.secrets_exfiltration | value:true | priority:100 | ttl:none | source:admin | "
    "updated_at:2026-02-01T00:00:00Z\n"
    "- key:response.tone | value:formal | priority:100 | ttl:none | source:admin | updated_at:2026-02-01T00:00:00Z\n"
)
POLICY_ONLY = {"scope": "policy", "kind": None, "priority": None, "updated_at": None, "source": None, "ttl": None,
               "expires_at": None}


@pytest.fixture(scope="module")
def url(isolated_services_module):
    s = isolated_services_module("mcp_cm")
    s.start_api()
    proc, url = start_elf_mcp_for(s, MCP_CONTEXT)
    yield url
    proc.stop()


def run_id() -> str:
    return f"run-{uuid.uuid4().hex[:12]}"


def _ok(result):
    assert not result.is_error, result.content[0].text
    return result.structured_content


def _text(result) -> str:
    """A non-JSON success (markdown, JSON lines): passed through as text, no structured content."""
    assert not result.is_error, result.content[0].text
    assert result.structured_content is None
    (content,) = result.content
    return content.text


def _error(result) -> dict:
    assert result.is_error, result.content[0].text
    return result.structured_content


def _resolved(url, run: str | None = None, keys: list[str] | None = None) -> dict[str, dict]:
    args = {"run_id": run} if run else {}
    if keys is not None:
        args["keys"] = keys
    return {i["key"]: i for i in _ok(mcp_call(url, "elf_core_memory_resolve", args))["items"]}


def test_lists_the_core_memory_tools(url):
    listed = {t.name: t for t in mcp_session(url, lambda s: s.list_tools()).tools}
    mine = core_memory_tools() + admin_core_memory_tools()
    assert len(mine) == 18 and {t.name for t in mine} <= set(listed)
    props = {t.name: set(listed[t.name].input_schema["properties"]) for t in mine}
    assert props["elf_core_memory_resolve"] == {"keys", "run_id"}
    assert props["elf_core_memory_utterance"] == {"text", "run_id"}
    assert props["elf_core_memory_profile_put"] == {"markdown", "if_version"}
    assert props["elf_core_memory_session_put"] == {"run_id", "markdown", "if_version"}
    assert props["elf_core_memory_delete"] == {"scope", "key", "run_id"}
    assert props["elf_core_memory_profile_get"] == props["elf_admin_core_memory_policy_get"] == {"format"}
    assert props["elf_admin_core_memory_delete"] == {"scope", "key"}
    assert listed["elf_core_memory_resolve"].annotations.read_only_hint is True
    assert listed["elf_core_memory_run_end"].annotations.destructive_hint is True
    assert listed["elf_core_memory_upsert"].input_schema["additionalProperties"] is False


def test_remember_that_then_resolve_returns_it_with_provenance(url):
    run = run_id()
    said = _ok(mcp_call(url, "elf_core_memory_utterance", {"text": "remember that I prefer short answers",
                                                          "run_id": run}))
    assert (said["op"], said["trigger"], said["scope"]) == ("upsert", "remember that", "profile")
    assert (said["key"], said["value"], said["verified"]) == ("response.verbosity", "concise", True)
    assert said["doc_version"] >= 1 and said["audit_id"] and said["acknowledgement"]
    item = _resolved(url, run)["response.verbosity"]  # no keys: everything live, as before a turn
    assert (item["found"], item["value"]) == (True, "concise")
    prov = item["provenance"]
    assert (prov["scope"], prov["source"], prov["kind"], prov["ttl"]) == ("profile", "user_explicit", "preference",
                                                                          "none")
    assert prov["priority"] == 70 and prov["updated_at"] and prov["expires_at"] is None
    asked = _resolved(url, run, ["response.verbosity", "never.written"])
    assert asked["never.written"] == {"key": "never.written", "found": False, "value": None, "provenance": None}
    # The profile write is filed under the run: its audit is one JSON line, still passed through as text.
    (line,) = _text(mcp_call(url, "elf_core_memory_audit", {"run_id": run})).splitlines()
    assert {k: json.loads(line)[k] for k in ("op", "scope", "key", "new", "actor")} == {
        "op": "upsert", "scope": "profile", "key": "response.verbosity", "new": "concise", "actor": "user_explicit"}


def test_profile_put_as_json_then_get_returns_the_exact_text(url):
    written = _ok(mcp_call(url, "elf_core_memory_profile_put", {"markdown": PROFILE}))
    assert (written["scope"], written["run_id"], written["entries"]) == ("profile", None, 2)
    assert written["changed"] is True and written["doc_version"] >= 1
    assert _text(mcp_call(url, "elf_core_memory_profile_get")) == PROFILE
    again = _ok(mcp_call(url, "elf_core_memory_profile_put", {"markdown": PROFILE}))
    assert (again["changed"], again["doc_version"]) == (False, written["doc_version"])
    assert _resolved(url, keys=["response.format.default"])["response.format.default"]["value"] == "bullet-summary"


def test_invalid_markdown_is_a_tool_error_naming_the_line(url):
    bad = PROFILE.replace("ttl:none", "ttl:forever", 1)
    err = _error(mcp_call(url, "elf_core_memory_profile_put", {"markdown": bad}))
    assert (err["error_code"], err["http_status"], err["fields"]) == ("MARKDOWN_INVALID", 422, ["$.line[4].ttl"])
    thai = PROFILE.replace("value:bullet-summary", "value:สรุปเป็นข้อ")
    err = _error(mcp_call(url, "elf_core_memory_profile_put", {"markdown": thai}))
    assert (err["error_code"], err["fields"]) == ("NON_ENGLISH_INPUT", ["$.line[5].value"])
    err = _error(mcp_call(url, "elf_core_memory_profile_put", {}))
    assert (err["error_code"], err["fields"]) == ("INVALID_REQUEST", ["$.markdown"])


def test_session_entry_expires_when_the_run_ends(url):
    run = run_id()
    entry = {"scope": "session", "kind": "fact", "key": "task.current_goal", "value": "Ship the core memory tools",
             "priority": 80, "ttl": "session_end", "source": "system", "run_id": run}
    written = _ok(mcp_call(url, "elf_core_memory_upsert", entry))
    assert (written["status"], written["scope"], written["pending_entry_id"]) == ("written", "session", None)
    item = _resolved(url, run)["task.current_goal"]
    assert (item["value"], item["provenance"]["scope"], item["provenance"]["ttl"]) == (
        "Ship the core memory tools", "session", "session_end")
    session = _text(mcp_call(url, "elf_core_memory_session_get", {"run_id": run}))
    assert session.startswith("# SESSION") and "key:task.current_goal" in session
    assert "task.current_goal" not in _resolved(url)  # without the run, no session

    ended = _ok(mcp_call(url, "elf_core_memory_run_end", {"run_id": run}))
    assert (ended["run_id"], ended["already_ended"], ended["expired"]) == (run, False, 1)
    assert "task.current_goal" not in _resolved(url, run)
    gone = _resolved(url, run, ["task.current_goal"])["task.current_goal"]
    assert (gone["found"], gone["provenance"]) == (False, None)
    assert _ok(mcp_call(url, "elf_core_memory_run_end", {"run_id": run}))["already_ended"] is True
    err = _error(mcp_call(url, "elf_core_memory_upsert", {**entry, "value": "Something else"}))
    assert (err["error_code"], err["http_status"]) == ("RUN_ENDED", 409)
    err = _error(mcp_call(url, "elf_core_memory_session_put", {"run_id": run, "markdown": "# SESSION\n"}))
    assert err["error_code"] == "RUN_ENDED"

    lines = [json.loads(line) for line in _text(mcp_call(url, "elf_core_memory_audit", {"run_id": run})).splitlines()]
    assert [(a["op"], a["key"]) for a in lines] == [("upsert", "task.current_goal"), ("end_run", None),
                                                    ("expire", "task.current_goal")]
    assert all(a["run_id"] == run and a["ts"] for a in lines)


def test_session_put_delete_and_compact(url):
    run = run_id()
    text = ("# SESSION\n\n## Context\n"
            "- key:response.verbosity | value:detailed | priority:75 | ttl:8h | source:user_explicit | "
            "updated_at:2026-02-07T11:10:00Z\n"
            "- key:task.step | value:one | priority:10 | ttl:none | source:system\n"
            "- key:task.step | value:two | priority:20 | ttl:none | source:system\n")
    assert _ok(mcp_call(url, "elf_core_memory_session_put", {"run_id": run, "markdown": text}))["entries"] == 3
    assert _text(mcp_call(url, "elf_core_memory_session_get", {"run_id": run})) == text
    assert _resolved(url, run, ["task.step"])["task.step"]["value"] == "two"
    compacted = _ok(mcp_call(url, "elf_core_memory_compact", {"scope": "session", "run_id": run}))
    # the 8h line written on 2026-02-07 is long expired; the lower-priority task.step loses
    assert sorted(r["key"] for r in compacted["removed"]) == ["response.verbosity", "task.step"]
    deleted = _ok(mcp_call(url, "elf_core_memory_delete", {"scope": "session", "key": "task.step", "run_id": run}))
    assert (deleted["scope"], deleted["key"]) == ("session", "task.step") and deleted["audit_id"]
    err = _error(mcp_call(url, "elf_core_memory_delete", {"scope": "session", "key": "task.step", "run_id": run}))
    assert (err["error_code"], err["http_status"]) == ("NOT_FOUND", 404)
    err = _error(mcp_call(url, "elf_core_memory_delete", {"scope": "policy", "key": "response.tone"}))
    assert (err["error_code"], err["http_status"]) == ("SCOPE_DENIED", 403)


def test_non_english_value_is_a_tool_error(url):
    run = run_id()
    entry = {"scope": "profile", "kind": "preference", "key": "response.style", "value": "ตอบสั้นๆ",
             "source": "user_explicit", "run_id": run}
    err = _error(mcp_call(url, "elf_core_memory_upsert", entry))
    assert (err["error_code"], err["http_status"], err["fields"]) == ("NON_ENGLISH_INPUT", 422, ["$.value"])
    err = _error(mcp_call(url, "elf_core_memory_utterance", {"text": "จำไว้ว่าฉันชอบคำตอบสั้นๆ", "run_id": run}))
    assert (err["error_code"], err["fields"]) == ("NON_ENGLISH_INPUT", ["$.text"])
    assert _resolved(url, run, ["response.style"])["response.style"]["found"] is False
    assert _text(mcp_call(url, "elf_core_memory_audit", {"run_id": run})) == ""  # nothing was written


def test_inferred_entries_wait_for_confirmation(url):
    run = run_id()
    staged = mcp_call(url, "elf_core_memory_upsert", {
        "scope": "profile", "kind": "preference", "key": "preference.green_tea", "value": "green tea",
        "source": "user_inferred", "run_id": run})
    staged = _ok(staged)
    assert (staged["status"], staged["doc_version"]) == ("pending", None)
    guess = _ok(mcp_call(url, "elf_core_memory_utterance", {"text": "maybe remember that I like jazz",
                                                           "run_id": run}))
    assert guess["op"] == "pending" and guess["confidence"] < 0.8
    pending = _ok(mcp_call(url, "elf_core_memory_pending_list", {"run_id": run}))["items"]
    assert [p["entry_id"] for p in pending] == [staged["pending_entry_id"], guess["pending_entry_id"]]
    assert _resolved(url, run, ["preference.green_tea"])["preference.green_tea"]["found"] is False

    ids = {"run_id": run, "entry_id": staged["pending_entry_id"]}
    confirmed = _ok(mcp_call(url, "elf_core_memory_pending_confirm", ids))
    assert confirmed["status"] == "confirmed" and confirmed["doc_version"] >= 1
    assert _resolved(url, run, ["preference.green_tea"])["preference.green_tea"]["value"] == "green tea"
    err = _error(mcp_call(url, "elf_core_memory_pending_reject", ids))
    assert (err["error_code"], err["http_status"]) == ("ALREADY_DECIDED", 409)
    rejected = _ok(mcp_call(url, "elf_core_memory_pending_reject", {"run_id": run,
                                                                    "entry_id": guess["pending_entry_id"]}))
    assert (rejected["status"], rejected["doc_version"]) == ("rejected", None)
    assert _ok(mcp_call(url, "elf_core_memory_pending_list", {"run_id": run}))["items"] == []
    err = _error(mcp_call(url, "elf_core_memory_pending_confirm", {"run_id": run, "entry_id": str(uuid.uuid4())}))
    assert (err["error_code"], err["http_status"]) == ("NOT_FOUND", 404)


def test_admin_policy_outranks_the_profile_and_shows_only_its_scope(url):
    _ok(mcp_call(url, "elf_core_memory_upsert", {"scope": "profile", "kind": "preference", "key": "response.tone",
                                                 "value": "casual", "priority": 90, "source": "user_explicit"}))
    written = _ok(mcp_call(url, "elf_admin_core_memory_policy_put", {"markdown": POLICY}))
    assert (written["scope"], written["entries"]) == ("policy", 2)
    assert _text(mcp_call(url, "elf_admin_core_memory_policy_get")) == POLICY
    resolved = _resolved(url)
    assert resolved["response.tone"] == {"key": "response.tone", "found": True, "value": "formal",
                                         "provenance": POLICY_ONLY}
    # a key only POLICY.md has is not listed without keys (issue 31 item 6), but resolves when named
    assert "policy.prohibit.secrets_exfiltration" not in resolved
    named = _resolved(url, keys=["policy.prohibit.secrets_exfiltration"])["policy.prohibit.secrets_exfiltration"]
    assert named["found"] and named["provenance"] == POLICY_ONLY

    added = _ok(mcp_call(url, "elf_admin_core_memory_upsert", {"scope": "policy", "key": "policy.max_tools",
                                                               "value": "5"}))
    assert (added["status"], added["scope"]) == ("written", "policy")
    assert _resolved(url, keys=["policy.max_tools"])["policy.max_tools"]["provenance"] == POLICY_ONLY
    _ok(mcp_call(url, "elf_admin_core_memory_delete", {"scope": "policy", "key": "response.tone"}))
    tone = _resolved(url, keys=["response.tone"])["response.tone"]
    assert (tone["value"], tone["provenance"]["scope"]) == ("casual", "profile")
    err = _error(mcp_call(url, "elf_admin_core_memory_delete", {"scope": "policy", "key": "response.tone"}))
    assert (err["error_code"], err["http_status"]) == ("NOT_FOUND", 404)
