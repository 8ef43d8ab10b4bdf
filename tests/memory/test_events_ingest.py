"""add_event over real HTTP with a scripted fake extractor: one call per request, evidence binding, write
policies, limits, retries, dry_run, and excluded text never stored (spec v2 sections 8.2, 19 C)."""

from __future__ import annotations

import json

import pytest
import requests

from tests.conftest import CHAT_PATH
from tests.fake_provider_server import FakeResponse, chat_completion
from tests.notes_helpers import headers, rows

SECRET_BIT = "the vault code is ZEBRA-42 and "
MESSAGE = f"Fact: {SECRET_BIT}backups run nightly at two."


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("events")
    s.start_api()
    return s


def script(svc, *contents):
    svc.fake.respond(CHAT_PATH, [FakeResponse(json=chat_completion(c)) for c in contents])


def cand(text, quote, *, index=0, type="fact", key=None, scope=None):
    return {"type": type, "key": key, "text": text, "importance": 0.6, "confidence": 0.9, "ttl_days": None,
            "structured": None, "scope_suggestion": scope, "evidence": [{"message_index": index, "quote": quote}],
            "reason": "test"}


def post(svc, messages, **body):
    return requests.post(svc.public + "/v2/events/ingest", json={"messages": messages, **body}, headers=headers(),
                         timeout=60)


def calls(svc) -> int:
    return len(svc.fake.requests_to(CHAT_PATH))


def notes_count(svc) -> int:
    return rows(svc, "SELECT count(*) FROM memory_notes")[0][0]


def test_one_call_and_evidence_in_source_ref(svc):
    script(svc, json.dumps({"notes": [cand("Fact: deploys happen on Thursdays.", "we deploy on Thursdays")]}))
    before = calls(svc)
    r = post(svc, [{"role": "user", "content": "Remember that we deploy on Thursdays.", "msg_id": "m-1",
                    "ts": "2026-11-21T10:00:00Z"}])
    assert r.status_code == 200, r.text
    assert calls(svc) == before + 1
    res = r.json()["results"][0]
    assert res["op"] == "ADD" and res["reason"] == "test"
    (source_ref,) = rows(svc, "SELECT source_ref FROM memory_notes WHERE note_id = %s", (res["note_id"],))[0]
    assert source_ref["locator"]["evidence"] == [
        {"message_index": 0, "quote": "we deploy on Thursdays", "msg_id": "m-1", "ts": "2026-11-21T10:00:00Z"}]
    assert r.json()["extracted"]["notes"][0]["text"] == "Fact: deploys happen on Thursdays."


@pytest.mark.parametrize(
    "messages,status",
    [
        (
            [
                {
                    "role": "user",
                    "content": "Помни, что мы деплоим по четвергам и больше никогда не деплоим по пятницам.",
                }
            ],
            422,
        ),
        ([{"role": "robot", "content": "hello"}], 400),
        ([{"role": "user", "content": "hello", "write_policy": {"exclusions": [{"start": 3, "end": 99}]}}], 400),
        ([], 400),
    ],
    ids=["non-english", "bad-role", "bad-span", "no-messages"],
)
def test_invalid_requests_never_call_the_extractor(svc, messages, status):
    before = calls(svc)
    r = post(svc, messages)
    assert r.status_code == status, r.text
    assert calls(svc) == before


def test_bad_span_error_has_its_jsonpath(svc):
    r = post(svc, [{"role": "user", "content": "hello", "write_policy": {"exclusions": [{"start": 3, "end": 99}]}}])
    assert r.json()["fields"] == ["$.messages[0].write_policy.exclusions[0].end"]


def test_quote_not_in_message_is_rejected_and_nothing_stored(svc):
    script(svc, json.dumps({"notes": [cand("Fact: the CI uses GitHub.", "the CI uses GitLab")]}))
    before = notes_count(svc)
    res = post(svc, [{"role": "user", "content": "Note that the CI uses GitHub."}]).json()["results"][0]
    assert res["op"] == "REJECTED" and res["reason_code"] == "REJECT_EVIDENCE_MISMATCH"
    assert notes_count(svc) == before


