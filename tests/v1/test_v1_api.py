"""The deprecated v1 API (elf-memory-service-v1.md sections 14-15) over real HTTP: v1's request and response shapes
on the services the v2 routes use, the ids in the body (or query string), the Deprecation and Link headers on
every answer, and static API keys binding the body's ids."""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta

import pytest
import requests

from elf_mcp.catalog import all_tools
from elf_project.openapi_export import build_documents
from tests.conftest import CHAT_PATH, RERANK_PATH, mcp_call, start_elf_mcp_for
from tests.fake_provider_server import FakeResponse, chat_completion
from tests.notes_helpers import headers, note, rows, wait_indexed
from v1_adapter.deprecation import DEPRECATION

IDS = {"tenant_id": "t1", "project_id": "p1", "agent_id": "a1"}
NOTE_KEYS = {"note_id", "op", "reason_code"}
ITEM_KEYS = {"note_id", "type", "key", "scope", "text", "importance", "confidence", "updated_at", "expires_at",
             "final_score", "source_ref"}


def _rerank(request):
    words = set(request.json["query"].lower().split())
    scores = [len(words & set(d.lower().split())) / (1 + len(words)) for d in request.json["documents"]]
    return FakeResponse(json={"results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]})


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("v1_api", lambda data: data["search"]["expansion"].update(mode="off"))
    s.fake.handle(RERANK_PATH, _rerank)
    s.start_api()
    s.start_worker()
    return s


def v1(svc, route: str, body: dict, **ids) -> requests.Response:
    return requests.post(f"{svc.public}/v1/memory/{route}", json={**IDS, **ids, **body}, timeout=60)


def v1_list(svc, **params) -> requests.Response:
    return requests.get(f"{svc.public}/v1/memory/list", params={"tenant_id": "t1", "project_id": "p1", **params},
                        timeout=30)


def v2_note(svc, note_id: str) -> dict:
    r = requests.get(f"{svc.public}/v2/notes/{note_id}", headers=headers(), timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def assert_deprecated(r: requests.Response, successor: str) -> None:
    assert r.headers["Deprecation"] == DEPRECATION
    assert r.headers["Link"] == f'<{successor}>; rel="successor-version"'


def add_note(svc, text: str, *, scope: str = "agent_private", **kw) -> str:
    r = v1(svc, "add_note", {"scope": scope, "notes": [note(text, **kw)]})
    assert r.status_code == 200, r.text
    (result,) = r.json()["results"]
    assert result["op"] == "ADD", result
    return result["note_id"]


def test_a_note_round_trips_through_v1(svc):
    r = v1(svc, "add_note", {"scope": "agent_private", "notes": [note("Fact: the v1 billing ledger closes on Fridays.",
                                                                       key="ledger_close", ttl_days=None)]})
    assert r.status_code == 200, r.text
    assert_deprecated(r, "/v2/notes/ingest")
    (result,) = r.json()["results"]
    assert set(result) == NOTE_KEYS and result["op"] == "ADD"
    nid = result["note_id"]
    wait_indexed(svc, nid)

    found = v1(svc, "search", {"read_profile": "private_only", "query": "when does the billing ledger close",
                               "top_k": 5, "candidate_k": 20})
    assert found.status_code == 200, found.text
    assert_deprecated(found, "/v2/searches")
    items = found.json()["items"]
    assert items and items[0]["note_id"] == nid and set(items[0]) == ITEM_KEYS
    assert items[0]["text"] == "Fact: the v1 billing ledger closes on Fridays." and items[0]["key"] == "ledger_close"
    assert svc.fake.requests_to(RERANK_PATH), "v1 search runs as planned_search: one rerank call"
    assert rows(svc, "SELECT hit_count FROM memory_notes WHERE note_id = %s", (nid,)) == [(1,)]  # v1 step 13

    listed = v1_list(svc, scope="agent_private", agent_id="a1")
    assert listed.status_code == 200, listed.text
    assert_deprecated(listed, "/v2/notes")
    assert nid in [n["note_id"] for n in listed.json()["notes"]]
    assert nid not in [n["note_id"] for n in v1_list(svc, agent_id="a1").json()["notes"]]  # no scope: no private

    changed = v1(svc, "update", {"note_id": nid, "text": "Fact: the v1 billing ledger closes on Thursdays."})
    assert changed.status_code == 200, changed.text
    assert changed.json() == {"note_id": nid, "op": "UPDATE", "reason_code": None}
    assert_deprecated(changed, f"/v2/notes/{nid}")
    assert v2_note(svc, nid)["text"] == "Fact: the v1 billing ledger closes on Thursdays."
    assert v1(svc, "update", {"note_id": nid, "importance": 0.5}).json()["op"] == "NONE"  # unchanged value

    deleted = v1(svc, "delete", {"note_id": nid})
    assert deleted.status_code == 200 and deleted.json() == {"note_id": nid, "op": "DELETE"}
    assert_deprecated(deleted, f"/v2/notes/{nid}")
    assert v1(svc, "delete", {"note_id": nid}).json() == {"note_id": nid, "op": "NONE"}
    assert rows(svc, "SELECT status FROM memory_notes WHERE note_id = %s", (nid,)) == [("deleted",)]


def test_update_follows_v1_ttl_rules(svc):
    nid = add_note(svc, "Fact: the staging database is refreshed weekly.", ttl_days=3)
    three_days = datetime.fromisoformat(v2_note(svc, nid)["expires_at"])
    assert (
        v1(svc, "update", {"note_id": nid, "text": "Fact: the staging database is refreshed daily."}).status_code == 200
    )
    assert datetime.fromisoformat(v2_note(svc, nid)["expires_at"]) == three_days  # ttl_days omitted: kept
    assert v1(svc, "update", {"note_id": nid, "ttl_days": 10}).json()["op"] == "UPDATE"
    ten_days = datetime.fromisoformat(v2_note(svc, nid)["expires_at"])
    assert timedelta(days=6) < ten_days - three_days < timedelta(days=8)
    assert v1(svc, "update", {"note_id": nid, "ttl_days": -1}).json()["op"] == "UPDATE"  # <= 0: the type's default
    fact_default = datetime.fromisoformat(v2_note(svc, nid)["expires_at"])
    assert timedelta(days=169) < fact_default - ten_days < timedelta(days=171)  # fact = 180 in the test config


def test_add_event_answers_v1_shape(svc):
    candidate = {
        "type": "fact",
        "key": None,
        "text": "Fact: the team deploys on Wednesdays.",
        "importance": 0.6,
        "confidence": 0.9,
        "ttl_days": None,
        "structured": None,
        "scope_suggestion": None,
        "evidence": [{"message_index": 0, "quote": "we deploy on Wednesdays"}],
        "reason": "stated by user",
    }
    svc.fake.respond(CHAT_PATH, FakeResponse(json=chat_completion(json.dumps({"notes": [candidate]}))))
    before = len(svc.fake.requests_to(CHAT_PATH))
    r = v1(
        svc,
        "add_event",
        {
            "scope": "agent_private",
            "dry_run": False,
            "messages": [{"role": "user", "content": "Remember that we deploy on Wednesdays."}],
        },
    )
    assert r.status_code == 200, r.text
    assert_deprecated(r, "/v2/events/ingest")
    assert len(svc.fake.requests_to(CHAT_PATH)) == before + 1
    body = r.json()
    assert set(body) == {"extracted", "results"}
    assert [c["text"] for c in body["extracted"]] == ["Fact: the team deploys on Wednesdays."]
    (result,) = body["results"]
    assert set(result) == NOTE_KEYS | {"reason"} and result["op"] == "ADD" and result["reason"] == "stated by user"
    assert rows(svc, "SELECT agent_id, text FROM memory_notes WHERE note_id = %s", (result["note_id"],)) == [
        ("a1", "Fact: the team deploys on Wednesdays.")
    ]


@pytest.mark.parametrize(
    "route,body,fields",
    [
        (
            "add_note",
            {"scope": "agent_private", "notes": [note("Fact: x is y.", importance=2)]},
            ["$.notes[0].importance"],
        ),
        (
            "add_note",
            {"scope": "agent_private", "notes": [note("Fact: x is y.", write_policy={})]},
            ["$.notes[0].write_policy"],
        ),  # v2-only fields are not v1's
        ("search", {"read_profile": "private_only", "query": "x", "mode": "quick_find"}, ["$.mode"]),
        ("search", {"read_profile": "nobody", "query": "x"}, ["$.read_profile"]),
        ("update", {"note_id": "not-a-uuid"}, ["$.note_id"]),
        ("delete", {"note_id": "4f1f7c52-8f59-4c1e-9d7e-2f5a1c3b9e10", "tenant_id": "t" * 129}, ["$.tenant_id"]),
        ("add_event", {"messages": []}, ["$.messages"]),
    ],
    ids=["bad-importance", "v2-field", "v2-mode", "unknown-profile", "bad-note-id", "long-tenant", "no-messages"],
)
def test_bad_bodies_are_400_with_jsonpaths_and_still_deprecated(svc, route, body, fields):
    r = v1(svc, route, body)
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == "INVALID_REQUEST" and r.json()["fields"] == fields
    assert r.headers["Deprecation"] == DEPRECATION and 'rel="successor-version"' in r.headers["Link"]


def test_missing_non_english_and_reserved_ids_are_refused(svc):
    r = requests.post(
        f"{svc.public}/v1/memory/delete", json={"note_id": "4f1f7c52-8f59-4c1e-9d7e-2f5a1c3b9e10"}, timeout=30
    )
    assert r.status_code == 400 and r.json()["fields"] == ["$.tenant_id", "$.project_id", "$.agent_id"]
    r = v1(svc, "delete", {"note_id": "4f1f7c52-8f59-4c1e-9d7e-2f5a1c3b9e10"}, project_id="__org__")
    assert r.status_code == 400 and r.json()["fields"] == ["$.project_id"], r.text
    # body fields, so a non-Latin id is the English gate's 422, as for the body's other identifiers
    r = v1(svc, "delete", {"note_id": "4f1f7c52-8f59-4c1e-9d7e-2f5a1c3b9e10"}, tenant_id="テナント")
    assert r.status_code == 422 and r.json()["error_code"] == "NON_ENGLISH_INPUT", r.text
    assert r.json()["fields"] == ["$.tenant_id"]
    r = v1_list(svc, agent_id="агент")
    assert r.status_code == 422 and r.json()["fields"] == ["$.query.agent_id"], r.text


V1_CJK = "CJK detected; upstream must canonicalize to English before calling ELF."
V2_NON_ENGLISH = "Non-English input detected; upstream must canonicalize to English before calling ELF."
NOTE_ID = "4f1f7c52-8f59-4c1e-9d7e-2f5a1c3b9e10"


@pytest.mark.parametrize(
    "route,body,fields",
    [
        ("add_note", {"scope": "agent_private", "notes": [note("ユーザーはダークモードを好む")]}, ["$.notes[0].text"]),
        ("add_note", {"scope": "agent_private", "notes": [note("Fact: x is y.", key="테마")]}, ["$.notes[0].key"]),
        (
            "add_note",
            {"scope": "agent_private", "notes": [note("Fact: x is y.", source_ref={"title": "议程"})]},
            ["$.notes[0].source_ref.title"],
        ),
        # the ideographic full stop is Common script, which the v2 gate admits; v1 refuses every CJK block
        (
            "add_note",
            {"scope": "agent_private", "notes": [note("Fact: the ledger closes on Fridays。")]},
            ["$.notes[0].text"],
        ),
        (
            "add_event",
            {
                "messages": [
                    {"role": "user", "content": "Remember the deploy day."},
                    {"role": "user", "content": "デプロイは水曜日です"},
                ]
            },
            ["$.messages[1].content"],
        ),
        ("search", {"read_profile": "private_only", "query": "台帳はいつ締まりますか"}, ["$.query"]),
        ("update", {"note_id": NOTE_ID, "text": "事実：台帳は金曜日に締まる"}, ["$.text"]),
        ("delete", {"note_id": NOTE_ID, "agent_id": "エージェント"}, ["$.agent_id"]),
    ],
    ids=[
        "note-text",
        "note-key",
        "source-ref",
        "cjk-punctuation",
        "event-message",
        "search-query",
        "update-text",
        "ids",
    ],
)
def test_cjk_anywhere_in_a_v1_request_is_422_with_v1s_message(svc, route, body, fields):
    chats = len(svc.fake.requests_to(CHAT_PATH))
    before = rows(svc, "SELECT count(*) FROM memory_notes")
    r = v1(svc, route, body)
    assert r.status_code == 422, r.text
    assert r.json() == {"error_code": "NON_ENGLISH_INPUT", "message": V1_CJK, "fields": fields}
    assert r.headers["Deprecation"] == DEPRECATION
    assert rows(svc, "SELECT count(*) FROM memory_notes") == before and len(svc.fake.requests_to(CHAT_PATH)) == chats


def test_cjk_in_the_list_query_string_is_422(svc):
    r = v1_list(svc, agent_id="a1", type="事実")
    assert r.status_code == 422 and r.json()["message"] == V1_CJK and r.json()["fields"] == ["$.query.type"], r.text


def test_only_v1_refuses_cjk_punctuation(svc):
    r = requests.post(
        f"{svc.public}/v2/notes/ingest",
        headers=headers(),
        timeout=60,
        json={"scope": "agent_private", "notes": [note("Fact: the ledger closes on Fridays。")]},
    )
    assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD", r.text


@pytest.mark.parametrize(
    "route,body,fields",
    [
        (
            "add_note",
            {"scope": "agent_private", "notes": [note("Пользователь предпочитает тёмную тему во всех редакторах.")]},
            ["$.notes[0].text"],
        ),
        (
            "search",
            {
                "read_profile": "private_only",
                "query": "Quand est-ce que le grand livre de facturation se ferme chaque semaine pour toute l'équipe ?",
            },
            ["$.query"],
        ),
    ],
    ids=["cyrillic-note", "french-query"],
)
def test_other_non_english_input_is_the_v2_gates_422(svc, route, body, fields):
    r = v1(svc, route, body)
    assert r.status_code == 422, r.text
    assert r.json() == {"error_code": "NON_ENGLISH_INPUT", "message": V2_NON_ENGLISH, "fields": fields}


def test_add_event_names_an_extracted_cjk_note_reject_cjk(svc):
    message = "Remember that we deploy on Wednesdays and that the ledger closes on Fridays."
    evidence = [{"message_index": 0, "quote": "we deploy on Wednesdays"}]

    def candidate(text: str) -> dict:
        return {
            "type": "fact",
            "key": None,
            "text": text,
            "importance": 0.6,
            "confidence": 0.9,
            "ttl_days": None,
            "structured": None,
            "scope_suggestion": None,
            "evidence": evidence,
            "reason": "stated by user",
        }

    extracted = {
        "notes": [
            candidate("事実：チームは水曜日にデプロイする。"),
            candidate("Факт: команда выпускает релизы по средам."),
            candidate("Fact: the team deploys on Wednesdays, the ledger closes on Fridays."),
        ]
    }
    svc.fake.respond(CHAT_PATH, FakeResponse(json=chat_completion(json.dumps(extracted))))
    body = {"scope": "agent_private", "dry_run": True, "messages": [{"role": "user", "content": message}]}
    r = v1(svc, "add_event", body)
    assert r.status_code == 200, r.text
    assert [(x["op"], x["reason_code"]) for x in r.json()["results"]] == [
        ("REJECTED", "REJECT_CJK"),
        ("REJECTED", "REJECT_NON_ENGLISH"),
        ("ADD", None),
    ]
    # v2 keeps its own code for both
    v2 = requests.post(f"{svc.public}/v2/events/ingest", json=body, headers=headers(), timeout=60)
    assert v2.status_code == 200, v2.text
    assert [x["reason_code"] for x in v2.json()["results"]] == ["REJECT_NON_ENGLISH", "REJECT_NON_ENGLISH", None]


def test_list_agent_private_needs_agent_id(svc):
    r = v1_list(svc, scope="agent_private")
    assert r.status_code == 400, r.text
    assert r.json()["fields"] == ["$.query.agent_id"]
    assert_deprecated(r, "/v2/notes")
    assert v1_list(svc, colour="red").json()["fields"] == ["$.query.colour"]


def test_list_without_agent_id_shows_only_what_every_agent_of_the_project_may_read(svc):
    private = add_note(svc, "Fact: the private scratch bucket is cold.")
    shared = add_note(svc, "Decision: incidents are reviewed on Mondays.", scope="project_shared", type="decision")
    assert shared not in [n["note_id"] for n in v1_list(svc).json()["notes"]]  # no grant yet: a1's alone
    r = requests.post(
        f"{svc.public}/v2/spaces/team_shared/grants", json={"grantee_kind": "project"}, headers=headers(), timeout=30
    )
    assert r.status_code == 200, r.text
    listed = [n["note_id"] for n in v1_list(svc).json()["notes"]]
    assert shared in listed and private not in listed


def test_rebuild_is_on_the_admin_bind_only(svc):
    nid = add_note(svc, "Fact: the rebuild check note exists.")
    wait_indexed(svc, nid)
    r = requests.post(f"{svc.admin}/v1/admin/rebuild_qdrant", timeout=120)
    assert r.status_code == 200, r.text
    assert_deprecated(r, "/v2/admin/qdrant/rebuild")
    report = r.json()
    assert report["rebuilt_count"] >= 1 and report["missing_vector_count"] == 0 and report["error_count"] == 0
    assert set(report) == {"rebuilt_count", "missing_vector_count", "error_count", "docs"}
    assert requests.post(f"{svc.public}/v1/admin/rebuild_qdrant", timeout=30).status_code == 404
    assert requests.post(f"{svc.admin}/v1/memory/add_note", json={}, timeout=30).status_code == 404


def test_openapi_marks_v1_deprecated_and_mcp_serves_v1s_tools_on_the_v1_routes():
    docs = build_documents()
    ops = [
        (bind, path, op)
        for bind, doc in docs.items()
        for path, item in doc["paths"].items()
        if path.startswith("/v1/")
        for op in item.values()
    ]
    assert sorted((bind, path) for bind, path, _ in ops) == [("admin", "/v1/admin/rebuild_qdrant")] + [
        ("public", f"/v1/memory/{r}") for r in ("add_event", "add_note", "delete", "list", "search", "update")
    ]
    for _, path, op in ops:
        assert op["deprecated"] is True, path
        assert set(op["responses"]["200"]["headers"]) == {"Deprecation", "Link"}, path
    # v1 section 17's tools, one per public v1 route (the admin rebuild is an operator's job, as in v2)
    assert sorted((t.name, t.path) for t in all_tools() if t.path.startswith("/v1/")) == [
        (f"memory_{r}", f"/v1/memory/{r}") for r in ("add_event", "add_note", "delete", "list", "search", "update")
    ]


TOKENS = {"user": secrets.token_urlsafe(24), "admin": secrets.token_urlsafe(24)}


@pytest.fixture(scope="module")
def keyed(isolated_services_module):
    def with_keys(data: dict) -> None:
        data["security"].update(
            auth_mode="static_keys",
            auth_keys=[
                {
                    "token_id": "user",
                    "token": TOKENS["user"],
                    "tenant_id": "t1",
                    "project_id": "p1",
                    "agent_id": "a1",
                    "role": "user",
                },
                {
                    "token_id": "admin",
                    "token": TOKENS["admin"],
                    "tenant_id": "t1",
                    "project_id": "p1",
                    "agent_id": "ops",
                    "role": "admin",
                },
            ],
        )

    s = isolated_services_module("v1_keys", mutate=with_keys)
    s.start_api()
    return s


def test_static_keys_bind_the_body_ids(keyed):
    auth = {"Authorization": f"Bearer {TOKENS['user']}"}
    body = {"scope": "agent_private", "notes": [note("Fact: keyed v1 writes work.")]}
    assert requests.post(f"{keyed.public}/v1/memory/add_note", json={**IDS, **body}, timeout=30).status_code == 401
    r = requests.post(
        f"{keyed.public}/v1/memory/add_note", json={**IDS, **body, "tenant_id": "t2"}, headers=auth, timeout=30
    )
    assert r.status_code == 403, r.text
    assert r.json()["error_code"] == "FORBIDDEN" and r.json()["fields"] == ["$.tenant_id"]
    assert r.headers["Deprecation"] == DEPRECATION
    r = requests.get(f"{keyed.public}/v1/memory/list", params={**IDS, "agent_id": "a2"}, headers=auth, timeout=30)
    assert r.status_code == 403 and r.json()["fields"] == ["$.query.agent_id"], r.text
    assert rows(keyed, "SELECT count(*) FROM memory_notes") == [(0,)]
    r = requests.post(
        f"{keyed.public}/v1/memory/add_note", json={**IDS, **body, "scope": "project_shared"}, headers=auth, timeout=30
    )
    assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD", r.text
    # An omitted agent_id on the list is the key's agent: its own shared note is listed without any grant.
    listed = requests.get(
        f"{keyed.public}/v1/memory/list", params={"tenant_id": "t1", "project_id": "p1"}, headers=auth, timeout=30
    )
    assert listed.status_code == 200, listed.text
    assert [n["note_id"] for n in listed.json()["notes"]] == [r.json()["results"][0]["note_id"]]
    r = requests.post(f"{keyed.admin}/v1/admin/rebuild_qdrant", headers=auth, timeout=30)
    assert r.status_code == 403, r.text  # a user key on the admin bind
    r = requests.post(
        f"{keyed.admin}/v1/admin/rebuild_qdrant", headers={"Authorization": f"Bearer {TOKENS['admin']}"}, timeout=120
    )
    assert r.status_code == 200, r.text


def test_the_v1_mcp_tools_act_as_the_keys_identity(keyed):
    """elf-mcp in front of a keyed elf-api sends the user key: each v1 body carries [mcp]'s ids, which are the
    key's, and the key decides (another identity's ids are refused by elf-mcp, and by elf-api as above)."""
    proc, url = start_elf_mcp_for(keyed, {**IDS, "read_profile": "private_plus_project", "auth_token_id": "user"})
    try:
        text = "Fact: the keyed MCP ledger closes on Fridays."
        added = mcp_call(url, "memory_add_note", {"scope": "agent_private", "notes": [note(text)]})
        assert not added.is_error, added.content[0].text
        (result,) = added.structured_content["results"]
        assert result["op"] == "ADD"
        assert rows(
            keyed, "SELECT tenant_id, project_id, agent_id FROM memory_notes WHERE note_id = %s", (result["note_id"],)
        ) == [("t1", "p1", "a1")]
        listed = mcp_call(url, "memory_list", {"scope": "agent_private"}).structured_content
        assert result["note_id"] in [n["note_id"] for n in listed["notes"]]
        assert not mcp_call(url, "memory_search", {"query": "keyed ledger"}).is_error
        refused = mcp_call(url, "memory_add_note", {"scope": "agent_private", "notes": [note(text)], "agent_id": "a2"})
        assert refused.is_error and refused.structured_content["error_code"] == "ELF_MCP_CONTEXT_MISMATCH"
        deleted = mcp_call(url, "memory_delete", {"note_id": result["note_id"]}).structured_content
        assert deleted == {"note_id": result["note_id"], "op": "DELETE"}
        assert rows(keyed, "SELECT count(*) FROM memory_notes WHERE text = %s", (text,)) == [(1,)]
    finally:
        proc.stop()
