"""Publish/unpublish, space grants and the org space over real HTTP (spec v2 section 15, supplement section 7)."""

from __future__ import annotations

import time

import pytest
import requests

from tests.notes_helpers import headers, ingest, note, rows, wait_indexed


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("sharing")
    s.start_api()
    s.start_worker()
    return s


def _add(svc, text, *, scope="agent_private", agent="a1", project="p1", tenant="t1", **kw) -> str:
    res = ingest(svc, [note(text, **kw)], scope=scope, agent=agent, project=project, tenant=tenant).json()
    assert res["results"][0]["op"] == "ADD", res
    return res["results"][0]["note_id"]


def _post(svc, path, body, agent="a1", **hdr):
    return requests.post(svc.public + path, json=body, headers=headers(agent, **hdr), timeout=30)


def _get_note(svc, nid, agent, **hdr):
    return requests.get(f"{svc.public}/v2/notes/{nid}", headers=headers(agent, **hdr), timeout=10)


def _listed(svc, agent, scope, **hdr) -> set[str]:
    r = requests.get(svc.public + "/v2/notes", params={"scope": scope}, headers=headers(agent, **hdr), timeout=10)
    assert r.status_code == 200, r.text
    return {n["note_id"] for n in r.json()["notes"]}


def _searched(svc, query, agent, profile="all_scopes", **hdr) -> set[str]:
    r = requests.post(svc.public + "/v2/searches", json={"query": query, "mode": "quick_find", "top_k": 50},
                      headers={**headers(agent, **hdr), "X-ELF-Read-Profile": profile}, timeout=30)
    assert r.status_code == 200, r.text
    return {i["note_id"] for i in r.json()["items"]}


