"""record_event over HTTP: validation with JSONPaths, the English gate on what people and agents write (tool
output is data), tool-result normalisation with its artifact, and the log's append-only rule in Postgres."""

from __future__ import annotations

import psycopg
import pytest
import requests

from tests.acb_helpers import record, say, tenant


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("acb_events")
    s.start_api()
    return s


def test_bad_events_get_their_jsonpaths(svc):
    t = tenant()
    base = {"tenant_id": t, "session_id": "s1", "agent_id": "a1", "channel": "private",
            "actor": {"type": "human", "id": "u"}, "kind": "message", "content": {"text": "hello there"}}
    cases = [({"channel": "lobby"}, "$.channel"), ({"actor": {"type": "robot", "id": "r"}}, "$.actor.type"),
             ({"kind": "note"}, "$.kind"), ({"sensitivity": "medium"}, "$.sensitivity"),
             ({"content": {"txt": "x"}}, "$.content.txt"), ({"content": {}}, "$.content.text"),
             ({"session_id": ""}, "$.session_id"), ({"project_id": "__org__"}, "$.project_id"),
             ({"tenant_id": "t\u0000x"}, "$.tenant_id"), ({"agent_id": "a\u200b1"}, "$.agent_id"),
             ({"refs": ["evt_nope"]}, "$.refs[0]"), ({"extra": 1}, "$.extra")]
    for change, path in cases:
        r = requests.post(svc.public + "/api/v1/events", json={**base, **change}, timeout=10)
        assert r.status_code == 400 and path in r.json()["fields"], (change, r.text)
    thai = say(svc, t, "สวัสดีครับ ยินดีที่ได้รู้จัก", expect=422)
    assert thai["error_code"] == "NON_ENGLISH_INPUT" and thai["fields"] == ["$.content.text"]
    data = record(svc, t, "tool_result", {"tool": "cat", "output": "สวัสดีครับ ยินดีที่ได้รู้จัก\n"})
    assert data["chunk_ids"]  # tool output is data: stored as received


def test_tool_results_are_normalised_with_an_artifact(svc):
    t = tenant()
    lines = [f"line {i}: the harbour log entry for berth {i % 17}" for i in range(1, 3001)]
    output = "\n".join(lines) + "\n"
    assert len(output.encode()) > 64 * 1024
    r = record(svc, t, "tool_result", {"tool": "read_file", "path": "harbour.log", "output": output})
    assert r["artifact_id"] and len(r["chunk_ids"]) > 1
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        (content,) = conn.execute("SELECT content FROM acb_events WHERE event_id = %s", (r["event_id"],)).fetchone()
        assert content["truncated"] is True and content["artifact_id"] == r["artifact_id"]
        excerpt = content["excerpt_text"]
        assert len(excerpt.encode()) <= 64 * 1024 and excerpt.endswith("\n") and output.startswith(excerpt)
        assert content["line_range"] == [1, excerpt.count("\n")] and content["output_bytes"] == len(output.encode())
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("UPDATE acb_events SET kind = 'message' WHERE event_id = %s", (r["event_id"],))
        conn.rollback()
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM acb_events WHERE event_id = %s", (r["event_id"],))
    art = requests.get(f"{svc.public}/api/v1/artifacts/{r['artifact_id']}",
                       params={"tenant_id": t, "project_id": "p1"}, timeout=10)
    assert art.status_code == 200 and art.json()["text"] == output and art.json()["refs"] == [r["event_id"]]
    other = requests.get(f"{svc.public}/api/v1/artifacts/{r['artifact_id']}",
                         params={"tenant_id": t + "x", "project_id": "p1"}, timeout=10)
    assert other.status_code == 404
    short = record(svc, t, "tool_result", {"tool": "read_file", "path": "a.txt", "output": "one\ntwo\n",
                                           "line_range": [10, 11]})
    assert short["artifact_id"] is None
