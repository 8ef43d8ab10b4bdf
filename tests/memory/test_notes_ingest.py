"""add_note over real HTTP on an isolated stack: WriteGate, UpdateResolver, policy, decision rows, and never a
call to the LLM extractor (spec v2 section 19 A, B, F). One transaction per request and one embedding per
note: tests/memory/test_notes_ingest_once.py."""

from __future__ import annotations

import pytest
import requests

from tests.notes_helpers import headers, ingest, llm_calls, note, rows, wait_indexed

DETAIL_KEYS = {
    "similarity_best", "key_match", "matched_dup", "dup_sim_threshold", "update_sim_threshold", "confidence",
    "importance", "structured_present", "graph_present", "policy_rule", "min_confidence", "min_importance",
}


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["memory"]["policy"]["min_importance"] = 0.3
    s = isolated_services_module("ingest", mutate)
    s.start_api()
    s.start_worker()
    yield s
    assert llm_calls(s) == 0, "add_note paths must never call the extractor or reranker"


def test_add_writes_note_version_decision_and_outbox(svc):
    r = ingest(svc, [note("Fact: the build server runs Debian 12.")])
    assert r.status_code == 200, r.text
    (res,) = r.json()["results"]
    assert res["op"] == "ADD" and res["policy_decision"] == "remember" and res["reason_code"] is None
    nid = res["note_id"]
    assert rows(svc, "SELECT status, embedding_version, type FROM memory_notes WHERE note_id = %s", (nid,)) == [
        ("active", svc.cfg.embedding_version, "fact")]
    assert rows(svc, "SELECT op FROM memory_note_versions WHERE note_id = %s", (nid,)) == [("ADD",)]
    assert rows(svc, "SELECT op FROM indexing_outbox WHERE note_id = %s", (nid,)) == [("UPSERT",)]
    (details,) = rows(svc, "SELECT details FROM memory_ingest_decisions WHERE note_id = %s", (nid,))[0]
    assert set(details) >= DETAIL_KEYS
    wait_indexed(svc, nid)


def test_same_payload_twice_is_none(svc):
    payload = [note("Fact: the staging database is called atlas.")]
    first = ingest(svc, payload).json()["results"][0]
    second = ingest(svc, payload).json()["results"][0]
    assert first["op"] == "ADD"
    assert second["op"] == "NONE" and second["policy_decision"] == "ignore"
    assert second["reason_code"] == "IGNORE_DUPLICATE" and second["note_id"] == first["note_id"]
    assert rows(svc, "SELECT count(*) FROM memory_notes WHERE text = %s", (payload[0]["text"],)) == [(1,)]


def _writes_of(svc, nid: str) -> tuple:
    return (rows(svc, "SELECT count(*) FROM memory_note_versions WHERE note_id = %s", (nid,))[0][0],
            rows(svc, "SELECT count(*) FROM indexing_outbox WHERE note_id = %s", (nid,))[0][0],
            rows(svc, "SELECT updated_at FROM memory_notes WHERE note_id = %s", (nid,))[0][0])


@pytest.mark.parametrize("ttl_days", [None, 7], ids=["type-ttl", "explicit-ttl"])
def test_keyed_replay_is_none_with_no_version_or_outbox_row(svc, ttl_days):
    extra = {"ttl_days": ttl_days} if ttl_days else {}
    payload = [
        note(
            "Preference: the user reviews code in the morning.",
            type="preference",
            key=f"review_time_{ttl_days}",
            source_ref={"turn": 3},
            **extra,
        )
    ]
    first = ingest(svc, payload).json()["results"][0]
    assert first["op"] == "ADD"
    before = _writes_of(svc, first["note_id"])
    second = ingest(svc, payload).json()["results"][0]
    assert (second["op"], second["note_id"], second["reason_code"]) == ("NONE", first["note_id"], "IGNORE_DUPLICATE")
    assert _writes_of(svc, first["note_id"]) == before  # no version row, no outbox job, updated_at untouched
    (details,) = rows(
        svc, "SELECT details FROM memory_ingest_decisions WHERE note_id = %s AND note_op = 'NONE'", (first["note_id"],)
    )[-1]
    assert details["key_match"] is True and details["matched_dup"] is True