def _grants(svc, space, agent="a1", include_revoked=False, **hdr) -> list[dict]:
    r = requests.get(f"{svc.public}/v2/spaces/{space}/grants", params={"include_revoked": str(include_revoked).lower()},
                     headers=headers(agent, **hdr), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["grants"]


def _wait_payload(svc, nid, scope, project):
    """Until the outbox is done and the note's points carry the new scope and project."""
    from tests.indexing_helpers import note_points

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pending = rows(svc, "SELECT 1 FROM indexing_outbox WHERE note_id = %s AND status <> 'DONE'", (nid,))
        points = note_points(svc, nid)
        if not pending and points and all(p.payload["scope"] == scope and p.payload["project_id"] == project
                                          for p in points):
            return
        time.sleep(0.2)
    raise AssertionError(f"index payload of {nid} did not follow to {scope}/{project}")


def test_publish_to_team_shared_and_back(svc):
    nid = _add(svc, "Decision: the release train leaves every second Tuesday.", type="decision")
    wait_indexed(svc, nid)
    assert _get_note(svc, nid, "a2").status_code == 404
    assert nid not in _searched(svc, "release train Tuesday", "a2")

    r = _post(svc, f"/v2/notes/{nid}/publish", {"space": "team_shared"})
    assert r.status_code == 200, r.text
    assert r.json() == {"note_id": nid, "space": "team_shared"}
    assert _get_note(svc, nid, "a1").json()["scope"] == "project_shared"
    assert [(g["grantee_kind"], g["grantee_agent_id"]) for g in _grants(svc, "team_shared")] == [("project", None)]
    assert _get_note(svc, nid, "a2").status_code == 200
    assert nid in _listed(svc, "a2", "team_shared")
    _wait_payload(svc, nid, "project_shared", "p1")
    assert nid in _searched(svc, "release train Tuesday", "a2")
    assert nid not in _searched(svc, "release train Tuesday", "a2", profile="private_only")
    # another project and another tenant still see nothing
    assert _get_note(svc, nid, "a2", project="p2").status_code == 404
    assert _get_note(svc, nid, "a1", tenant="t2").status_code == 404

    versions = rows(svc, "SELECT op, reason, prev_snapshot->>'scope', new_snapshot->>'scope' FROM memory_note_versions "
                         "WHERE note_id = %s ORDER BY ts", (nid,))
    assert versions[-1] == ("UPDATE", "publish:team_shared", "agent_private", "project_shared")

    # publishing again changes nothing and keeps one grant
    assert _post(svc, f"/v2/notes/{nid}/publish", {"space": "team_shared"}).status_code == 200
    assert len(rows(svc, "SELECT 1 FROM memory_note_versions WHERE note_id = %s", (nid,))) == len(versions)
    assert len(_grants(svc, "team_shared")) == 1

    r = _post(svc, f"/v2/notes/{nid}/unpublish", {"space": "team_shared"})
    assert r.status_code == 200 and r.json() == {"note_id": nid, "space": "agent_private"}
    assert _get_note(svc, nid, "a2").status_code == 404
    assert _get_note(svc, nid, "a1").json()["scope"] == "agent_private"
    _wait_payload(svc, nid, "agent_private", "p1")
    assert nid not in _searched(svc, "release train Tuesday", "a2")
    assert nid in _searched(svc, "release train Tuesday", "a1")
    assert rows(svc, "SELECT reason FROM memory_note_versions WHERE note_id = %s ORDER BY ts DESC LIMIT 1",
                (nid,)) == [("unpublish:team_shared",)]


def test_org_space_is_tenant_wide_through_grants(svc):
    nid = _add(svc, "Fact: the company VPN gateway moved to vpn2.example.com.", agent="ops", project="infra")
    r = _post(svc, f"/v2/notes/{nid}/publish", {"space": "org_shared"}, agent="ops", project="infra")
    assert r.status_code == 200, r.text
    assert rows(svc, "SELECT project_id, scope FROM memory_notes WHERE note_id = %s", (nid,)) == [
        ("__org__", "org_shared")
    ]
    assert rows(
        svc,
        "SELECT project_id, grantee_kind FROM memory_space_grants WHERE space_owner_agent_id = 'ops' "
        "AND scope = 'org_shared'",
    ) == [("__org__", "project")]
    _wait_payload(svc, nid, "org_shared", "__org__")
    for agent, project in (("dev", "web"), ("ops", "web"), ("x", "infra")):
        assert _get_note(svc, nid, agent, project=project).status_code == 200
        assert nid in _listed(svc, agent, "org_shared", project=project)
        assert nid in _searched(svc, "VPN gateway", agent, project=project)
        assert nid not in _searched(svc, "VPN gateway", agent, profile="private_plus_project", project=project)
    assert _get_note(svc, nid, "dev", tenant="t2", project="web").status_code == 404
    assert nid not in _searched(svc, "VPN gateway", "dev", tenant="t2", project="web")

    # unpublish from another project: the note comes home to the caller's project, private again
    r = _post(svc, f"/v2/notes/{nid}/unpublish", {"space": "org_shared"}, agent="ops", project="web")
    assert r.status_code == 200, r.text
    assert rows(svc, "SELECT project_id, scope FROM memory_notes WHERE note_id = %s", (nid,)) == [
        ("web", "agent_private")
    ]
    assert _get_note(svc, nid, "dev", project="web").status_code == 404
    assert _get_note(svc, nid, "ops", project="web").status_code == 200


def test_org_shared_ingest_lives_in_the_org_space(svc):
    nid = _add(svc, "Fact: all teams share one incident channel.", scope="org_shared", agent="lead", project="p7")
    assert rows(svc, "SELECT project_id FROM memory_notes WHERE note_id = %s", (nid,)) == [("__org__",)]
    assert _get_note(svc, nid, "lead", project="p8").status_code == 200  # the owner, from any project
    assert _get_note(svc, nid, "other", project="p7").status_code == 404  # no grant yet
    assert (
        _post(
            svc,
            "/v2/spaces/org_shared/grants",
            {"grantee_kind": "agent", "grantee_agent_id": "other"},
            agent="lead",
            project="p7",
        ).json()["granted"]
        is True
    )
    assert _get_note(svc, nid, "other", project="p9").status_code == 200
    assert _get_note(svc, nid, "third", project="p7").status_code == 404


def test_agent_grants_and_revocation_history(svc):
    nid = _add(svc, "Fact: the staging database is refreshed nightly.", scope="team_shared", agent="own")
    body = {"grantee_kind": "agent", "grantee_agent_id": "reader"}
    r = _post(svc, "/v2/spaces/team_shared/grants", body, agent="own")
    assert r.status_code == 200 and r.json() == {
        "space": "team_shared",
        "grantee_kind": "agent",
        "grantee_agent_id": "reader",
        "granted": True,
    }
    assert _post(svc, "/v2/spaces/team_shared/grants", body, agent="own").status_code == 200  # idempotent
    assert len(_grants(svc, "team_shared", agent="own")) == 1
    assert _get_note(svc, nid, "reader").status_code == 200
    assert _get_note(svc, nid, "bystander").status_code == 404
    # a grant covers the owner's space, not the grantee's: the reader's own space stays ungranted
    assert _grants(svc, "team_shared", agent="reader") == []

    r = _post(svc, "/v2/spaces/team_shared/grants/revoke", body, agent="own")
    assert r.status_code == 200 and r.json() == {"revoked": True}
    assert _get_note(svc, nid, "reader").status_code == 404
    assert _post(svc, "/v2/spaces/team_shared/grants/revoke", body, agent="own").json() == {"revoked": False}
    assert _grants(svc, "team_shared", agent="own") == []
    history = _grants(svc, "team_shared", agent="own", include_revoked=True)
    assert len(history) == 1 and history[0]["revoked_by_agent_id"] == "own" and history[0]["revoked_at"]
    # granting again adds a new active row; the revoked one stays
    _post(svc, "/v2/spaces/team_shared/grants", body, agent="own")
    assert len(_grants(svc, "team_shared", agent="own", include_revoked=True)) == 2
    assert _get_note(svc, nid, "reader").status_code == 200


@pytest.mark.parametrize(
    "space, body, status, code, field",
    [
        ("team_shared", {"grantee_kind": "agent"}, 400, "INVALID_REQUEST", "$.grantee_agent_id"),
        (
            "team_shared",
            {"grantee_kind": "project", "grantee_agent_id": "x"},
            400,
            "INVALID_REQUEST",
            "$.grantee_agent_id",
        ),
        (
            "team_shared",
            {"grantee_kind": "agent", "grantee_agent_id": "a1"},
            400,
            "INVALID_REQUEST",
            "$.grantee_agent_id",
        ),
        ("team_shared", {"grantee_kind": "team"}, 400, "INVALID_REQUEST", "$.grantee_kind"),
        ("team_shared", {"grantee_kind": "project", "extra": 1}, 400, "INVALID_REQUEST", "$.extra"),
        (
            "team_shared",
            {"grantee_kind": "agent", "grantee_agent_id": "агент"},
            422,
            "NON_ENGLISH_INPUT",
            "$.grantee_agent_id",
        ),
        ("agent_private", {"grantee_kind": "project"}, 400, "INVALID_REQUEST", "$.path.space"),
        ("project_shared", {"grantee_kind": "project"}, 400, "INVALID_REQUEST", "$.path.space"),
    ],
)
def test_grant_errors(svc, space, body, status, code, field):
    for path in (f"/v2/spaces/{space}/grants", f"/v2/spaces/{space}/grants/revoke"):
        r = _post(svc, path, body)
        assert r.status_code == status, r.text
        assert r.json()["error_code"] == code and field in r.json()["fields"], r.json()
    assert rows(
        svc,
        "SELECT count(*) FROM memory_space_grants WHERE space_owner_agent_id = 'a1' AND grantee_agent_id IS NOT NULL",
    ) == [(0,)]


def test_publish_errors(svc):
    nid = _add(svc, "Fact: the coffee machine is on floor three.", agent="a5")
    r = _post(svc, f"/v2/notes/{nid}/publish", {"space": "team_shared"}, agent="a6")
    assert r.status_code == 404  # a private note of another agent does not exist for the caller
    _post(svc, f"/v2/notes/{nid}/publish", {"space": "team_shared"}, agent="a5")
    r = _post(svc, f"/v2/notes/{nid}/unpublish", {"space": "team_shared"}, agent="a6")
    assert r.status_code == 403 and r.json()["error_code"] == "SCOPE_DENIED"  # readable, not owned
    r = _post(svc, f"/v2/notes/{nid}/unpublish", {"space": "org_shared"}, agent="a5")
    assert r.status_code == 400 and r.json()["fields"] == ["$.space"]
    for body, field in (
        ({"space": "agent_private"}, "$.space"),
        ({}, "$.space"),
        ({"space": "team_shared", "x": 1}, "$.x"),
    ):
        r = _post(svc, f"/v2/notes/{nid}/publish", body, agent="a5")
        assert r.status_code == 400 and field in r.json()["fields"], r.text
    r = _post(svc, "/v2/notes/00000000-0000-0000-0000-000000000000/publish", {"space": "team_shared"}, agent="a5")
    assert r.status_code == 404
    requests.delete(f"{svc.public}/v2/notes/{nid}", headers=headers("a5"), timeout=10)
    r = _post(svc, f"/v2/notes/{nid}/unpublish", {"space": "team_shared"}, agent="a5")
    assert r.status_code == 409 and r.json()["error_code"] == "NOTE_NOT_ACTIVE"
    assert rows(svc, "SELECT scope, status FROM memory_notes WHERE note_id = %s", (nid,)) == [
        ("project_shared", "deleted")
    ]


def test_publish_refuses_a_key_clash(svc):
    shared = _add(
        svc,
        "Preference: answers in British English.",
        scope="team_shared",
        agent="k1",
        key="spelling",
        type="preference",
    )
    private = _add(svc, "Preference: answers in American English.", agent="k1", key="spelling", type="preference")
    r = _post(svc, f"/v2/notes/{private}/publish", {"space": "team_shared"}, agent="k1")
    assert r.status_code == 409 and r.json()["error_code"] == "NOTE_KEY_CONFLICT", r.text
    assert rows(svc, "SELECT scope FROM memory_notes WHERE note_id IN (%s, %s) ORDER BY scope", (shared, private)) == [
        ("agent_private",),
        ("project_shared",),
    ]


def test_reserved_org_project_header(svc):
    r = requests.get(svc.public + "/v2/notes", headers=headers("a1", project="__org__"), timeout=10)
    assert r.status_code == 400 and r.json()["fields"] == ["$.headers.X-ELF-Project-Id"]