def test_write_policy_exclusion_and_mismatch(svc):
    start = MESSAGE.encode().index(SECRET_BIT.encode())
    policy = {"exclusions": [{"start": start, "end": start + len(SECRET_BIT.encode())}]}
    script(
        svc,
        json.dumps(
            {
                "notes": [
                    cand("Fact: backups run nightly at two.", "backups run nightly at two"),
                    cand("Fact: the vault code is known.", "ZEBRA-42"),
                ]
            }
        ),
    )
    r = post(svc, [{"role": "user", "content": MESSAGE, "write_policy": policy}])
    assert r.status_code == 200, r.text
    ok, mismatch = r.json()["results"]
    assert ok["op"] == "ADD"
    assert mismatch["op"] == "REJECTED" and mismatch["reason_code"] == "REJECT_WRITE_POLICY_MISMATCH"
    assert ok["write_policy_audits"] == [
        {"exclusions": [{"start": start, "end": start + len(SECRET_BIT.encode())}], "redactions": []}
    ]
    # the extractor only ever saw the transformed message, and the excluded text is stored nowhere
    assert "ZEBRA" not in json.dumps(svc.fake.requests_to(CHAT_PATH)[-1].json)
    for table, column in (
        ("memory_notes", "text"),
        ("memory_notes", "source_ref::text"),
        ("memory_note_versions", "coalesce(new_snapshot::text, '')"),
        ("memory_ingest_decisions", "details::text"),
        ("search_traces", "query"),
        ("search_trace_items", "explain::text"),
        ("indexing_outbox", "coalesce(last_error, '')"),
    ):
        assert rows(svc, f"SELECT count(*) FROM {table} WHERE {column} LIKE '%%ZEBRA%%'") == [(0,)], table


def test_more_notes_than_the_limit(svc):
    limit = svc.cfg.memory.max_notes_per_add_event
    content = (
        "Remember that alpha is red. Remember that beta is blue. Remember that gamma is green. "
        "Remember that delta is gold."
    )
    colours = [("alpha", "red"), ("beta", "blue"), ("gamma", "green"), ("delta", "gold")]
    script(svc, json.dumps({"notes": [cand(f"Fact: {n} is {c}.", f"{n} is {c}") for n, c in colours]}))
    before = notes_count(svc)
    results = post(svc, [{"role": "user", "content": content}]).json()["results"]
    assert [r["op"] for r in results[:limit]] == ["ADD"] * limit
    assert all(r["op"] == "REJECTED" and r["reason_code"] == "REJECT_MAX_NOTES" for r in results[limit:])
    assert notes_count(svc) == before + limit


def test_invalid_json_twice_then_valid_succeeds(svc):
    script(
        svc, "not json", '{"notes": 5}', json.dumps({"notes": [cand("Fact: lunch is at noon.", "lunch is at noon")]})
    )
    before = calls(svc)
    r = post(svc, [{"role": "user", "content": "FYI lunch is at noon."}])
    assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD"
    assert calls(svc) == before + 3


def test_invalid_json_three_times_is_a_clear_error(svc):
    script(svc, "nope", "still nope", "never json")
    before_notes, before_decisions = notes_count(svc), rows(svc, "SELECT count(*) FROM memory_ingest_decisions")[0][0]
    r = post(svc, [{"role": "user", "content": "Remember that the printer is on floor three."}])
    assert r.status_code == 502 and r.json()["error_code"] == "EXTRACTOR_FAILED"
    assert notes_count(svc) == before_notes
    assert rows(svc, "SELECT count(*) FROM memory_ingest_decisions")[0][0] == before_decisions


def test_dry_run_stores_nothing(svc):
    script(svc, json.dumps({"notes": [cand("Fact: the wiki moved to Confluence.", "the wiki moved to Confluence")]}))

    def counts():
        return [
            rows(svc, f"SELECT count(*) FROM {t}")[0][0]
            for t in ("memory_notes", "memory_note_versions", "memory_ingest_decisions", "indexing_outbox")
        ]

    before = counts()
    r = post(svc, [{"role": "user", "content": "Note that the wiki moved to Confluence."}], dry_run=True)
    assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD"
    assert counts() == before


def test_scope_suggestion_used_when_no_scope_given(svc):
    script(
        svc,
        json.dumps(
            {
                "notes": [
                    cand(
                        "Decision: the team uses trunk-based development.",
                        "we decided to use trunk-based development",
                        type="decision",
                        scope="project_shared",
                    )
                ]
            }
        ),
    )
    res = post(svc, [{"role": "user", "content": "OK, we decided to use trunk-based development."}]).json()["results"][
        0
    ]
    assert rows(svc, "SELECT scope FROM memory_notes WHERE note_id = %s", (res["note_id"],)) == [("project_shared",)]


def _with_relation(text, quote, relation):
    return {
        **cand(text, quote),
        "structured": {"summary": None, "facts": None, "concepts": None, "entities": None, "relations": [relation]},
    }


