"""Core memory over real HTTP on its own database and ports: upsert, resolve, delete and compact with provenance;
Policy > Profile > Session; session_end at run end; POLICY.md only on the admin bind; the English gate and the
secret detector; concurrent upserts; raw documents; the audit trail; utterances and pending entries."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.notes_helpers import headers, rows

PROFILE = "/v2/core-memory/profile.md"


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("core_memory")
    s.start_api()
    return s


@pytest.fixture
def t():
    return f"cm-{uuid.uuid4().hex[:8]}"


def call(svc, method, path, t, *, admin=False, agent="a1", **kw):
    base = svc.admin if admin else svc.public
    return requests.request(method, base + path, headers={**headers(agent, tenant=t), **kw.pop("headers", {})},
                            timeout=30, **kw)


def upsert(svc, t, key, value, *, scope="profile", kind="preference", admin=False, **body):
    path = "/v2/admin/core-memory/entries" if admin else "/v2/core-memory/entries"
    payload = {"scope": scope, "kind": kind, "key": key, "value": value, **body}
    if not admin:
        payload.setdefault("source", "user_explicit")
    return call(svc, "POST", path, t, admin=admin, json=payload)


def resolve(svc, t, keys=None, run_id=None):
    body = {k: v for k, v in (("keys", keys), ("run_id", run_id)) if v is not None}
    r = call(svc, "POST", "/v2/core-memory/resolve", t, json=body)
    assert r.status_code == 200, r.text
    return {i["key"]: i for i in r.json()["items"]}


def audit(svc, t, run_id):
    r = call(svc, "GET", f"/v2/core-memory/runs/{run_id}/audit.jsonl", t)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/x-ndjson"), r.text
    return [json.loads(line) for line in r.text.splitlines()]


def test_upsert_resolve_delete_with_provenance(svc, t):
    r = upsert(svc, t, "response.tone", "friendly", priority=70, run_id="r1", reason="user asked for it")
    assert r.status_code == 200 and r.json()["status"] == "written" and r.json()["doc_version"] == 1, r.text
    got = resolve(svc, t, ["response.tone", "response.missing"])
    tone = got["response.tone"]
    assert tone["found"] and tone["value"] == "friendly"
    assert {k: tone["provenance"][k] for k in ("scope", "kind", "priority", "source", "ttl")} == {
        "scope": "profile", "kind": "preference", "priority": 70, "source": "user_explicit", "ttl": "none"}
    assert got["response.missing"] == {"key": "response.missing", "found": False, "value": None, "provenance": None}
    assert "- key:response.tone | value:friendly | priority:70" in call(svc, "GET", PROFILE, t).text
    line = audit(svc, t, "r1")[-1]
    assert {k: line[k] for k in ("op", "scope", "key", "old", "new", "actor", "reason")} == {
        "op": "upsert", "scope": "profile", "key": "response.tone", "old": None, "new": "friendly",
        "actor": "user_explicit", "reason": "user asked for it"}
    assert line["audit_id"] == r.json()["audit_id"] and line["doc_version"] == 1 and line["ts"].endswith("Z")
    d = call(svc, "DELETE", "/v2/core-memory/entries/profile/response.tone", t)
    assert d.status_code == 200 and d.json()["doc_version"] == 2, d.text
    assert not resolve(svc, t, ["response.tone"])["response.tone"]["found"]
    again = call(svc, "DELETE", "/v2/core-memory/entries/profile/response.tone", t)
    assert again.status_code == 404 and again.json()["fields"] == ["$.path.key"]


def test_policy_beats_profile_beats_session_and_reveals_nothing_else(svc, t):
    assert upsert(svc, t, "response.language", "session-value", scope="session", run_id="r1", priority=1000,
                  kind="fact").status_code == 200
    assert resolve(svc, t, ["response.language"], "r1")["response.language"]["provenance"]["scope"] == "session"
    assert upsert(svc, t, "response.language", "en", priority=1).status_code == 200
    assert resolve(svc, t, ["response.language"], "r1")["response.language"]["value"] == "en"
    r = upsert(svc, t, "response.language", "en-GB", scope="policy", admin=True, reason="house style")
    assert r.status_code == 200, r.text
    got = resolve(svc, t, ["response.language"], "r1")["response.language"]
    assert got["value"] == "en-GB" and got["provenance"] == {
        "scope": "policy", "kind": None, "priority": None, "updated_at": None, "source": None, "ttl": None,
        "expires_at": None}
    everything = resolve(svc, t, run_id="r1")
    assert everything["response.language"]["value"] == "en-GB" and len(everything) == 1
    # the session's own line is still there, only outranked
    assert "value:session-value" in call(svc, "GET", "/v2/core-memory/runs/r1/session.md", t).text
    # another tenant sees none of it
    assert resolve(svc, t + "x", ["response.language"], "r1")["response.language"]["found"] is False


def test_policy_is_admin_bind_only(svc, t):
    put = call(svc, "PUT", "/v2/admin/core-memory/policy.md", t, admin=True, data="# POLICY\n\n## Guardrails\n"
               "- key:policy.no_secrets | value:true | priority:100\n", headers={"Content-Type": "text/markdown"})
    assert put.status_code == 200 and put.json()["doc_version"] == 1, put.text
    for path in ("/v2/admin/core-memory/policy.md", "/v2/core-memory/policy.md", "/v2/core-memory/POLICY.md"):
        r = call(svc, "GET", path, t)
        assert r.status_code == 404 and "policy.no_secrets" not in r.text
    assert call(svc, "PUT", "/v2/admin/core-memory/policy.md", t, data="# POLICY\n").status_code == 404
    denied = upsert(svc, t, "policy.no_secrets", "false", scope="policy")
    assert denied.status_code == 403 and denied.json()["fields"] == ["$.scope"]
    assert call(svc, "DELETE", "/v2/core-memory/entries/policy/policy.no_secrets", t).status_code == 403
    admin_get = call(svc, "GET", "/v2/admin/core-memory/policy.md", t, admin=True)
    assert admin_get.status_code == 200 and "policy.no_secrets" in admin_get.text
    assert admin_get.headers["Content-Type"].startswith("text/markdown")
    assert call(svc, "GET", "/v2/admin/core-memory/policy.md", t + "x", admin=True).text == "# POLICY\n"
    assert audit(svc, t, "any-run") == []


def test_each_route_records_who_wrote_and_why(svc, t):
    md = {"Content-Type": "text/markdown"}
    assert call(svc, "PUT", PROFILE, t, data="# PROFILE\n\n## Facts\n- key:a | value:one\n", headers=md).ok
    assert upsert(svc, t, "b", "two").status_code == 200
    assert call(svc, "DELETE", "/v2/core-memory/entries/profile/b", t).status_code == 200
    assert upsert(svc, t, "e", "gone", ttl="2001-01-01T00:00:00Z").status_code == 200
    assert call(svc, "POST", "/v2/core-memory/compact", t, json={"scope": "profile"}).status_code == 200
    assert upsert(svc, t, "c", "three", scope="session", kind="fact", run_id="r1").status_code == 200
    assert call(svc, "POST", "/v2/core-memory/runs/r1/end", t).status_code == 200
    assert call(svc, "PUT", "/v2/admin/core-memory/policy.md", t, admin=True, agent="ops", headers=md,
                data="# POLICY\n\n## Guardrails\n- key:p | value:yes\n").ok
    assert upsert(svc, t, "q", "no", scope="policy", admin=True).status_code == 200
    assert call(svc, "DELETE", "/v2/admin/core-memory/entries/policy/q", t, admin=True).status_code == 200
    got = rows(svc, "SELECT op, key, actor, reason FROM core_memory_audit WHERE tenant_id = %s ORDER BY audit_id",
               (t,))
    assert got == [
        ("upsert", "a", "user_explicit", "PROFILE.md edited (PUT) by agent a1"),
        ("upsert", "b", "user_explicit", "memory_upsert by agent a1"),
        ("delete", "b", "user_explicit", "memory_delete by agent a1"),
        ("upsert", "e", "user_explicit", "memory_upsert by agent a1"),
        ("compact", "e", "system", "expired (ttl 2001-01-01T00:00:00Z)"),
        ("upsert", "c", "user_explicit", "memory_upsert by agent a1"),
        ("end_run", None, "system", "run r1 ended"),
        ("upsert", "p", "admin", "POLICY.md edited (PUT) by agent ops"),
        ("upsert", "q", "admin", "policy upsert on the admin bind"),
        ("delete", "q", "admin", "policy delete on the admin bind"),
    ]
    for admin in (False, True):
        r = upsert(svc, t, "d", "four", scope="policy" if admin else "profile", admin=admin, reason="ผู้ใช้ขอ")
        assert r.status_code == 422 and r.json()["fields"] == ["$.reason"], r.text


def test_session_end_expires_when_the_run_ends(svc, t):
    assert upsert(svc, t, "task.goal", "ship the report", scope="session", kind="fact", run_id="r9",
                  ttl="session_end").status_code == 200
    mood = upsert(svc, t, "task.mood", "focused", scope="session", kind="fact", run_id="r9", ttl="8h")
    assert mood.status_code == 200
    assert resolve(svc, t, ["task.goal"], "r9")["task.goal"]["value"] == "ship the report"
    assert not resolve(svc, t, ["task.goal"], "other-run")["task.goal"]["found"]
    end = call(svc, "POST", "/v2/core-memory/runs/r9/end", t)
    assert end.status_code == 200 and end.json()["expired"] == 1 and not end.json()["already_ended"], end.text
    got = resolve(svc, t, ["task.goal", "task.mood"], "r9")
    assert not got["task.goal"]["found"] and got["task.mood"]["found"]
    assert call(svc, "POST", "/v2/core-memory/runs/r9/end", t).json()["already_ended"] is True
    closed = upsert(svc, t, "task.goal", "again", scope="session", kind="fact", run_id="r9")
    assert closed.status_code == 409 and closed.json()["error_code"] == "RUN_ENDED"
    text = call(svc, "GET", "/v2/core-memory/runs/r9/session.md", t).text
    same = call(
        svc, "PUT", "/v2/core-memory/runs/r9/session.md", t, data=text, headers={"Content-Type": "text/markdown"}
    )
    assert same.status_code == 200 and same.json()["changed"] is False  # re-saving it unchanged is no write
    edited = call(
        svc,
        "PUT",
        "/v2/core-memory/runs/r9/session.md",
        t,
        data=text + "- key:x | value:y\n",
        headers={"Content-Type": "text/markdown"},
    )
    assert edited.status_code == 409 and edited.json()["error_code"] == "RUN_ENDED"
    ops = [a["op"] for a in audit(svc, t, "r9")]
    assert ops[-2:] == ["end_run", "expire"]
    c = call(svc, "POST", "/v2/core-memory/compact", t, json={"scope": "session", "run_id": "r9"})
    assert c.status_code == 200 and [x["key"] for x in c.json()["removed"]] == ["task.goal"], c.text
    assert "task.goal" not in call(svc, "GET", "/v2/core-memory/runs/r9/session.md", t).text


def test_compact_removes_expired_and_duplicate_lines(svc, t):
    doc = (
        "# PROFILE\n\n## Preferences\n"
        "- key:a | value:old | priority:50 | ttl:1s | updated_at:2026-01-01T00:00:00Z\n"
        "- key:b | value:loser | priority:10\n- key:b | value:winner | priority:90\n- key:c | value:kept\n"
    )
    put = call(svc, "PUT", PROFILE, t, data=doc, headers={"Content-Type": "text/markdown"})
    assert put.status_code == 200, put.text
    assert call(svc, "GET", PROFILE, t).text == doc  # stored exactly as sent
    got = resolve(svc, t)
    assert set(got) == {"b", "c"} and got["b"]["value"] == "winner"
    c = call(svc, "POST", "/v2/core-memory/compact", t, json={"scope": "profile"}).json()
    assert [(x["line"], x["key"]) for x in c["removed"]] == [(4, "a"), (5, "b")] and len(c["audit_ids"]) == 2
    assert (
        call(svc, "GET", PROFILE, t).text == "# PROFILE\n\n## Preferences\n- key:b | value:winner | priority:90\n"
        "- key:c | value:kept\n"
    )
    assert call(svc, "POST", "/v2/core-memory/compact", t, json={"scope": "profile"}).json()["removed"] == []
    tie = rows(svc, "SELECT reason FROM core_memory_audit WHERE tenant_id = %s AND op = 'tie_break'", (t,))
    assert len(tie) == 1 and "higher priority (90 over 10)" in tie[0][0]


def test_non_english_and_secrets_are_refused_with_their_path(svc, t):
    thai = upsert(svc, t, "response.tone", "เป็นกันเอง")
    assert thai.status_code == 422 and thai.json() == {
        **thai.json(),
        "error_code": "NON_ENGLISH_INPUT",
        "fields": ["$.value"],
    }
    secret = upsert(svc, t, "tool.key", "use sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a")
    assert secret.status_code == 422 and secret.json()["error_code"] == "REJECT_SECRET"
    assert secret.json()["fields"] == ["$.value"]
    doc = "# PROFILE\n\n## Facts\n- key:ok | value:fine\n- key:mail | value:write to ana.silva@example.com\n"
    put = call(svc, "PUT", PROFILE, t, data=doc, headers={"Content-Type": "text/markdown"})
    assert put.status_code == 422 and put.json()["fields"] == ["$.line[5].value"], put.text
    said = call(svc, "POST", "/v2/core-memory/utterances", t, json={"text": "จำไว้ว่าฉันชอบคำตอบสั้น", "run_id": "r1"})
    assert said.status_code == 422 and said.json()["fields"] == ["$.text"]
    assert call(svc, "GET", PROFILE, t).headers["X-ELF-Core-Memory-Version"] == "0"


def test_malformed_markdown_is_422_naming_line_and_field_and_stores_nothing(svc, t):
    good = "# PROFILE\r\n\r\n## Preferences\r\n- key:x | value:one | priority:60\r\n"
    assert call(svc, "PUT", PROFILE, t, json={"markdown": good}).json()["doc_version"] == 1
    bad = good + "- key:y | value:two | priority:high\r\n"
    r = call(svc, "PUT", PROFILE, t, data=bad.encode(), headers={"Content-Type": "text/markdown; charset=utf-8"})
    assert r.status_code == 422 and r.json()["error_code"] == "MARKDOWN_INVALID", r.text
    assert r.json()["fields"] == ["$.line[5].priority"] and "Line 5" in r.json()["message"]
    got = call(svc, "GET", PROFILE, t)
    assert got.content == good.encode() and got.headers["ETag"] == '"1"'
    stale = call(
        svc,
        "PUT",
        PROFILE,
        t,
        data=good + "- key:z | value:three\r\n",
        headers={"Content-Type": "text/markdown", "If-Match": '"0"'},
    )
    assert stale.status_code == 412 and stale.json()["error_code"] == "VERSION_CONFLICT"
    assert call(svc, "PUT", PROFILE, t, data=b"\xff\xfe", headers={"Content-Type": "text/markdown"}).status_code == 400
    as_json = call(svc, "GET", PROFILE + "?format=json", t).json()
    assert as_json == {"scope": "profile", "run_id": None, "markdown": good, "version": 1, "run_ended": False}
    moved = call(svc, "PUT", PROFILE, t, json={"markdown": good + "- key:z | value:three\r\n", "if_version": 0})
    assert moved.status_code == 412 and moved.json()["fields"] == ["$.headers.If-Match"]
    ok = call(svc, "PUT", PROFILE, t, json={"markdown": good + "- key:z | value:three\r\n", "if_version": 1})
    assert ok.status_code == 200 and ok.json()["doc_version"] == 2
    assert call(svc, "GET", PROFILE + "?format=yaml", t).json()["fields"] == ["$.query.format"]


def test_concurrent_upserts_of_one_key_leave_one_document_and_two_audit_rows(svc, t):
    def write(value):
        return upsert(svc, t, "response.tone", value, run_id="race")

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(write, ["calm", "cheerful"]))
    assert [r.status_code for r in results] == [200, 200]
    assert sorted(r.json()["doc_version"] for r in results) == [1, 2]
    text = call(svc, "GET", PROFILE, t).text
    assert text.count("key:response.tone") == 1
    last = max(results, key=lambda r: r.json()["doc_version"]).json()["value"]
    assert resolve(svc, t, ["response.tone"])["response.tone"]["value"] == last and f"value:{last}" in text
    trail = [a for a in audit(svc, t, "race") if a["op"] == "upsert"]
    assert len(trail) == 2 and trail[1]["old"] == trail[0]["new"]


def test_remember_that_then_resolve_and_forget(svc, t):
    said = call(
        svc,
        "POST",
        "/v2/core-memory/utterances",
        t,
        json={"text": "Remember that I prefer short answers", "run_id": "u1"},
    )
    assert said.status_code == 200, said.text
    body = said.json()
    assert (body["op"], body["key"], body["value"], body["verified"]) == (
        "upsert",
        "response.verbosity",
        "concise",
        True,
    )
    assert body["doc_version"] == 1 and body["audit_id"] and body["acknowledgement"]
    got = resolve(svc, t, ["response.verbosity"], "u1")["response.verbosity"]
    assert got["value"] == "concise" and got["provenance"]["source"] == "user_explicit"
    assert audit(svc, t, "u1")[0]["reason"] == "user said: Remember that I prefer short answers"
    short = call(
        svc, "POST", "/v2/core-memory/utterances", t, json={"text": "set the reply tone to warm", "run_id": "u1"}
    ).json()
    assert short["acknowledgement"] == "Noted."  # verbosity is concise now
    gone = call(svc, "POST", "/v2/core-memory/utterances", t, json={"text": "forget my reply tone", "run_id": "u1"})
    assert gone.json()["op"] == "delete" and gone.json()["verified"] and len(gone.json()["deleted"]) == 1
    assert not resolve(svc, t, ["response.tone"], "u1")["response.tone"]["found"]
    nothing = call(svc, "POST", "/v2/core-memory/utterances", t, json={"text": "what time is it", "run_id": "u1"})
    assert nothing.json()["op"] == "none"


def test_inferred_entries_stay_pending_until_confirmed(svc, t):
    said = call(
        svc, "POST", "/v2/core-memory/utterances", t, json={"text": "change my preference to dark mode", "run_id": "p1"}
    ).json()
    assert said["op"] == "pending" and said["confidence"] < 0.8 and said["pending_entry_id"]
    staged = upsert(svc, t, "preference.font", "serif", source="user_inferred", run_id="p1")
    assert staged.status_code == 202 and staged.json()["status"] == "pending"
    assert not resolve(svc, t, ["preference.dark_mode", "preference.font"])["preference.font"]["found"]
    pending = call(svc, "GET", "/v2/core-memory/runs/p1/memory/pending", t).json()["items"]
    assert {p["key"] for p in pending} == {"preference.dark_mode", "preference.font"}
    base = "/v2/core-memory/runs/p1/memory/pending/"
    ok = call(svc, "POST", base + said["pending_entry_id"] + "/confirm", t)
    assert ok.status_code == 200 and ok.json()["status"] == "confirmed" and ok.json()["doc_version"] == 1, ok.text
    got = resolve(svc, t, ["preference.dark_mode"])["preference.dark_mode"]
    assert got["value"] == "dark mode" and got["provenance"]["source"] == "user_inferred"
    no = call(svc, "POST", base + staged.json()["pending_entry_id"] + "/reject", t)
    assert no.status_code == 200 and no.json()["status"] == "rejected"
    assert not resolve(svc, t, ["preference.font"])["preference.font"]["found"]
    twice = call(svc, "POST", base + said["pending_entry_id"] + "/confirm", t)
    assert twice.status_code == 409 and twice.json()["error_code"] == "ALREADY_DECIDED"
    assert call(svc, "GET", "/v2/core-memory/runs/p1/memory/pending", t).json()["items"] == []
    other = call(svc, "POST", base + staged.json()["pending_entry_id"] + "/reject", t + "x")
    assert other.status_code == 404
    assert [a["op"] for a in audit(svc, t, "p1")] == ["stage", "stage", "confirm", "reject"]


def test_bad_requests_get_clear_errors(svc, t):
    cases = [
        ({"scope": "session", "kind": "fact", "key": "a", "value": "b", "source": "system"}, ["$.run_id"]),
        ({"scope": "profile", "kind": "opinion", "key": "a", "value": "b", "source": "system"}, ["$.kind"]),
        ({"scope": "profile", "kind": "fact", "key": "a b", "value": "b", "source": "system"}, ["$.key"]),
        ({"scope": "profile", "kind": "fact", "key": "a", "value": "b\nc", "source": "system"}, ["$.value"]),
        ({"scope": "profile", "kind": "fact", "key": "a", "value": "b", "source": "admin"}, ["$.source"]),
        ({"scope": "profile", "kind": "fact", "key": "a", "value": "b", "source": "system", "ttl": "soon"}, ["$.ttl"]),
        (
            {"scope": "profile", "kind": "fact", "key": "a", "value": "b", "source": "system", "ttl": "session_end"},
            ["$.ttl"],
        ),
        ({"scope": "profile", "kind": "fact", "key": "a", "value": "b", "source": "system", "extra": 1}, ["$.extra"]),
    ]
    for body, fields in cases:
        r = call(svc, "POST", "/v2/core-memory/entries", t, json=body)
        assert r.status_code == 400 and r.json()["fields"] == fields, (body, r.text)
    assert call(svc, "POST", "/v2/core-memory/resolve", t, json={"keys": []}).status_code == 400
    assert call(svc, "GET", PROFILE, t).headers["X-ELF-Core-Memory-Version"] == "0"