@pytest.mark.parametrize(
    "change",
    [{"importance": 0.9}, {"confidence": 0.6}, {"source_ref": {"turn": 4}}, {"ttl_days": 30}],
    ids=["importance", "confidence", "source_ref", "ttl_days"],
)
def test_keyed_payload_with_any_field_changed_updates(svc, change):
    key = "deploy_day_" + next(iter(change))
    base = note("Plan: deploy on Thursday.", type="plan", key=key, source_ref={"turn": 3})
    nid = ingest(svc, [base]).json()["results"][0]["note_id"]
    res = ingest(svc, [{**base, **change}]).json()["results"][0]
    assert (res["op"], res["note_id"]) == ("UPDATE", nid)
    assert rows(svc, "SELECT count(*) FROM memory_note_versions WHERE note_id = %s", (nid,)) == [(2,)]


def test_duplicate_found_by_pooled_vector_after_indexing(svc):
    first = ingest(svc, [note("Fact: the release train leaves every second Tuesday.")]).json()["results"][0]
    wait_indexed(svc, first["note_id"])
    again = ingest(svc, [note("Fact: the release train leaves every second Tuesday!")]).json()["results"][0]
    assert again["op"] == "NONE" and again["reason_code"] == "IGNORE_DUPLICATE"
    (details,) = rows(
        svc, "SELECT details FROM memory_ingest_decisions WHERE note_id = %s AND note_op = 'NONE'", (first["note_id"],)
    )[-1]
    assert details["similarity_best"] >= svc.cfg.memory.dup_sim_threshold


def test_results_without_write_policy_carry_no_audit(svc):
    res = ingest(svc, [note("Fact: the wiki lives on the intranet.")]).json()["results"][0]
    assert res["op"] == "ADD" and "write_policy_audits" not in res


def test_key_match_updates_in_place(svc):
    first = ingest(svc, [note("Preference: the user likes tabs.", type="preference", key="indent_style")]).json()
    nid = first["results"][0]["note_id"]
    second = ingest(svc, [note("Preference: the user likes four spaces.", type="preference", key="indent_style")])
    res = second.json()["results"][0]
    assert res["op"] == "UPDATE" and res["note_id"] == nid and res["policy_decision"] == "update"
    assert rows(svc, "SELECT text FROM memory_notes WHERE note_id = %s", (nid,)) == [
        ("Preference: the user likes four spaces.",)
    ]
    ops = rows(
        svc, "SELECT op, prev_snapshot->>'text' FROM memory_note_versions WHERE note_id = %s ORDER BY ts", (nid,)
    )
    assert ops == [("ADD", None), ("UPDATE", "Preference: the user likes tabs.")]
    assert rows(svc, "SELECT count(*) FROM indexing_outbox WHERE note_id = %s AND op = 'UPSERT'", (nid,)) == [(2,)]


@pytest.mark.parametrize(
    "bad,reason,path",
    [
        (note("   "), "REJECT_EMPTY", "$.notes[0].text"),
        (note("x" * 241), "REJECT_TOO_LONG", "$.notes[0].text"),
        (note("Fact: fine.", type="opinion"), "REJECT_INVALID_TYPE", "$.notes[0].type"),
        (note("Fact: the deploy key is sk-abcdefghijklmnopqrstuvwxyz123456."), "REJECT_SECRET", "$.notes[0].text"),
        (note("Fact: reach Dana at dana.smith@example.com for access."), "REJECT_SECRET", "$.notes[0].text"),
    ],
    ids=["empty", "too-long", "invalid-type", "api-key", "email"],
)
def test_write_gate_rejections_are_audited_not_stored(svc, bad, reason, path):
    before = rows(svc, "SELECT count(*) FROM memory_notes")[0][0]
    res = ingest(svc, [bad]).json()["results"][0]
    assert res == {
        "note_id": None,
        "op": "REJECTED",
        "policy_decision": "reject",
        "reason_code": reason,
        "field_path": path,
    }
    assert rows(svc, "SELECT count(*) FROM memory_notes")[0][0] == before
    assert rows(svc, "SELECT count(*) FROM memory_ingest_decisions WHERE reason_code = %s", (reason,))[0][0] >= 1


def test_scope_not_allowed_is_rejected(svc):
    res = ingest(svc, [note("Fact: scoped.")], scope="galaxy_shared").json()["results"][0]
    assert res["op"] == "REJECTED" and res["reason_code"] == "REJECT_SCOPE_DENIED"