def _graph_rows(svc, note_id):
    return rows(
        svc,
        "SELECT f.predicate, f.object_value FROM graph_facts f JOIN graph_fact_evidence e USING (fact_id) "
        "WHERE e.note_id = %s",
        (note_id,),
    )


def test_extractor_relations_become_facts_with_the_note_as_evidence(svc):
    relation = {
        "subject": {"canonical": "Nora", "kind": "person", "aliases": None},
        "predicate": "prefers",
        "object": {"entity": None, "value": "trains"},
        "valid_from": None,
        "valid_to": "2020-01-01T00:00:00",
    }
    script(
        svc,
        json.dumps(
            {
                "notes": [
                    _with_relation("Fact: Nora prefers trains.", "Nora prefers trains", {**relation, "valid_to": None})
                ]
            }
        ),
    )
    r = post(svc, [{"role": "user", "content": "Nora prefers trains over planes."}])
    assert r.status_code == 200, r.text
    note_id = r.json()["results"][0]["note_id"]
    assert _graph_rows(svc, note_id) == [("prefers", "trains")]
    # an extractor relation whose window ends before it starts is an invalid candidate, never a 500
    script(
        svc,
        json.dumps(
            {
                "notes": [
                    _with_relation(
                        "Fact: Nora prefers buses.",
                        "Nora prefers buses",
                        {**relation, "valid_from": "2021-01-01T00:00:00"},
                    )
                ]
            }
        ),
    )
    bad = post(svc, [{"role": "user", "content": "Nora prefers buses these days."}])
    assert bad.status_code == 200 and bad.json()["results"][0]["reason_code"] == "REJECT_INVALID_CANDIDATE"


def test_dry_run_writes_no_graph_row(svc):
    before = rows(svc, "SELECT count(*) FROM graph_facts")[0][0]
    relation = {"subject": {"canonical": "Omar"}, "predicate": "drives", "object": {"value": "a tram"}}
    script(svc, json.dumps({"notes": [_with_relation("Fact: Omar drives a tram.", "Omar drives a tram", relation)]}))
    r = post(svc, [{"role": "user", "content": "Omar drives a tram for a living."}], dry_run=True)
    assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD", r.text
    assert rows(svc, "SELECT count(*) FROM graph_facts")[0][0] == before


def test_scope_outside_allowed_is_rejected_per_note_like_add_note(svc):
    script(svc, json.dumps({"notes": [cand("Fact: the office closes at six.", "the office closes at six")]}))
    before = notes_count(svc)
    r = post(svc, [{"role": "user", "content": "FYI the office closes at six."}], scope="galaxy_shared")
    assert r.status_code == 200, r.text
    (res,) = r.json()["results"]
    assert (res["op"], res["reason_code"], res["field_path"]) == ("REJECTED", "REJECT_SCOPE_DENIED", "$.scope")
    assert notes_count(svc) == before
    note_r = requests.post(
        svc.public + "/v2/notes/ingest",
        headers=headers(),
        timeout=60,
        json={
            "scope": "galaxy_shared",
            "notes": [
                {"type": "fact", "text": "Fact: the office closes at six.", "importance": 0.5, "confidence": 0.9}
            ],
        },
    )
    assert note_r.json()["results"][0]["reason_code"] == res["reason_code"]  # the same code on both write paths


def test_the_profile_used_is_echoed_builtin_included(svc):
    script(svc, json.dumps({"notes": []}), json.dumps({"notes": []}))
    r = post(svc, [{"role": "user", "content": "Nothing to remember here."}])
    assert r.status_code == 200 and r.json()["ingestion_profile"] == {"id": "builtin", "version": 1}
    r = post(svc, [{"role": "user", "content": "Nothing to remember here."}], ingestion_profile={"id": "builtin"})
    assert r.json()["ingestion_profile"] == {"id": "builtin", "version": 1}
    missing = post(svc, [{"role": "user", "content": "Nothing."}], ingestion_profile={"id": "builtin", "version": 2})
    assert missing.status_code == 404 and missing.json()["fields"] == ["$.ingestion_profile.version"]
    reserved = requests.post(
        svc.admin + "/v2/admin/events/ingestion-profiles",
        headers=headers(),
        timeout=30,
        json={"profile_id": "builtin", "profile": {"temperature": 0.1}},
    )
    assert reserved.status_code == 400 and reserved.json()["fields"] == ["$.profile_id"]
