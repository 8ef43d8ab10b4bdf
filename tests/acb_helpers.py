"""Helpers for the event log / bundle tests: record events and build bundles over HTTP."""

from __future__ import annotations

import uuid

import requests

from tests.notes_helpers import rows


def tenant() -> str:
    return f"acb-{uuid.uuid4().hex[:8]}"


def record(svc, t: str, kind: str, content: dict, *, session: str = "s1", agent: str = "agentA",
           channel: str = "private", actor: tuple[str, str] | None = None, sensitivity: str = "none",
           refs: list[str] | None = None, tags: list[str] | None = None, expect: int = 200) -> dict:
    actor = actor or (("tool", "fs") if kind == "tool_result" else ("agent", agent))
    body = {"tenant_id": t, "session_id": session, "agent_id": agent, "project_id": "p1", "channel": channel,
            "actor": {"type": actor[0], "id": actor[1]}, "kind": kind, "sensitivity": sensitivity,
            "content": content, "refs": refs or [], "tags": tags or []}
    r = requests.post(svc.public + "/api/v1/events", json=body, timeout=60)
    assert r.status_code == expect, r.text
    return r.json()


def say(svc, t: str, text: str, *, human: bool = True, **kw) -> dict:
    agent = kw.get("agent", "agentA")
    return record(svc, t, "message", {"text": text}, actor=("human", "user") if human else ("agent", agent), **kw)


def build(svc, t: str, *, session: str = "s1", agent: str = "agentA", channel: str = "private",
          query: str | None = None, max_tokens: int = 65000, expect: int = 200) -> dict:
    body = {"tenant_id": t, "session_id": session, "agent_id": agent, "project_id": "p1", "channel": channel,
            "max_tokens": max_tokens, **({"query_text": query} if query is not None else {})}
    r = requests.post(svc.public + "/api/v1/acb/build", json=body, timeout=60)
    assert r.status_code == expect, r.text
    return r.json()


def section(bundle: dict, name: str) -> dict:
    return next(s for s in bundle["sections"] if s["name"] == name)


def texts(bundle: dict, name: str | None = None) -> list[str]:
    return [i["text"] for s in bundle["sections"] if name in (None, s["name"]) for i in s["items"]]


def within_caps(bundle: dict) -> bool:
    return (bundle["token_used_est"] <= bundle["budget_tokens"]
            and all(s["token_est"] <= s["cap"] for s in bundle["sections"])
            and bundle["token_used_est"] == sum(s["token_est"] for s in bundle["sections"]))


def event_count(svc, t: str) -> int:
    return rows(svc, "SELECT count(*) FROM acb_events WHERE tenant_id = %s", (t,))[0][0]
