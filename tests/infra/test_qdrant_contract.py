"""Every request the service sends to Qdrant is one the pinned qdrant-client (1.20.0) could send: its method and
path, its query parameters and, field for field, its body model (tests/qdrant_contract.py).

The hot path writes its batch query with its own HTTP code (elf_infra.index.points_query), and everything else
goes through qdrant-client, so the traffic is recorded where it leaves the service: a real elf-api and elf-worker
talk to the test stack's Qdrant through a recording proxy (tests/recording_proxy.py) while they ensure the
collections and their payload indexes at start-up, index notes (upsert, then delete of the replaced chunks),
search (the batch of dense, BM25 with its IDF corpus, and the dated leg's observed_ts range, under the scope
filter), change and delete notes, index, search and delete a document, rebuild after a payload index went
missing (create index, count), and meet a dropped collection. Then every recorded request is checked, and a
misspelling planted in a recorded body must be refused.

The service sends nothing else today (no set_payload, scroll or retrieve): a request of a new kind is checked the
same way, against its own operation's model, and OPERATIONS below is what the scenario must keep reaching.
"""

from __future__ import annotations

import copy
import json
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
import requests

from tests.notes_helpers import headers, ingest, note, rows, wait_indexed
from tests.qdrant_contract import PINNED, installed_is_pinned, operation_for, request_violations
from tests.recording_proxy import Exchange, RecordingProxy

DATED = "What happened to the billing ledger on 7 May 2023?"
# What the scenario must have sent at least once, so that the check covers it (an operation name of the client)
OPERATIONS = {"root", "collection_exists", "create_collection", "get_collection", "create_field_index",
              "upsert_points", "delete_points", "query_batch_points", "query_points", "count_points"}


@dataclass
class Traffic:
    exchanges: list[Exchange]
    failure: str | None  # the scenario step that failed, with its traceback


@pytest.fixture(scope="module")
def proxy(test_stack):
    p = RecordingProxy(test_stack.storage.qdrant.url).start()
    yield p
    p.stop()


