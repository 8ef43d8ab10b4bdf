"""The event log's identity and read rule (issue 31) over HTTP with static API keys: a request's tenant, project and
agent are its key's, a body or query id may only repeat them (403 naming the JSONPath), and every read of the log
(bundles, the decision ledger, artifacts, tasks, refs) stays inside the caller's (tenant, project) and under its
channel's rules.

Keys: agent-a and agent-b in project proj-a, agent-c in proj-b, all of tenant t1; agent-x of tenant t2.
"""

from __future__ import annotations

import uuid

import pytest
import requests

from tests.keys_helpers import Keys

KEYS = Keys(
    *(
        (name, tenant, project, name)
        for name, tenant, project in (
            ("agent-a", "t1", "proj-a"),
            ("agent-b", "t1", "proj-a"),
            ("agent-c", "t1", "proj-b"),
            ("agent-x", "t2", "proj-a"),
        )
    )
)
BIG_OUTPUT = "line of a long tool output about the harbour ferry schedule\n" * 1500  # > 64 KB: an artifact


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("event_log_identity", mutate=KEYS.configure)
    s.start_api()
    return s


def call(
    svc,
    agent: str,
    method: str,
    path: str,
    *,
    body: dict | None = None,
    params: dict | None = None,
    state_own: bool = True,
):
    """One request with ``agent``'s key. ``state_own``: the body or query also states the key's own tenant and
    agent in a body and its tenant in a query (as a client without keys must), unless it names others; False sends
    only what is given."""
    own = {"tenant_id": KEYS[agent]["tenant_id"], "agent_id": agent} if state_own else {}
    if body is not None:
        body = {**own, **body}
    elif method == "GET" and state_own:
        params = {"tenant_id": own["tenant_id"], **(params or {})}
    return requests.request(
        method, svc.public + "/api/v1" + path, json=body, params=params, timeout=60, headers=KEYS.bearer(agent)
    )


def ok(r: requests.Response) -> dict:
    assert r.status_code == 200, r.text
    return r.json()


def forbidden(r: requests.Response, fields: list[str]) -> None:
    assert r.status_code == 403, r.text
    assert r.json()["error_code"] == "FORBIDDEN" and r.json()["fields"] == fields, r.text


def event(
    svc,
    agent: str,
    text: str,
    *,
    session: str,
    channel: str = "private",
    sensitivity: str = "none",
    kind: str = "message",
    content: dict | None = None,
    **extra,
) -> requests.Response:
    body = {
        "session_id": session,
        "channel": channel,
        "actor": {"type": "agent", "id": agent},
        "kind": kind,
        "sensitivity": sensitivity,
        "content": content or {"text": text},
        **extra,
    }
    return call(svc, agent, "POST", "/events", body=body)


def bundle_text(svc, agent: str, session: str, *, query: str, channel: str = "private", **extra) -> str:
    b = ok(
        call(
            svc,
            agent,
            "POST",
            "/acb/build",
            body={"session_id": session, "channel": channel, "query_text": query, **extra},
        )
    )
    return " ".join(i["text"] for s in b["sections"] for i in s["items"])


def session_id() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


def test_stated_ids_may_repeat_the_key_but_never_differ(svc):
    s = session_id()
    ok(
        event(
            svc,
            "agent-a",
            "The quay crane is booked for Tuesday.",
            session=s,
            tenant_id="t1",
            project_id="proj-a",
            agent_id="agent-a",
        )
    )  # repeating the key's ids is fine
    build = {"session_id": s, "query_text": "quay crane"}
    forbidden(call(svc, "agent-a", "POST", "/acb/build", body={**build, "agent_id": "agent-b"}), ["$.agent_id"])
    forbidden(call(svc, "agent-a", "POST", "/acb/build", body={**build, "project_id": "proj-b"}), ["$.project_id"])
    forbidden(
        call(svc, "agent-a", "POST", "/acb/build", body={**build, "tenant_id": "t2", "agent_id": "agent-x"}),
        ["$.tenant_id", "$.agent_id"],
    )
    forbidden(event(svc, "agent-a", "Written as someone else.", session=s, agent_id="agent-b"), ["$.agent_id"])
    forbidden(event(svc, "agent-a", "Written in another project.", session=s, project_id="proj-b"), ["$.project_id"])
    body = {
        "session_id": s,
        "channel": "private",
        "actor": {"type": "agent", "id": "agent-b"},
        "kind": "message",
        "content": {"text": "An agent actor that is not the key's agent."},
    }
    forbidden(call(svc, "agent-a", "POST", "/events", body=body), ["$.actor.id"])
    forbidden(
        call(
            svc,
            "agent-a",
            "POST",
            "/decisions",
            body={"session_id": s, "decision": "Use the north quay.", "project_id": "proj-b"},
        ),
        ["$.project_id"],
    )
    forbidden(
        call(
            svc, "agent-a", "POST", "/tasks", body={"session_id": s, "title": "Paint the quay.", "agent_id": "agent-c"}
        ),
        ["$.agent_id"],
    )
    forbidden(call(svc, "agent-a", "GET", "/decisions/query", params={"project_id": "proj-b"}), ["$.query.project_id"])
    forbidden(call(svc, "agent-a", "GET", "/artifacts/art_none", params={"tenant_id": "t2"}), ["$.query.tenant_id"])
    bare = {
        "session_id": s,
        "channel": "private",
        "actor": {"type": "human", "id": "user"},
        "kind": "message",
        "content": {"text": "The crane driver starts at six."},
    }
    ok(call(svc, "agent-a", "POST", "/events", body=bare, state_own=False))  # stating no id at all is fine too
    # nothing of the refused writes was stored
    texts = bundle_text(svc, "agent-a", s, query="someone else project actor")
    assert "someone else" not in texts and "another project" not in texts and "not the key" not in texts


