"""Graph memory through the HTTP API on the real stack (spec v2 sections 5, 8.3, 15; supplement section 2):
facts from structured.relations with the note as evidence, supersession of single-valued predicates,
re-ingest, visibility under the notes' read rule, policy ignore, the purge cascade, and the facts and
entities read API."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
import requests

from tests.notes_helpers import headers, ingest, note, rows

T1 = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)
T2 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["memory"]["policy"]["min_confidence"] = 0.5

    s = isolated_services_module("graph_facts", mutate=mutate)
    s.start_api()
    return s


def tenant() -> str:
    return f"g-{uuid.uuid4().hex[:8]}"


def relation(subject: str, predicate: str, *, entity: str | None = None, value: str | None = None,
             valid_from: datetime | None = None, valid_to: datetime | None = None) -> dict:
    rel = {"subject": {"canonical": subject, "kind": "person"}, "predicate": predicate,
           "object": {"entity": {"canonical": entity} if entity else None, "value": value}}
    if valid_from:
        rel["valid_from"] = valid_from.isoformat()
    if valid_to:
        rel["valid_to"] = valid_to.isoformat()
    return rel


def add(svc, t, text, relations, *, scope="agent_private", agent="a1", **kw) -> str:
    r = ingest(svc, [note(text, structured={"relations": relations}, **kw)], scope=scope, agent=agent, tenant=t)
    assert r.status_code == 200, r.text
    result = r.json()["results"][0]
    assert result["op"] in ("ADD", "UPDATE", "NONE") and "warnings" not in result, result
    return result["note_id"]


def facts(svc, t, agent="a1", **params) -> list[dict]:
    r = requests.get(svc.public + "/v2/graph/facts", params=params, headers=headers(agent, tenant=t), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["facts"]


def single_predicate(svc, t, name: str, project: str = "p1") -> None:
    """An active, single-valued predicate in the tenant:project scope (what an operator sets up)."""
    rows(svc, "INSERT INTO graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, "
              "canonical_norm, cardinality, status) VALUES (%s, %s, %s, %s, %s, %s, 'single', 'active') RETURNING 1",
         (uuid.uuid4(), f"{t}:{project}", t, project, name, name))


def test_a_single_predicate_closes_the_old_fact_at_the_new_valid_from(svc):
    t = tenant()
    single_predicate(svc, t, "leads")
    first = add(svc, t, "Alice leads the data team.", [relation("Alice", "leads", entity="data team", valid_from=T1)])
    second = add(svc, t, "Alice now leads the platform team.",
                 [relation("Alice", "leads", entity="platform team", valid_from=T2)])

    (current,) = facts(svc, t, subject="alice", predicate="Leads")
    assert current["object"]["entity"]["canonical"] == "platform team" and current["state"] == "current"
    assert current["valid_to"] is None and current["evidence_note_ids"] == [second]
    (old,) = facts(svc, t, subject="Alice", state="historical")
    assert old["object"]["entity"]["canonical"] == "data team" and old["evidence_note_ids"] == [first]
    assert datetime.fromisoformat(old["valid_to"]) == T2
    assert old["superseded_by"] == [{"fact_id": current["fact_id"], "note_id": second,
                                     "effective_at": old["valid_to"]}]
    assert current["supersedes"][0]["fact_id"] == old["fact_id"]
    (row,) = rows(svc, "SELECT from_fact_id::text, to_fact_id::text, note_id::text, effective_at "
                       "FROM graph_fact_supersessions WHERE tenant_id = %s", (t,))
    assert row == (old["fact_id"], current["fact_id"], second, T2)
    # as_of answers what was true then
    (then,) = facts(svc, t, subject="Alice", as_of=(T1 + timedelta(days=1)).isoformat())
    assert then["fact_id"] == old["fact_id"] and then["state"] == "current"
    assert facts(svc, t, subject="Alice", as_of=(T1 - timedelta(days=1)).isoformat()) == []
    assert [f["fact_id"] for f in facts(svc, t, subject="Alice", state="all")] == [current["fact_id"], old["fact_id"]]


def test_a_late_note_about_an_earlier_time_is_closed_by_the_later_fact(svc):
    t = tenant()
    single_predicate(svc, t, "leads")
    add(svc, t, "Bob leads the search team.", [relation("Bob", "leads", entity="search team", valid_from=T2)])
    add(svc, t, "Bob led the infra team before.", [relation("Bob", "leads", entity="infra team", valid_from=T1)])
    (current,) = facts(svc, t, subject="Bob")
    assert current["object"]["entity"]["canonical"] == "search team"
    (old,) = facts(svc, t, subject="Bob", state="historical")
    assert old["object"]["entity"]["canonical"] == "infra team" and datetime.fromisoformat(old["valid_to"]) == T2


def test_multi_and_unknown_predicates_keep_every_fact(svc):
    t = tenant()
    # "likes" is a shipped global predicate, active and multi-valued: both facts stay, nothing is registered.
    add(svc, t, "Carol likes tea.", [relation("Carol", "likes", value="tea")])
    add(svc, t, "Carol likes chess.", [relation("Carol", "likes", value="chess")])
    assert sorted(f["object"]["value"] for f in facts(svc, t, subject="Carol")) == ["chess", "tea"]
    assert rows(svc, "SELECT count(*) FROM graph_predicates WHERE tenant_id = %s", (t,)) == [(0,)]
    assert rows(svc, "SELECT DISTINCT p.scope_key, p.cardinality, p.status FROM graph_facts f JOIN graph_predicates p "
                     "USING (predicate_id) WHERE f.tenant_id = %s", (t,)) == [("__global__", "multi", "active")]
    # A predicate the registry does not know is registered for the tenant's project as pending and multi.
    add(svc, t, "Carol collects stamps.", [relation("Carol", "collects", value="stamps")], key="carol_stamps")
    add(svc, t, "Carol collects coins.", [relation("Carol", "collects", value="coins")], key="carol_coins")
    assert sorted(f["object"]["value"] for f in facts(svc, t, subject="Carol", predicate="collects")) == \
        ["coins", "stamps"]
    (pred,) = rows(svc, "SELECT scope_key, cardinality, status FROM graph_predicates WHERE tenant_id = %s", (t,))
    assert pred == (f"{t}:p1", "multi", "pending")


def test_a_shipped_single_predicate_supersedes_without_an_operator(svc):
    """Issue 32: "leads" ships active and single-valued, and "heads" and "lead_of" are its aliases."""
    t = tenant()
    first = add(svc, t, "Alice leads the data team.", [relation("Alice", "leads", entity="data team", valid_from=T1)])
    second = add(svc, t, "Alice now heads the platform team.",
                 [relation("Alice", "heads", entity="platform team", valid_from=T2)])
    (current,) = facts(svc, t, subject="Alice", predicate="lead_of")
    assert current["object"]["entity"]["canonical"] == "platform team" and current["evidence_note_ids"] == [second]
    (old,) = facts(svc, t, subject="Alice", state="historical")
    assert old["evidence_note_ids"] == [first] and datetime.fromisoformat(old["valid_to"]) == T2
    assert old["superseded_by"][0]["fact_id"] == current["fact_id"]
    assert rows(svc, "SELECT count(*) FROM graph_predicates WHERE tenant_id = %s", (t,)) == [(0,)]


def test_reingesting_an_equivalent_fact_appends_evidence(svc):
    t = tenant()
    # Keyed, so the UpdateResolver keeps two notes (key-less, the second would update the first by similarity).
    one = add(svc, t, "Dan works at Acme.", [relation("Dan", "works at", entity="Acme")], key="dan_employer")
    two = add(svc, t, "Dan is employed by Acme.", [relation("dan ", "Works  at", entity="ACME")], key="dan_job")
    (fact,) = facts(svc, t, subject="Dan")
    assert fact["evidence_note_ids"] == [one, two]
    assert rows(svc, "SELECT count(*) FROM graph_facts WHERE tenant_id = %s", (t,)) == [(1,)]
    assert rows(svc, "SELECT count(*) FROM graph_entities WHERE tenant_id = %s", (t,)) == [(2,)]


def test_a_deleted_or_expired_evidence_note_hides_the_fact(svc):
    t = tenant()
    gone = add(svc, t, "Eve lives in Oslo.", [relation("Eve", "lives in", entity="Oslo")])
    stale = add(svc, t, "Eve plays the cello.", [relation("Eve", "plays", value="cello")])
    assert len(facts(svc, t, subject="Eve")) == 2
    assert requests.delete(f"{svc.public}/v2/notes/{gone}", headers=headers(tenant=t), timeout=10).status_code == 200
    rows(svc, "UPDATE memory_notes SET expires_at = now() - interval '1 minute' WHERE note_id = %s RETURNING 1",
         (stale,))
    assert facts(svc, t, subject="Eve", state="all") == []


def test_other_tenants_and_agents_without_a_grant_never_see_a_fact(svc):
    t = tenant()
    add(svc, t, "Frank owns the billing service.", [relation("Frank", "owns", entity="billing service")])
    shared = add(svc, t, "Grace owns the auth service.", [relation("Grace", "owns", entity="auth service")],
                 scope="project_shared")
    assert facts(svc, t, agent="a2", state="all") == []  # private to a1; shared but no grant
    assert facts(svc, tenant(), state="all") == []
    assert len(facts(svc, t, state="all")) == 2  # the owner sees both
    grant = requests.post(svc.public + "/v2/spaces/team_shared/grants", headers=headers(tenant=t), timeout=10,
                          json={"grantee_kind": "agent", "grantee_agent_id": "a2"})
    assert grant.status_code == 200, grant.text
    (seen,) = facts(svc, t, agent="a2", state="all")
    assert seen["subject"]["canonical"] == "Grace" and seen["evidence_note_ids"] == [shared]


def test_a_policy_ignore_writes_no_graph_row(svc):
    t = tenant()
    r = ingest(svc, [note("Hank maybe likes jazz.", confidence=0.2,
                          structured={"relations": [relation("Hank", "likes", value="jazz")]})], tenant=t)
    assert r.json()["results"][0]["policy_decision"] == "ignore"
    for table in ("graph_facts", "graph_entities", "graph_predicates"):
        assert rows(svc, f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (t,)) == [(0,)]


def test_purging_the_last_evidence_note_deletes_the_fact_but_keeps_entities_and_predicates(svc):
    t = tenant()
    # "teaches" is no shipped predicate, so it is registered for the tenant: the row the purge must keep.
    kept = add(svc, t, "Ivy teaches Dutch.", [relation("Ivy", "teaches", value="Dutch")], key="ivy_language")
    purged = add(svc, t, "Ivy teaches Dutch weekly.", [relation("Ivy", "teaches", value="Dutch")], key="ivy_weekly")
    rows(svc, "DELETE FROM memory_notes WHERE note_id = %s RETURNING 1", (purged,))  # what the purge GC does
    (fact,) = facts(svc, t, subject="Ivy")
    assert fact["evidence_note_ids"] == [kept]
    rows(svc, "DELETE FROM memory_notes WHERE note_id = %s RETURNING 1", (kept,))
    assert rows(svc, "SELECT count(*) FROM graph_facts WHERE tenant_id = %s", (t,)) == [(0,)]
    assert rows(svc, "SELECT count(*) FROM graph_entities WHERE tenant_id = %s", (t,)) == [(1,)]
    assert rows(svc, "SELECT count(*) FROM graph_predicates WHERE tenant_id = %s", (t,)) == [(1,)]


def test_entity_read_api_lists_aliases_current_facts_and_history(svc):
    t = tenant()
    single_predicate(svc, t, "leads")
    add(svc, t, "Jo leads ops.", [{**relation("Jo", "leads", entity="ops", valid_from=T1),
                                    "subject": {"canonical": "Jo", "kind": "person", "aliases": ["Joanna"]}}])
    add(svc, t, "Jo leads research now.", [relation("Joanna", "leads", entity="research", valid_from=T2)])
    (fact,) = facts(svc, t, subject="Joanna")
    entity_id = fact["subject"]["entity_id"]
    r = requests.get(f"{svc.public}/v2/graph/entities/{entity_id}", headers=headers(tenant=t), timeout=10)
    body = r.json()
    assert r.status_code == 200 and body["canonical"] == "Jo" and body["aliases"] == ["Joanna"]
    assert [f["object"]["entity"]["canonical"] for f in body["current_facts"]] == ["research"]
    assert [f["object"]["entity"]["canonical"] for f in body["history"]] == ["ops"]
    for who in (headers(tenant=tenant()), headers("a2", tenant=t)):
        other = requests.get(f"{svc.public}/v2/graph/entities/{entity_id}", headers=who, timeout=10)
        assert other.status_code == 404 and other.json()["error_code"] == "NOT_FOUND"


def test_bad_windows_and_queries_are_400_with_their_paths(svc):
    t = tenant()
    bad = ingest(svc, [note("Kim joined in March.", structured={"relations": [
        relation("Kim", "joined", value="March", valid_from=T2, valid_to=T1)]})], tenant=t)
    assert bad.status_code == 400
    assert bad.json()["fields"] == ["$.notes[0].structured.relations[0].valid_to"]
    for params, path in (({"state": "later"}, "$.query.state"), ({"as_of": "soon"}, "$.query.as_of"),
                         ({"limit": 0}, "$.query.limit"), ({"colour": "red"}, "$.query.colour")):
        r = requests.get(svc.public + "/v2/graph/facts", params=params, headers=headers(tenant=t), timeout=10)
        assert r.status_code == 400 and r.json()["fields"] == [path], (params, r.text)
    r = requests.get(svc.public + "/v2/graph/facts", params={"subject": "Алиса"}, headers=headers(tenant=t),
                     timeout=10)
    assert r.status_code == 422 and r.json()["fields"] == ["$.query.subject"]