def test_policy_threshold_downgrades_to_ignore(svc):
    before = rows(svc, "SELECT count(*) FROM memory_notes")[0][0]
    res = ingest(svc, [note("Fact: low importance detail about the coffee machine.", importance=0.1)]).json()[
        "results"
    ][0]
    assert (
        res["op"] == "NONE" and res["policy_decision"] == "ignore" and res["reason_code"] == "IGNORE_POLICY_THRESHOLD"
    )
    assert rows(svc, "SELECT count(*) FROM memory_notes")[0][0] == before
    (details,) = rows(svc, "SELECT details FROM memory_ingest_decisions WHERE reason_code = 'IGNORE_POLICY_THRESHOLD'")[
        0
    ]
    assert details["policy_rule"] == "min_importance" and details["min_importance"] == 0.3


def test_per_note_results_in_order_with_one_bad_note(svc):
    r = ingest(svc, [note("Fact: first good note about rivers."), note(""), note("Fact: third note about lakes.")])
    ops = [x["op"] for x in r.json()["results"]]
    assert ops == ["ADD", "REJECTED", "ADD"]


def test_ttl_rules(svc):
    res = ingest(
        svc,
        [
            note("Fact: the office wifi is on the third floor."),
            note("Plan: migrate the CI runners next month.", type="plan", ttl_days=3),
            note("Preference: the user reads release notes on Fridays.", type="preference"),
        ],
    ).json()["results"]
    got = rows(
        svc,
        "SELECT note_id::text, round(extract(epoch FROM expires_at - created_at) / 86400) FROM memory_notes "
        "WHERE note_id = ANY(%s::uuid[])",
        ([r["note_id"] for r in res],),
    )
    by_id = dict(got)
    assert by_id[res[0]["note_id"]] == 180 and by_id[res[1]["note_id"]] == 3 and by_id[res[2]["note_id"]] is None


def test_structured_fields_stored_and_relations_become_graph_facts(svc):
    structured = {
        "summary": "Deploys go through the blue pipeline.",
        "facts": ["The blue pipeline deploys", "Deploys need approval"],
        "concepts": ["deployment"],
        "relations": [
            {
                "subject": {"canonical": "blue pipeline"},
                "predicate": "deploys",
                "object": {"entity": None, "value": "production"},
            }
        ],
    }
    res = ingest(svc, [note("Decision: deploys go through the blue pipeline.", type="decision", structured=structured)])
    result = res.json()["results"][0]
    assert result["op"] == "ADD" and "warnings" not in result
    nid = result["note_id"]
    fields = rows(
        svc,
        "SELECT field_kind, item_index, text FROM memory_note_fields WHERE note_id = %s "
        "ORDER BY field_kind, item_index",
        (nid,),
    )
    assert fields == [
        ("concept", 0, "deployment"),
        ("fact", 0, "The blue pipeline deploys"),
        ("fact", 1, "Deploys need approval"),
        ("summary", 0, "Deploys go through the blue pipeline."),
    ]
    (details,) = rows(svc, "SELECT details FROM memory_ingest_decisions WHERE note_id = %s", (nid,))[0]
    assert details["graph_present"] is True
    assert rows(
        svc,
        "SELECT f.predicate, f.object_value, e.canonical FROM graph_facts f JOIN graph_fact_evidence v "
        "USING (fact_id) JOIN graph_entities e ON e.entity_id = f.subject_entity_id "
        "WHERE v.note_id = %s",
        (nid,),
    ) == [("deploys", "production", "blue pipeline")]
    got = requests.get(f"{svc.public}/v2/notes/{nid}", headers=headers(), timeout=10).json()
    assert got["structured"]["facts"] == ["The blue pipeline deploys", "Deploys need approval"]


