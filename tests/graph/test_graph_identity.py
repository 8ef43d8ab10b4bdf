"""Graph facts and identity (issue 31 item 4), through HTTP against a real elf-api with static keys: a write never
changes the state of a fact its writer cannot read (another agent's agent_private fact is not superseded), and a
note update re-derives its relations (a fact it no longer states loses it as evidence, and is not current when
no evidence is left). Facts are derived in the note's transaction, so no worker is needed."""

from __future__ import annotations

import uuid

import pytest
import requests

from tests.keys_helpers import Keys
from tests.notes_helpers import note

TENANT, PROJECT = "t-graph-identity", "proj-a"
KEYS = Keys(("agent-a", TENANT, PROJECT, "agent-a"), ("agent-b", TENANT, PROJECT, "agent-b"),
            ("admin", TENANT, PROJECT, "ops", "admin"))
PREDICATES = "/v2/admin/graph/predicates"


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["memory"]["policy"]["min_confidence"] = 0.5
        # Notes about one project read alike: only a key (or an identical text) makes a write an update here.
        data["memory"].update(dup_sim_threshold=1.0, update_sim_threshold=1.0)
        KEYS.configure(data)

    s = isolated_services_module("graph_identity", mutate=mutate)
    s.start_api()
    return s


def bearer(who: str) -> dict[str, str]:
    return KEYS.bearer(who)


def name(base: str) -> str:
    """A subject or predicate of this test alone (the module's tests share one tenant)."""
    return f"{base} {uuid.uuid4().hex[:6]}"


def relation(subject: str, predicate: str, person: str) -> dict:
    return {"subject": {"canonical": subject, "kind": "project"}, "predicate": predicate,
            "object": {"entity": {"canonical": person, "kind": "person"}, "value": None}}


def write(svc, who: str, text: str, relations: list[dict], *, key: str | None = None, op: str = "ADD",
          scope: str = "agent_private") -> str:
    extra = {"key": key} if key else {}
    r = requests.post(svc.public + "/v2/notes/ingest", headers=bearer(who), timeout=60,
                      json={"scope": scope,
                            "notes": [note(text, structured={"relations": relations}, **extra)]})
    assert r.status_code == 200, r.text
    result = r.json()["results"][0]
    assert result["op"] == op and "warnings" not in result, result
    return result["note_id"]


def facts(svc, who: str, subject: str, state: str = "current") -> list[dict]:
    r = requests.get(svc.public + "/v2/graph/facts", params={"subject": subject, "state": state},
                     headers=bearer(who), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["facts"]


def objects(found: list[dict]) -> list[str]:
    return sorted(f["object"]["entity"]["canonical"] for f in found)


def make_single(svc, predicate: str) -> None:
    """What an operator does: the predicate registered as pending/multi by its first use becomes active and
    single-valued through the admin API."""
    r = requests.get(svc.admin + PREDICATES, params={"scope": "tenant_project"}, headers=bearer("admin"), timeout=10)
    assert r.status_code == 200, r.text
    (pid,) = [p["predicate_id"] for p in r.json()["predicates"] if p["canonical"] == predicate]
    r = requests.patch(f"{svc.admin}{PREDICATES}/{pid}", json={"status": "active", "cardinality": "single"},
                       headers=bearer("admin"), timeout=10)
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["cardinality"]) == ("active", "single")


def test_another_agents_private_note_does_not_supersede_my_private_fact(svc):
    subject, predicate = name("Project Larkspur"), name("led_by_person")
    mine = write(svc, "agent-a", f"{subject} is led by Alice.", [relation(subject, predicate, "Alice")])
    make_single(svc, predicate)
    theirs = write(svc, "agent-b", f"{subject} is led by Bob.", [relation(subject, predicate, "Bob")])

    (kept,) = facts(svc, "agent-a", subject)
    assert objects([kept]) == ["Alice"] and kept["valid_to"] is None and kept["evidence_note_ids"] == [mine]
    assert kept["superseded_by"] == []
    assert facts(svc, "agent-a", subject, "historical") == []
    (own,) = facts(svc, "agent-b", subject)  # agent-b sees its own fact only, and it closed nothing
    assert objects([own]) == ["Bob"] and own["evidence_note_ids"] == [theirs] and own["supersedes"] == []


def test_my_newer_private_note_supersedes_my_older_one(svc):
    subject, predicate = name("Project Larkspur"), name("led_by_person")
    older = write(svc, "agent-a", f"{subject} is led by Alice.", [relation(subject, predicate, "Alice")])
    make_single(svc, predicate)
    write(svc, "agent-b", f"{subject} is led by Bob.", [relation(subject, predicate, "Bob")])
    newer = write(svc, "agent-a", f"{subject} is now led by Carol.", [relation(subject, predicate, "Carol")])

    (current,) = facts(svc, "agent-a", subject)
    assert objects([current]) == ["Carol"] and current["evidence_note_ids"] == [newer]
    (closed,) = facts(svc, "agent-a", subject, "historical")
    assert objects([closed]) == ["Alice"] and closed["evidence_note_ids"] == [older]
    assert [link["fact_id"] for link in closed["superseded_by"]] == [current["fact_id"]]
    assert objects(facts(svc, "agent-b", subject)) == ["Bob"]  # agent-a's write left agent-b's fact alone