def test_a_bundle_reads_only_the_callers_project(svc):
    s = session_id()
    ok(event(svc, "agent-c", "Project Borealis ships its ferry timetable in June.", session=s))
    ok(event(svc, "agent-a", "Project Aurora ships its ferry timetable in May.", session=s))
    mine = bundle_text(svc, "agent-a", s, query="ferry timetable")
    assert "Aurora" in mine and "Borealis" not in mine  # the same session id in proj-b is another session
    theirs = bundle_text(svc, "agent-c", s, query="ferry timetable")
    assert "Borealis" in theirs and "Aurora" not in theirs
    # another tenant's key with the same project and session id sees neither
    other = bundle_text(svc, "agent-x", s, query="ferry timetable")
    assert "Aurora" not in other and "Borealis" not in other
    # agents of one project share its sessions (PRD A6 handoff)
    assert "Aurora" in bundle_text(svc, "agent-b", s, query="ferry timetable")


def test_artifacts_are_read_within_the_project_and_the_channel(svc):
    s = session_id()
    r = ok(
        event(
            svc,
            "agent-c",
            "",
            session=s,
            kind="tool_result",
            content={"tool": "read_file", "path": "schedule.txt", "output": BIG_OUTPUT},
        )
    )
    art = r["artifact_id"]
    assert art
    assert ok(call(svc, "agent-c", "GET", f"/artifacts/{art}"))["text"] == BIG_OUTPUT
    gone = call(svc, "agent-a", "GET", f"/artifacts/{art}")  # same tenant, other project
    assert gone.status_code == 404 and gone.json()["fields"] == ["$.path.artifact_id"], gone.text[:300]
    assert call(svc, "agent-x", "GET", f"/artifacts/{art}").status_code == 404  # other tenant
    r = ok(
        event(
            svc,
            "agent-a",
            "",
            session=s,
            kind="tool_result",
            channel="team",
            sensitivity="high",
            content={"tool": "read_file", "path": "salaries.txt", "output": BIG_OUTPUT},
        )
    )
    assert ok(call(svc, "agent-a", "GET", f"/artifacts/{r['artifact_id']}", params={"channel": "team"}))
    public = call(svc, "agent-a", "GET", f"/artifacts/{r['artifact_id']}", params={"channel": "public"})
    assert public.status_code == 404, public.text[:300]  # a public bundle never loads a high event


def test_the_decision_ledger_is_the_projects_and_follows_the_channel(svc):
    s = session_id()
    theirs = ok(
        call(
            svc, "agent-c", "POST", "/decisions", body={"session_id": s, "decision": "Borealis moves to the west dock."}
        )
    )["decision_id"]
    ok(
        call(
            svc,
            "agent-a",
            "POST",
            "/decisions",
            body={"session_id": s, "decision": "Aurora keeps the east dock.", "channel": "public"},
        )
    )
    ok(
        call(
            svc,
            "agent-a",
            "POST",
            "/decisions",
            body={"session_id": s, "decision": "Aurora's budget is private.", "channel": "team", "sensitivity": "high"},
        )
    )
    listed = [d["decision"] for d in ok(call(svc, "agent-a", "GET", "/decisions/query"))["decisions"]]
    assert "Aurora keeps the east dock." in listed and "Aurora's budget is private." in listed
    assert not any("Borealis" in d for d in listed)
    public = [
        d["decision"]
        for d in ok(call(svc, "agent-a", "GET", "/decisions/query", params={"channel": "public"}))["decisions"]
    ]
    assert public == ["Aurora keeps the east dock."]
    # another project's decision cannot be superseded, nor named in refs: it does not exist here
    r = call(
        svc,
        "agent-a",
        "POST",
        "/decisions",
        body={"session_id": s, "decision": "Borealis moves east.", "supersedes": theirs},
    )
    assert r.status_code == 404 and r.json()["fields"] == ["$.supersedes"], r.text
    r = event(svc, "agent-a", "See their decision.", session=s, refs=[theirs])
    assert r.status_code == 400 and r.json()["fields"] == ["$.refs[0]"], r.text
    assert [d["status"] for d in ok(call(svc, "agent-c", "GET", "/decisions/query"))["decisions"]] == ["active"]


def test_tasks_are_the_projects(svc):
    s = session_id()
    task = ok(call(svc, "agent-c", "POST", "/tasks", body={"session_id": s, "title": "Repaint the west dock."}))
    r = call(
        svc,
        "agent-a",
        "POST",
        "/tasks",
        body={"session_id": s, "task_id": task["task_id"], "status": "done", "title": "Taken over."},
    )
    assert r.status_code == 400 and r.json()["fields"] == ["$.task_id"], r.text
    # the same answer as for a task id that exists nowhere: no key learns another project's task ids
    unknown = call(
        svc,
        "agent-a",
        "POST",
        "/tasks",
        body={"session_id": s, "task_id": "tsk_nowhere", "status": "done", "title": "Taken over."},
    )
    assert (unknown.status_code, unknown.json()) == (r.status_code, r.json()), unknown.text
    assert "Repaint the west dock" not in bundle_text(svc, "agent-a", s, query="repaint dock")
    assert "Repaint the west dock" in bundle_text(svc, "agent-c", s, query="repaint dock")