@pytest.mark.parametrize(
    "body,paths",
    [
        (
            {"scope": "agent_private", "notes": [{"type": "fact", "text": "x", "confidence": 0.5}]},
            ["$.notes[0].importance"],
        ),
        ({"scope": "agent_private", "notes": [note("ok", importance=1.5)]}, ["$.notes[0].importance"]),
        ({"scope": "agent_private", "notes": [note("ok", colour="red")]}, ["$.notes[0].colour"]),
        (
            {"scope": "agent_private", "notes": [note("ok", write_policy={"exclusions": [{"start": 0, "end": 9}]})]},
            ["$.notes[0].write_policy.exclusions[0].end"],
        ),
        ({"scope": "agent_private", "notes": []}, ["$.notes"]),
        ({"notes": [note("ok")]}, ["$.scope"]),
        (
            {
                "scope": "agent_private",
                "notes": [
                    note(
                        "ok",
                        structured={
                            "relations": [
                                {
                                    "subject": {"canonical": "a"},
                                    "predicate": "p",
                                    "object": {"entity": {"canonical": "b"}, "value": "c"},
                                }
                            ]
                        },
                    )
                ],
            },
            ["$.notes[0].structured.relations[0].object"],
        ),
    ],
    ids=[
        "missing-importance",
        "importance-range",
        "unknown-field",
        "write-policy",
        "no-notes",
        "no-scope",
        "object-both",
    ],
)
def test_invalid_request_400_with_jsonpath(svc, body, paths):
    r = requests.post(svc.public + "/v2/notes/ingest", json=body, headers=headers(), timeout=10)
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == "INVALID_REQUEST" and r.json()["fields"] == paths


def test_malformed_json_is_400(svc):
    r = requests.post(
        svc.public + "/v2/notes/ingest",
        data="{not json",
        headers={**headers(), "Content-Type": "application/json"},
        timeout=10,
    )
    assert r.status_code == 400 and r.json()["error_code"] == "INVALID_REQUEST"


@pytest.mark.parametrize(
    "notes,paths",
    [
        ([note("事实：构建服务器运行 Debian。")], ["$.notes[0].text"]),
        ([note("Fact: ok."), note("Факт: сервер сборки работает на Debian.")], ["$.notes[1].text"]),
        ([note("حقيقة: الخادم يعمل.")], ["$.notes[0].text"]),
        ([note("Fact: zero\u200bwidth.")], ["$.notes[0].text"]),
        ([note("Fact: bell\x07 char.")], ["$.notes[0].text"]),
        ([note("Fact: ok.", key="ключ")], ["$.notes[0].key"]),
        ([note("Fact: ok.", source_ref={"title": "Заголовок документа"})], ["$.notes[0].source_ref.title"]),
        (
            [note("Le serveur de compilation utilise Debian depuis le mois dernier et nous en sommes très contents.")],
            ["$.notes[0].text"],
        ),
    ],
    ids=["cjk", "cyrillic-second", "arabic", "zero-width", "control", "key", "source-ref-title", "french"],
)
def test_non_english_is_422_and_stores_nothing(svc, notes, paths):
    before = rows(svc, "SELECT count(*) FROM memory_notes")[0][0]
    r = ingest(svc, notes)
    assert r.status_code == 422, r.text
    assert r.json()["error_code"] == "NON_ENGLISH_INPUT" and r.json()["fields"] == paths
    assert rows(svc, "SELECT count(*) FROM memory_notes")[0][0] == before


def test_english_with_names_code_urls_accepted(svc):
    r = ingest(
        svc, [note("Fact: José Müller fixed `retry_backoff()` in https://git.example.com/elf/pull/42 on 2026-11-02.")]
    )
    assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD"


def test_write_policy_applies_before_the_gates(svc):
    text = "Fact: the on-call phone is +1 415 555 0100 and rotates weekly."
    start = text.index("the on-call phone is +1 415 555 0100 and ")
    end = start + len("the on-call phone is +1 415 555 0100 and ")
    res = ingest(svc, [note(text, write_policy={"exclusions": [{"start": start, "end": end}]})]).json()["results"][0]
    assert res["op"] == "ADD", res  # the phone number is gone before the secret gate looks at the text
    assert rows(svc, "SELECT text FROM memory_notes WHERE note_id = %s", (res["note_id"],)) == [
        ("Fact: rotates weekly.",)
    ]
    (details,) = rows(svc, "SELECT details FROM memory_ingest_decisions WHERE note_id = %s", (res["note_id"],))[0]
    assert details["write_policy_audits"] == {"exclusions": [{"start": start, "end": end}], "redactions": []}
    assert res["write_policy_audits"] == details["write_policy_audits"]  # the result says what the policy did
    assert rows(svc, "SELECT count(*) FROM memory_note_versions WHERE new_snapshot::text LIKE '%%555 0100%%'") == [(0,)]