def _outbox_done(svc, table: str, column: str, value: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while rows(svc, f"SELECT count(*) FROM {table} WHERE {column} = %s AND status <> 'DONE'", (value,)) != [(0,)]:
        assert time.monotonic() < deadline, f"{table} rows of {value} not DONE within {timeout}s"
        time.sleep(0.2)


def _search(svc, query: str, **hdr) -> list[str]:
    r = requests.post(svc.public + "/v2/searches", json={"query": query, "mode": "quick_find", "top_k": 5},
                      headers={**headers(), "X-ELF-Read-Profile": "private_plus_project", **hdr}, timeout=60)
    assert r.status_code == 200, r.text
    return [i["note_id"] for i in r.json()["items"]]


def _scenario(svc, upstream: str) -> None:
    svc.start_api()  # start-up ensures the notes collection: exists, create, get, its payload indexes
    svc.start_worker()
    notes = ingest(svc, [note("Fact: the billing ledger closes on Fridays.", observed_at="2023-05-07T10:00:00Z"),
                         note("Fact: the backup generator is tested monthly.", key="generator_test")])
    assert notes.status_code == 200, notes.text
    dated, keyed = (r["note_id"] for r in notes.json()["results"])
    shared = ingest(svc, [note("Decision: the team deploys on Wednesdays.", type="decision")], scope="project_shared")
    assert shared.status_code == 200, shared.text
    for nid in (dated, keyed, shared.json()["results"][0]["note_id"]):
        wait_indexed(svc, nid)

    assert dated in _search(svc, DATED)  # dense, BM25 and the dated leg in one batch
    _search(svc, "the and of")  # stopwords only: no BM25 leg
    _search(svc, "when do we deploy", **{"X-ELF-Read-Profile": "all_scopes"})  # three scopes in the filter

    r = requests.patch(f"{svc.public}/v2/notes/{keyed}", json={"text": "Fact: the backup generator is tested weekly."},
                       headers=headers(), timeout=30)
    assert r.status_code == 200 and r.json()["op"] == "UPDATE", r.text
    wait_indexed(svc, keyed)
    r = requests.delete(f"{svc.public}/v2/notes/{dated}", headers=headers(), timeout=30)
    assert r.status_code == 200, r.text
    _outbox_done(svc, "indexing_outbox", "note_id", dated)

    doc = requests.post(svc.public + "/v2/docs", headers=headers(), timeout=60, json={
        "scope": "agent_private", "title": "Runbook",
        "content": "The backup generator sits behind the loading dock. " * 40})
    assert doc.status_code == 200, doc.text
    doc_id = doc.json()["doc_id"]
    _outbox_done(svc, "doc_indexing_outbox", "doc_id", doc_id)
    hits = requests.post(svc.public + "/v2/docs/search/l0", json={"query": "where is the backup generator"},
                         headers=headers(), timeout=60)
    assert hits.status_code == 200 and hits.json()["items"], hits.text
    assert requests.delete(f"{svc.public}/v2/docs/{doc_id}", headers=headers(), timeout=30).status_code == 200
    _outbox_done(svc, "doc_indexing_outbox", "doc_id", doc_id)

    # A payload index missing from an existing collection: the rebuild's ensure creates it and counts the points
    # that lack the field. (The index is dropped on Qdrant directly: that request is not the service's.)
    collection = svc.cfg.storage.qdrant.collection
    dropped = requests.delete(f"{upstream}/collections/{collection}/index/key", timeout=30)
    assert dropped.status_code == 200, dropped.text
    r = requests.post(svc.admin + "/v2/admin/qdrant/rebuild", timeout=120)
    assert r.status_code == 200 and r.json()["error_count"] == 0, r.text

    # An operator drops the collection: the next search meets the 404, ensures it again and retries.
    assert requests.delete(f"{upstream}/collections/{collection}", timeout=30).status_code == 200
    _search(svc, "when do we deploy")


@pytest.fixture(scope="module")
def traffic(proxy, isolated_services_module, test_stack) -> Traffic:
    def via_proxy(data: dict) -> None:
        data["storage"]["qdrant"]["url"] = proxy.url
        data["search"]["expansion"]["mode"] = "off"

    svc = isolated_services_module("qdrant_contract", via_proxy)
    failure = None
    try:
        _scenario(svc, test_stack.storage.qdrant.url)
    except Exception:  # the contract is still checked on what was sent (a refused body may be why it failed)
        failure = traceback.format_exc()
    svc.stop()  # nothing more is sent; the factory's clean-up then deletes the collections through the proxy
    return Traffic(proxy.recorded(), failure)


def _sent(traffic: Traffic, operation: str) -> list[dict]:
    return [json.loads(x.body) for x in traffic.exchanges
            if (op := operation_for(x.method, urlsplit(x.target).path)) and op.name == operation and x.body]


def _short(value):
    if isinstance(value, list) and len(value) > 4 and all(isinstance(v, int | float) for v in value):
        return [*value[:2], f"... {len(value)} numbers"]
    if isinstance(value, list):
        return [_short(v) for v in value]
    return {k: _short(v) for k, v in value.items()} if isinstance(value, dict) else value


def _preview(body: bytes) -> str:
    """The body with its vectors cut short."""
    try:
        return json.dumps(_short(json.loads(body)))[:600]
    except ValueError:
        return repr(body[:300])


def test_the_installed_client_is_the_pinned_one():
    assert installed_is_pinned(), f"the contract is {PINNED}'s; pyproject pins it"


def test_every_request_sent_to_qdrant_is_the_pinned_clients(traffic):
    assert traffic.exchanges, "nothing reached Qdrant through the proxy"
    bad = {}
    for x in traffic.exchanges:
        problems = request_violations(x.method, x.target, x.body)
        if x.body and problems == [] and (x.content_type or "").split(";")[0] != "application/json":
            problems = [f"a JSON body sent as {x.content_type!r}"]
        for p in problems:
            bad.setdefault(p, f"{x.method} {x.target} (Qdrant answered {x.status}): {_preview(x.body)}")
    assert not bad, f"{len(bad)} requests outside {PINNED}'s REST API:\n" + "\n".join(
        f"- {problem}\n  {where}" for problem, where in bad.items())


def test_the_scenario_sent_every_kind_of_request(traffic):
    if traffic.failure is not None:
        pytest.fail(f"the scenario failed:\n{traffic.failure}", pytrace=False)
    sent = Counter(op.name for x in traffic.exchanges if (op := operation_for(x.method, urlsplit(x.target).path)))
    print(f"\nrequests recorded: {dict(sorted(sent.items()))}")
    seen = set(sent)
    assert seen >= OPERATIONS, f"never sent: {sorted(OPERATIONS - seen)}"
    assert not [x for x in traffic.exchanges if x.status >= 500], "Qdrant failed a request"

    batches = [b["searches"] for b in _sent(traffic, "query_batch_points")]
    legs = [s for b in batches for s in b]
    assert any(len(b) == 3 for b in batches) and any(len(b) == 1 for b in batches)  # dated leg; stopwords only
    assert any(s["using"] == "bm25" and s["params"]["idf"]["corpus"]["must"] for s in legs)
    dated = [c for s in legs for f in s["filter"]["must"] if isinstance(f, dict) and "should" in f
             for c in f["should"] if c.get("key") == "observed_ts"]
    assert dated and all(set(c["range"]) == {"gte", "lte"} for c in dated)
    # all_scopes: one match of the caller's three read tags, and nothing else (notes_collection.read_filter)
    tagged = [s["filter"]["must"] for s in legs if any(c.get("key") == "read_tag" for c in s["filter"]["must"])]
    assert any(len(must) == 1 and len(must[0]["match"]["any"]) == 3
               and all(isinstance(t, int) for t in must[0]["match"]["any"]) for must in tagged), tagged
    indexes = [(b["field_name"], b["field_schema"]) for b in _sent(traffic, "create_field_index")]
    kind = lambda s: s if isinstance(s, str) else s["type"]  # noqa: E731 - a type name or a params object
    assert {kind(s) for _, s in indexes} == {"keyword", "integer"}
    # the notes' keyword indexes (notes_collection.keyword_index): tenant_id marked is_tenant, keeping its HNSW
    # links; the other fields without links of their own
    assert ("tenant_id", {"type": "keyword", "is_tenant": True}) in indexes
    assert ("scope", {"type": "keyword", "enable_hnsw": False}) in indexes
    # the read tag: an integer matched exactly, so a lookup structure and no range one (read_tag_index)
    assert ("read_tag", {"type": "integer", "lookup": True, "range": False, "enable_hnsw": False}) in indexes
    deletes = [b["filter"] for b in _sent(traffic, "delete_points")]
    assert any("must_not" in f for f in deletes) and any("should" in f for f in deletes)
    points = [p for b in _sent(traffic, "upsert_points") for p in b["points"]]
    assert {"dense", "bm25"} <= set(points[0]["vector"]) and any("observed_ts" in p["payload"] for p in points)
    assert any("prefetch" in b for b in _sent(traffic, "query_points"))  # the documents' RRF query


def _one(traffic: Traffic, operation: str, where) -> tuple[Exchange, dict]:
    for x in traffic.exchanges:
        op = operation_for(x.method, urlsplit(x.target).path)
        if op and op.name == operation and x.body and where(json.loads(x.body)):
            return x, json.loads(x.body)
    raise AssertionError(f"no recorded {operation} to plant a misspelling in")


def _refused(x: Exchange, body: dict, misspelt: str) -> None:
    problems = request_violations(x.method, x.target, json.dumps(body).encode())
    assert problems and misspelt in problems[0], problems


def test_a_misspelling_planted_in_a_recorded_body_is_refused(traffic):
    x, batch = _one(traffic, "query_batch_points", lambda b: True)
    assert request_violations(x.method, x.target, x.body) == []
    limit = copy.deepcopy(batch)
    limit["searches"][0]["limt"] = limit["searches"][0].pop("limit")
    _refused(x, limit, "limt")
    must = copy.deepcopy(batch)
    must["searches"][0]["filter"]["mustt"] = must["searches"][0]["filter"].pop("must")
    _refused(x, must, "mustt")
    top = {"searchs": batch["searches"]}
    _refused(x, top, "searchs")
    # a misspelt key deep in a condition, where the selector and the match are both unions
    x, body = _one(traffic, "delete_points", lambda b: "must_not" in b["filter"])
    deep = copy.deepcopy(body)
    match = deep["filter"]["must"][0]["match"]
    match["valeu"] = match.pop("value")
    _refused(x, deep, "valeu")
    # and a misspelt path or query parameter, or the wrong method
    assert request_violations(x.method, x.target.replace("/points/delete", "/points/delet"), x.body)
    assert request_violations(x.method, x.target.replace("wait=", "wiat="), x.body)
    assert request_violations("PUT", x.target, x.body)
