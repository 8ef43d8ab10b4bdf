"""GET/PATCH/DELETE /v2/notes over real HTTP: scoping, update rules, version and outbox rows."""

from __future__ import annotations

import psycopg
import pytest
import requests

from tests.notes_helpers import headers, ingest, llm_calls, note, rows


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("crud")
    s.start_api()
    yield s
    assert llm_calls(s) == 0


def _add(svc, text, *, scope="agent_private", agent="a1", **kw) -> str:
    res = ingest(svc, [note(text, **kw)], scope=scope, agent=agent).json()["results"][0]
    assert res["op"] == "ADD", res
    return res["note_id"]


def _list(svc, agent="a1", **params):
    return requests.get(svc.public + "/v2/notes", params=params, headers=headers(agent), timeout=10)


def test_private_notes_visible_only_to_their_agent(svc):
    mine = _add(svc, "Fact: a1 keeps its notebook in drawer seven.")
    assert requests.get(f"{svc.public}/v2/notes/{mine}", headers=headers("a1"), timeout=10).status_code == 200
    other = requests.get(f"{svc.public}/v2/notes/{mine}", headers=headers("a2"), timeout=10)
    assert other.status_code == 404 and other.json()["error_code"] == "NOT_FOUND"
    assert mine in {n["note_id"] for n in _list(svc, "a1", scope="agent_private").json()["notes"]}
    assert mine not in {n["note_id"] for n in _list(svc, "a2", scope="agent_private").json()["notes"]}
    # an omitted scope excludes agent_private even for the owner
    assert mine not in {n["note_id"] for n in _list(svc, "a1").json()["notes"]}
    other_tenant = requests.get(f"{svc.public}/v2/notes/{mine}", headers=headers("a1", tenant="t2"), timeout=10)
    assert other_tenant.status_code == 404


def test_shared_note_needs_a_grant(svc):
    shared = _add(svc, "Fact: the team standup is at nine.", scope="team_shared", agent="owner")
    assert _list(svc, "owner", scope="project_shared").json()["notes"][0]["scope"] == "project_shared"
    assert shared not in {n["note_id"] for n in _list(svc, "reader").json()["notes"]}
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        conn.execute("INSERT INTO memory_space_grants (grant_id, tenant_id, project_id, scope, space_owner_agent_id, "
                     "grantee_kind, granted_by_agent_id) VALUES (gen_random_uuid(), 't1', 'p1', 'project_shared', "
                     "'owner', 'project', 'owner')")
    assert shared in {n["note_id"] for n in _list(svc, "reader").json()["notes"]}
    # readable is not writable: a reader may not change the owner's note
    r = requests.patch(
        f"{svc.public}/v2/notes/{shared}", json={"importance": 0.9}, headers=headers("reader"), timeout=10
    )
    assert r.status_code == 403 and r.json()["error_code"] == "SCOPE_DENIED"


def test_list_filters_and_pagination(svc):
    # Distinct plans: near-identical texts would be duplicates by pooled vector, stored with each note.
    plans = [
        "Plan: roll out the new search page to the beta group.",
        "Plan: migrate billing to the new payment provider.",
        "Plan: add CSV export to the reports screen.",
        "Plan: ship dark mode for the mobile app in June.",
        "Plan: write an audit log for admin actions.",
    ]
    ids = [_add(svc, text, scope="project_shared", agent="pager", type="plan") for text in plans]
    seen, cursor = [], None
    while True:
        params = {"scope": "project_shared", "type": "plan", "limit": 2, **({"cursor": cursor} if cursor else {})}
        body = _list(svc, "pager", **params).json()
        seen += [n["note_id"] for n in body["notes"]]
        cursor = body["next_cursor"]
        if not cursor:
            break
    assert sorted(seen) == sorted(ids) and len(seen) == len(set(seen))
    bad = _list(svc, "pager", scope="everywhere")
    assert bad.status_code == 400 and bad.json()["fields"] == ["$.query.scope"]
    assert _list(svc, "pager", cursor="garbage").json()["fields"] == ["$.query.cursor"]


