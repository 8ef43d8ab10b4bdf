"""A note becomes deprecated through POST /v2/notes/{id}/deprecate (the documented path), leaves search and
the index, stays readable by id, and the lifecycle GC purges it after purge_deprecated_after_days without a
hit (spec v2 section 11)."""

from __future__ import annotations

import pytest
import requests

from tests.indexing_helpers import count_points, execute, send_task, wait_for
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("deprecate")
    s.start_api()
    s.start_worker()
    return s


def deprecate(svc, note_id, agent="a1", **body):
    return requests.post(f"{svc.public}/v2/notes/{note_id}/deprecate", json=body, headers=headers(agent), timeout=30)


def search_ids(svc, query):
    r = requests.post(svc.public + "/v2/searches", json={"query": query, "mode": "quick_find"},
                      headers={**headers(), "X-ELF-Read-Profile": "private_only"}, timeout=60)
    assert r.status_code == 200, r.text
    return [i["note_id"] for i in r.json()["items"]]


def test_superseded_note_is_deprecated_leaves_search_and_is_purged_later(svc):
    old, new = [ingest(svc, [note(t)]).json()["results"][0]["note_id"] for t in (
        "Fact: the builds run on Jenkins at ci.example.org.", "Fact: the builds run on GitHub Actions since May.")]
    for nid in (old, new):
        wait_indexed(svc, nid)
    assert old in search_ids(svc, "where do the builds run on Jenkins")

    r = deprecate(svc, old, superseded_by=new)
    assert r.status_code == 200, r.text
    assert r.json() == {"note_id": old, "op": "DEPRECATE", "status": "deprecated"}
    assert rows(svc, "SELECT op, reason FROM memory_note_versions WHERE note_id = %s ORDER BY ts", (old,)) == [
        ("ADD", "add_note"), ("DEPRECATE", f"superseded_by:{new}")]
    wait_for(lambda: count_points(svc, old) == 0, 30, "the deprecated note's points to leave the index")
    assert old not in search_ids(svc, "where do the builds run on Jenkins")
    got = requests.get(f"{svc.public}/v2/notes/{old}", headers=headers(), timeout=30).json()
    assert got["status"] == "deprecated"
    listed = requests.get(
        svc.public + "/v2/notes",
        params={"status": "deprecated", "scope": "agent_private"},
        headers=headers(),
        timeout=30,
    )
    assert [n["note_id"] for n in listed.json()["notes"]] == [old]
    assert deprecate(svc, old).json()["op"] == "NONE"  # twice: nothing more is written
    assert rows(svc, "SELECT count(*) FROM memory_note_versions WHERE note_id = %s", (old,)) == [(2,)]

    # 181 days later without a hit (the config purges deprecated notes after 180): the GC purges it.
    execute(svc, "UPDATE memory_notes SET updated_at = now() - interval '181 days' WHERE note_id = %s", (old,))
    send_task(svc, "memory.lifecycle_gc")
    wait_for(
        lambda: rows(svc, "SELECT count(*) FROM memory_notes WHERE note_id = %s", (old,)) == [(0,)],
        30,
        "the purge of the deprecated note",
    )
    assert rows(svc, "SELECT status FROM memory_notes WHERE note_id = %s", (new,)) == [("active",)]


@pytest.mark.parametrize("case", ["not-owner", "self", "missing-successor", "deleted", "bad-body"])
def test_refusals_leave_the_note_as_it_was(svc, case):
    nid = ingest(svc, [note(f"Fact: the {case} test note is still true.")]).json()["results"][0]["note_id"]
    if case == "deleted":
        requests.delete(f"{svc.public}/v2/notes/{nid}", headers=headers(), timeout=30)
    r = {
        "not-owner": lambda: deprecate(svc, nid, agent="a2"),
        "self": lambda: deprecate(svc, nid, superseded_by=nid),
        "missing-successor": lambda: deprecate(svc, nid, superseded_by="00000000-0000-4000-8000-000000000000"),
        "deleted": lambda: deprecate(svc, nid),
        "bad-body": lambda: deprecate(svc, nid, superseded_by="yesterday"),
    }[case]()
    expected = {
        "not-owner": (404, "$.note_id"),
        "self": (400, "$.superseded_by"),
        "missing-successor": (404, "$.superseded_by"),
        "deleted": (409, "$.note_id"),
        "bad-body": (400, "$.superseded_by"),
    }[case]
    assert (r.status_code, r.json()["fields"]) == (expected[0], [expected[1]]), r.text
    status = "deleted" if case == "deleted" else "active"
    assert rows(svc, "SELECT status FROM memory_notes WHERE note_id = %s", (nid,)) == [(status,)]
    assert rows(svc, "SELECT count(*) FROM memory_note_versions WHERE note_id = %s AND op = 'DEPRECATE'", (nid,)) == [
        (0,)
    ]