def test_two_agents_stating_the_same_private_relation_hold_two_facts(svc):
    subject, predicate = name("Project Larkspur"), name("led_by_person")
    mine = write(svc, "agent-a", f"{subject} is led by Alice.", [relation(subject, predicate, "Alice")])
    make_single(svc, predicate)
    theirs = write(svc, "agent-b", f"I heard that Alice leads {subject}.", [relation(subject, predicate, "Alice")])
    (a_fact,), (b_fact,) = facts(svc, "agent-a", subject), facts(svc, "agent-b", subject)
    assert a_fact["fact_id"] != b_fact["fact_id"]
    assert (a_fact["evidence_note_ids"], b_fact["evidence_note_ids"]) == ([mine], [theirs])

    newer = write(svc, "agent-a", f"{subject} is now led by Carol.", [relation(subject, predicate, "Carol")])
    (current,) = facts(svc, "agent-a", subject)  # agent-a's own Alice fact is closed: agent-b's note was not on it
    assert objects([current]) == ["Carol"] and current["evidence_note_ids"] == [newer]
    (kept,) = facts(svc, "agent-b", subject)
    assert kept["fact_id"] == b_fact["fact_id"] and kept["valid_to"] is None


def test_a_shared_note_supersedes_only_shared_facts_its_writer_may_read(svc):
    subject, predicate = name("Project Larkspur"), name("led_by_person")
    mine = write(svc, "agent-a", f"{subject} is led by Alice.", [relation(subject, predicate, "Alice")],
                 scope="project_shared")
    make_single(svc, predicate)
    # agent-b cannot read agent-a's shared note (no grant): its own shared statement leaves agent-a's fact open.
    write(svc, "agent-b", f"{subject} is led by Bob.", [relation(subject, predicate, "Bob")], scope="project_shared")
    (kept,) = facts(svc, "agent-a", subject)
    assert objects([kept]) == ["Alice"] and kept["evidence_note_ids"] == [mine] and kept["valid_to"] is None

    grant = requests.post(svc.public + "/v2/spaces/team_shared/grants", headers=bearer("agent-a"), timeout=10,
                          json={"grantee_kind": "agent", "grantee_agent_id": "agent-b"})
    assert grant.status_code == 200, grant.text
    later = write(svc, "agent-b", f"Since today Erin leads {subject}.", [relation(subject, predicate, "Erin")],
                  scope="project_shared")
    (closed,) = facts(svc, "agent-a", subject, "historical")  # now agent-b may read it, and its write closes it
    assert closed["fact_id"] == kept["fact_id"]
    assert closed["superseded_by"] == []  # the fact that closed it rests on agent-b's note, which agent-a cannot read
    (current,) = facts(svc, "agent-b", subject)  # agent-b's own Bob fact is closed too
    assert objects([current]) == ["Erin"] and current["evidence_note_ids"] == [later]
    assert sorted(objects(facts(svc, "agent-b", subject, "historical"))) == ["Alice", "Bob"]


def test_a_keyed_note_updated_to_no_relations_leaves_no_current_fact(svc):
    subject, predicate = name("Project Larkspur"), name("led_by_person")
    key = name("larkspur-lead").replace(" ", "-")
    first = write(svc, "agent-a", f"{subject} is led by Alice.", [relation(subject, predicate, "Alice")], key=key)
    assert objects(facts(svc, "agent-a", subject)) == ["Alice"]

    updated = write(svc, "agent-a", f"Who leads {subject} is not recorded any more.", [], key=key, op="UPDATE")
    assert updated == first
    for state in ("current", "historical", "future"):
        assert [f for f in facts(svc, "agent-a", subject, state) if first in f["evidence_note_ids"]] == [], state


def test_an_update_that_changes_the_object_re_derives_the_fact(svc):
    subject, predicate = name("Project Larkspur"), name("led_by_person")  # pending, multi-valued
    key = name("larkspur-lead").replace(" ", "-")
    first = write(svc, "agent-a", f"{subject} is led by Alice.", [relation(subject, predicate, "Alice")], key=key)
    other = write(svc, "agent-a", f"Alice has led {subject} since spring.", [relation(subject, predicate, "Alice")])
    (shared,) = facts(svc, "agent-a", subject)
    assert sorted(shared["evidence_note_ids"]) == sorted([first, other])

    updated = write(svc, "agent-a", f"{subject} is led by Dana.", [relation(subject, predicate, "Dana")], key=key,
                    op="UPDATE")
    assert updated == first
    current = facts(svc, "agent-a", subject)
    assert objects(current) == ["Alice", "Dana"]  # Alice still rests on the other note, and only on it
    by_object = {f["object"]["entity"]["canonical"]: f for f in current}
    assert by_object["Alice"]["fact_id"] == shared["fact_id"] and by_object["Alice"]["evidence_note_ids"] == [other]
    assert by_object["Dana"]["evidence_note_ids"] == [first]
    assert facts(svc, "agent-a", subject, "historical") == []