def test_patch_rules(svc):
    nid = _add(svc, "Fact: the cache size is 2 GB.")
    r = requests.patch(
        f"{svc.public}/v2/notes/{nid}",
        json={"text": "Fact: the cache size is 4 GB.", "importance": 0.8},
        headers=headers(),
        timeout=10,
    )
    assert r.json() == {"note_id": nid, "op": "UPDATE", "reason_code": None}
    assert rows(svc, "SELECT text, importance FROM memory_notes WHERE note_id = %s", (nid,)) == [
        ("Fact: the cache size is 4 GB.", pytest.approx(0.8))
    ]
    assert [r[0] for r in rows(svc, "SELECT op FROM memory_note_versions WHERE note_id = %s ORDER BY ts", (nid,))] == [
        "ADD",
        "UPDATE",
    ]
    assert rows(svc, "SELECT count(*) FROM indexing_outbox WHERE note_id = %s", (nid,)) == [(2,)]
    same = requests.patch(f"{svc.public}/v2/notes/{nid}", json={"importance": 0.8}, headers=headers(), timeout=10)
    assert same.json()["op"] == "NONE"
    ttl = requests.patch(f"{svc.public}/v2/notes/{nid}", json={"ttl_days": 2}, headers=headers(), timeout=10)
    assert ttl.json()["op"] == "UPDATE"
    assert rows(
        svc,
        "SELECT round(extract(epoch FROM expires_at - updated_at) / 86400) FROM memory_notes WHERE note_id = %s",
        (nid,),
    ) == [(2,)]
    default = requests.patch(f"{svc.public}/v2/notes/{nid}", json={"ttl_days": 0}, headers=headers(), timeout=10)
    assert default.json()["op"] == "UPDATE"  # fact default TTL: 180 days
    assert rows(
        svc,
        "SELECT round(extract(epoch FROM expires_at - updated_at) / 86400) FROM memory_notes WHERE note_id = %s",
        (nid,),
    ) == [(180,)]
    secret = requests.patch(
        f"{svc.public}/v2/notes/{nid}", json={"text": "Fact: password = hunter2hunter2"}, headers=headers(), timeout=10
    )
    assert secret.json()["op"] == "REJECTED" and secret.json()["reason_code"] == "REJECT_SECRET"
    non_english = requests.patch(
        f"{svc.public}/v2/notes/{nid}", json={"text": "Факт: кэш"}, headers=headers(), timeout=10
    )
    assert non_english.status_code == 422 and non_english.json()["fields"] == ["$.text"]
    empty = requests.patch(f"{svc.public}/v2/notes/{nid}", json={}, headers=headers(), timeout=10)
    assert empty.status_code == 400
    assert rows(svc, "SELECT text FROM memory_notes WHERE note_id = %s", (nid,)) == [("Fact: the cache size is 4 GB.",)]


def test_delete_then_delete_again(svc):
    nid = _add(svc, "Fact: the old VPN endpoint is retired.")
    first = requests.delete(f"{svc.public}/v2/notes/{nid}", headers=headers(), timeout=10)
    assert first.json() == {"note_id": nid, "op": "DELETE"}
    assert rows(svc, "SELECT status FROM memory_notes WHERE note_id = %s", (nid,)) == [("deleted",)]
    assert rows(svc, "SELECT op FROM indexing_outbox WHERE note_id = %s ORDER BY created_at", (nid,)) == [
        ("UPSERT",),
        ("DELETE",),
    ]
    assert requests.delete(f"{svc.public}/v2/notes/{nid}", headers=headers(), timeout=10).json()["op"] == "NONE"
    gone = requests.patch(f"{svc.public}/v2/notes/{nid}", json={"importance": 0.1}, headers=headers(), timeout=10)
    assert gone.status_code == 409 and gone.json()["error_code"] == "NOTE_NOT_ACTIVE"
    assert requests.delete(f"{svc.public}/v2/notes/{nid}", headers=headers("a2"), timeout=10).status_code == 404


def test_unknown_note_is_404(svc):
    r = requests.get(f"{svc.public}/v2/notes/00000000-0000-0000-0000-000000000000", headers=headers(), timeout=10)
    assert r.status_code == 404
    assert requests.get(f"{svc.public}/v2/notes/not-a-uuid", headers=headers(), timeout=10).status_code == 404
