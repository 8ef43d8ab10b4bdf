"""relation_context in search explain (spec v2 sections 13-14): present only with search.graph_context.enabled,
in the raw admin search and in the trace readbacks, bounded per item and per fact, evidence-bound, and
historical facts labelled."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
import requests

from tests.notes_helpers import headers, ingest, note, rows, wait_indexed

T1 = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)
T2 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TENANT = f"rc-{uuid.uuid4().hex[:8]}"


def rel(subject, predicate, entity, valid_from=None):
    out = {"subject": {"canonical": subject}, "predicate": predicate, "object": {"entity": {"canonical": entity}}}
    return {**out, "valid_from": valid_from.isoformat()} if valid_from else out


def _world(isolated_services_module, name, graph_context):
    def mutate(data):
        data["search"]["explain"]["write_mode"] = "inline"  # the trace is readable as soon as the search answers
        if graph_context:
            data["search"]["graph_context"] = graph_context
    s = isolated_services_module(name, mutate)
    s.start_api()
    s.start_worker()
    rows(s, "INSERT INTO graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, canonical_norm, "
            "cardinality, status) VALUES (%s, %s, %s, 'p1', 'leads', 'leads', 'single', 'active') RETURNING 1",
         (uuid.uuid4(), f"{TENANT}:p1", TENANT))
    old = ingest(s, [note("Mia leads the data team and mentors the interns.", structured={"relations": [
        rel("Mia", "leads", "data team", T1), rel("Mia", "mentors", "interns")]})], tenant=TENANT)
    new = ingest(s, [note("Mia now leads the platform team and mentors the interns.", structured={"relations": [
        rel("Mia", "leads", "platform team", T2), rel("Mia", "mentors", "interns")]})], tenant=TENANT)
    s.ids = [r.json()["results"][0]["note_id"] for r in (old, new)]
    for nid in s.ids:
        wait_indexed(s, nid)
    return s


@pytest.fixture(scope="module")
def bounded(isolated_services_module):
    return _world(isolated_services_module, "rc_bounded",
                  {"enabled": True, "max_facts_per_item": 1, "max_evidence_notes_per_fact": 1})


@pytest.fixture(scope="module")
def roomy(isolated_services_module):
    return _world(isolated_services_module, "rc_roomy",
                  {"enabled": True, "max_facts_per_item": 8, "max_evidence_notes_per_fact": 8})


@pytest.fixture(scope="module")
def off(isolated_services_module):
    return _world(isolated_services_module, "rc_off", {"enabled": False, "max_facts_per_item": 8,
                                                       "max_evidence_notes_per_fact": 8})


def raw(svc, agent="a1"):
    r = requests.post(
        svc.admin + "/v2/admin/searches/raw",
        json={"query": "Who leads which team?", "mode": "quick_find"},
        headers={**headers(agent, tenant=TENANT), "X-ELF-Read-Profile": "all_scopes"},
        timeout=60,
    )
    assert r.status_code == 200, r.text
    return r.json()


def by_note(body) -> dict[str, dict]:
    return {i["note_id"]: i["explain"] for i in body["items"]}


def test_relation_context_lists_the_notes_facts_with_states_and_evidence(roomy):
    explains = by_note(raw(roomy))
    old, new = roomy.ids
    context = {(f["predicate"], f["object"]["entity"]["canonical"]): f for f in explains[old]["relation_context"]}
    assert set(context) == {("leads", "data team"), ("mentors", "interns")}
    assert context[("leads", "data team")]["state"] == "historical"  # labelled: closed by the later note
    assert context[("leads", "data team")]["valid_to"] == T2.isoformat()
    assert context[("mentors", "interns")]["state"] == "current"
    assert context[("mentors", "interns")]["evidence_note_ids"] == [old, new]
    assert context[("leads", "data team")]["subject"] == {"canonical": "Mia", "kind": None}
    new_context = explains[new]["relation_context"]
    assert new_context[0]["state"] == "current"  # current facts come first
    assert {f["object"]["entity"]["canonical"] for f in new_context} == {"platform team", "interns"}


def test_both_bounds_hold(bounded):
    for explain in by_note(raw(bounded)).values():
        (fact,) = explain["relation_context"]  # max_facts_per_item = 1: the current one
        assert fact["state"] == "current" and len(fact["evidence_note_ids"]) == 1


def test_the_trace_readbacks_carry_the_same_relation_context(roomy):
    body = raw(roomy)
    item = body["items"][0]
    stored = requests.get(
        f"{roomy.admin}/v2/admin/trace-items/{item['result_handle']}", headers=headers(tenant=TENANT), timeout=10
    )
    assert stored.status_code == 200, stored.text
    assert stored.json()["item"]["explain"]["relation_context"] == item["explain"]["relation_context"]
    trace = requests.get(
        f"{roomy.admin}/v2/admin/traces/{body['trace_id']}", headers=headers(tenant=TENANT), timeout=10
    ).json()
    assert all("relation_context" in i["explain"] for i in trace["items"])


def test_evidence_lists_only_notes_the_caller_may_read(roomy):
    old, new = roomy.ids
    rows(roomy, "UPDATE memory_notes SET status = 'deleted' WHERE note_id = %s RETURNING 1", (old,))
    try:
        explains = by_note(raw(roomy))
        assert old not in explains
        mentors = [f for f in explains[new]["relation_context"] if f["predicate"] == "mentors"]
        assert mentors[0]["evidence_note_ids"] == [new]
    finally:
        rows(roomy, "UPDATE memory_notes SET status = 'active' WHERE note_id = %s RETURNING 1", (old,))


def test_disabled_graph_context_adds_no_relation_context(off):
    body = raw(off)
    assert body["items"] and all("relation_context" not in i["explain"] for i in body["items"])
