"""Structured JSON logs, the request id (echoed, and carried into Celery tasks) and Prometheus /metrics, on a real
elf-api (two gunicorn workers) and elf-worker over HTTP (isolated services)."""

from __future__ import annotations

import json
import re
import secrets
import time
import uuid
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from elf_kernel.observability import log_context
from elf_kernel.observability.outbox_gauges import OUTBOX_TABLES
from tests.conftest import CHAT_PATH, RERANK_PATH
from tests.fake_provider_server import FakeResponse
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed

REPO = Path(__file__).resolve().parents[2]
HEX_ID = re.compile(r"[0-9a-f]{32}")
INDEX_TASK = "memory.process_outbox_row"


def _rerank(request):
    words = set(request.json["query"].lower().split())
    scores = [len(words & set(d.lower().split())) / (1 + len(words)) for d in request.json["documents"]]
    return FakeResponse(json={"results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]})


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("observability")
    s.fake.handle(RERANK_PATH, _rerank)  # the chat endpoint stays unanswered: extractor calls fail (404)
    s.start_api()
    s.start_worker()
    return s


def json_lines(text: str) -> list[dict]:
    out = []
    for line in text.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def wait_for_line(proc, predicate, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [rec for rec in json_lines(proc.output()) if predicate(rec)]
        if found:
            return found[0]
        time.sleep(0.2)
    raise AssertionError(f"no matching log line within {timeout}s:\n{proc.output()[-3000:]}")


def scrape(svc, **kw) -> dict:
    """/metrics on the admin bind as {metric family name: [samples]}."""
    r = requests.get(svc.admin + "/metrics", timeout=30, **kw)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"].startswith("text/plain")
    return {fam.name: fam.samples for fam in text_string_to_metric_families(r.text)}


def sample(families: dict, family: str, name: str, **labels) -> float | None:
    for s in families.get(family, []):
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return None


def request_count(families: dict, route: str, method: str = "GET", status_class: str = "2xx", bind="public") -> float:
    return sample(families, "elf_http_request_duration_seconds", "elf_http_request_duration_seconds_count",
                  route=route, method=method, status_class=status_class, bind=bind) or 0.0


# --- the request id ------------------------------------------------------------------------------------------


def test_request_id_validation_rule():
    assert log_context.request_id_from("client-req 42/a:b") == "client-req 42/a:b"
    assert log_context.request_id_from("x" * 128) == "x" * 128
    for bad in (None, "", "x" * 129, "caf\u00e9", "tab\there", "nul\x00"):
        assert HEX_ID.fullmatch(log_context.request_id_from(bad)), bad


def test_an_incoming_request_id_is_echoed(svc):
    rid = f"client-{uuid.uuid4()}"
    r = requests.get(svc.public + "/health", headers={"X-Request-Id": rid}, timeout=30)
    assert r.status_code == 200 and r.headers["X-Request-Id"] == rid
    # also on an error answered by the one exception handler
    r = requests.get(svc.public + f"/v2/notes/{uuid.uuid4()}", headers={**headers(), "X-Request-Id": rid}, timeout=30)
    assert r.status_code == 404 and r.headers["X-Request-Id"] == rid


def test_an_unacceptable_request_id_is_replaced(svc):
    for bad in ("x" * 129, "caf\u00e9".encode("latin-1")):
        r = requests.get(svc.public + "/health", headers={"X-Request-Id": bad}, timeout=30)
        assert r.status_code == 200
        assert HEX_ID.fullmatch(r.headers["X-Request-Id"]), r.headers["X-Request-Id"]


def test_errors_get_a_generated_request_id(svc):
    not_found = requests.get(svc.public + f"/v2/notes/{uuid.uuid4()}", headers=headers(), timeout=30)
    unrouted = requests.get(svc.public + "/no/such/route", timeout=30)  # Django's handler404
    bad = requests.post(svc.public + "/v2/notes/ingest", json={"scope": "agent_private", "notes": "nope"},
                        headers=headers(), timeout=30)
    assert (not_found.status_code, unrouted.status_code, bad.status_code) == (404, 404, 400)
    assert bad.json()["fields"] == ["$.notes"]
    ids = [r.headers["X-Request-Id"] for r in (not_found, unrouted, bad)]
    assert all(HEX_ID.fullmatch(i) for i in ids) and len(set(ids)) == 3


# --- JSON logs -------------------------------------------------------------------------------------------------


def test_the_api_logs_one_json_line_per_request(svc):
    rid = f"log-{uuid.uuid4().hex[:12]}"
    r = requests.get(svc.public + f"/v2/notes/{uuid.uuid4()}", headers={**headers(agent="a7"), "X-Request-Id": rid},
                     timeout=30)
    assert r.status_code == 404
    line = wait_for_line(svc.api, lambda rec: rec.get("request_id") == rid and rec["logger"] == "elf.request")
    assert line["route"] == "/v2/notes/<uuid:note_id>" and line["status"] == 404 and line["method"] == "GET"
    assert line["level"] == "INFO" and isinstance(line["duration_ms"], float) and line["bind"] == "public"
    assert (line["tenant_id"], line["project_id"], line["agent_id"]) == ("t1", "p1", "a7")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", line["ts"])
    # a 400 is logged too, with its route; nothing else logs a request a second time
    rid2 = f"log-{uuid.uuid4().hex[:12]}"
    requests.post(svc.public + "/v2/notes/ingest", json={}, headers={**headers(), "X-Request-Id": rid2}, timeout=30)
    line2 = wait_for_line(svc.api, lambda rec: rec.get("request_id") == rid2 and rec["logger"] == "elf.request")
    assert (line2["route"], line2["status"], line2["method"]) == ("/v2/notes/ingest", 400, "POST")
    assert [rec["logger"] for rec in json_lines(svc.api.output()) if rec.get("request_id") == rid2] == ["elf.request"]


def test_every_process_log_line_is_json(svc):
    for proc in (svc.api, svc.workers[0]):
        lines = [ln for ln in proc.output().splitlines() if ln.strip()]
        logged = [ln for ln in lines if ln.startswith("{")]
        assert len(logged) > 3
        for ln in logged:
            assert {"ts", "level", "logger", "message"} <= json.loads(ln).keys()
    # gunicorn's own lines (booting workers) are JSON too; Celery's "ready." as well
    assert any(rec["logger"] == "gunicorn.error" for rec in json_lines(svc.api.output()))
    assert any("ready." in rec["message"] for rec in json_lines(svc.workers[0].output()))
    assert not [ln for ln in svc.api.output().splitlines() if ln.strip() and not ln.startswith("{")]


def test_an_add_note_request_id_reaches_the_worker_log_of_its_indexing_task(svc):
    rid = f"trace-{uuid.uuid4().hex}"
    r = requests.post(svc.public + "/v2/notes/ingest", headers={**headers(agent="a3"), "X-Request-Id": rid},
                      json={"scope": "agent_private", "notes": [note("Fact: the observability test note exists.")]},
                      timeout=60)
    assert r.status_code == 200 and r.headers["X-Request-Id"] == rid
    note_id = r.json()["results"][0]["note_id"]
    (outbox_id,), = rows(svc, "SELECT outbox_id FROM indexing_outbox WHERE note_id = %s", (note_id,))
    line = wait_for_line(svc.workers[0], lambda rec: rec.get("request_id") == rid and rec.get("task") == INDEX_TASK)
    assert str(outbox_id) in line["task_args"] and line["state"] == "SUCCESS" and line["level"] == "INFO"
    assert (line["tenant_id"], line["project_id"], line["agent_id"]) == ("t1", "p1", "a3")
    wait_indexed(svc, note_id, timeout=90)
    # the beat's own sweeps carry no request id and stay out of info logs
    assert not [rec for rec in json_lines(svc.workers[0].output())
                if rec.get("task") == "memory.sweep_outbox" and rec["level"] == "INFO"]


# --- /metrics ----------------------------------------------------------------------------------------------


def test_metrics_are_served_on_the_admin_bind_only(svc):
    r = requests.get(svc.public + "/metrics", timeout=30)
    assert r.status_code == 404 and r.json()["error_code"] == "NOT_FOUND"
    assert HEX_ID.fullmatch(r.headers["X-Request-Id"])
    assert requests.post(svc.admin + "/metrics", timeout=30).status_code == 405


def test_metrics_after_add_note_and_search(svc):
    r = ingest(svc, [note("Fact: the metrics service exports latency histograms.")])
    assert r.status_code == 200, r.text
    wait_indexed(svc, r.json()["results"][0]["note_id"], timeout=90)
    found = requests.post(svc.public + "/v2/searches", json={"query": "metrics latency histograms"},
                          headers={**headers(), "X-ELF-Read-Profile": "private_only"}, timeout=60)
    assert found.status_code == 200, found.text
    failed = requests.post(svc.public + "/v2/events/ingest", headers=headers(), timeout=60,
                           json={"messages": [{"role": "user", "content": "Remember that the sky is blue."}]})
    assert failed.status_code >= 400 and svc.fake.requests_to(CHAT_PATH)  # the fake chat endpoint answers 404
    m = scrape(svc)
    assert request_count(m, "/v2/searches", "POST") >= 1
    assert request_count(m, "/v2/notes/ingest", "POST") >= 1
    assert request_count(m, "/v2/notes/<uuid:note_id>", "GET", "4xx") >= 1  # the pattern, never the raw path
    assert not [s for s in m["elf_http_request_duration_seconds"] if re.search(r"[0-9a-f]{8}-", s.labels["route"])]
    for table in OUTBOX_TABLES:
        for status in ("PENDING", "FAILED"):
            assert sample(m, "elf_outbox_depth", "elf_outbox_depth", outbox=table, status=status) is not None
        assert sample(m, "elf_outbox_oldest_pending_age_seconds", "elf_outbox_oldest_pending_age_seconds",
                      outbox=table) is not None
    for kind in ("embedding", "rerank"):
        count = sample(m, "elf_provider_call_duration_seconds", "elf_provider_call_duration_seconds_count",
                       kind=kind, provider_id="fake-http")
        assert count and count >= 1, kind
    assert sample(m, "elf_provider_call_errors", "elf_provider_call_errors_total", kind="extractor",
                  provider_id="fake-http", error="ProviderHTTPError") >= 1
    assert sample(m, "elf_metrics_database_up", "elf_metrics_database_up") == 1
    assert sample(m, "elf_index_lag_seconds", "elf_index_lag_seconds", index="notes") is not None
    assert sample(m, "elf_index_notes_behind", "elf_index_notes_behind") is not None


def test_outbox_gauges_show_a_stuck_row(svc):
    """A PENDING row a minute old that is not due yet: depth, age and index lag all show it."""
    outbox_id, note_id = uuid.uuid4(), uuid.uuid4()
    behind_before = sample(scrape(svc), "elf_index_notes_behind", "elf_index_notes_behind")
    rows(svc, "INSERT INTO indexing_outbox (outbox_id, note_id, op, embedding_version, status, available_at, "
              "created_at) VALUES (%s, %s, 'UPSERT', 'v', 'PENDING', now() + interval '1 hour', "
              "now() - interval '60 seconds') RETURNING 1", (outbox_id, note_id))
    try:
        m = scrape(svc)
        assert sample(m, "elf_outbox_depth", "elf_outbox_depth", outbox="indexing_outbox", status="PENDING") >= 1
        age = sample(m, "elf_outbox_oldest_pending_age_seconds", "elf_outbox_oldest_pending_age_seconds",
                     outbox="indexing_outbox")
        assert 60 <= age < 600
        assert 60 <= sample(m, "elf_index_lag_seconds", "elf_index_lag_seconds", index="notes") < 600
        assert sample(m, "elf_index_notes_behind", "elf_index_notes_behind") >= behind_before + 1
    finally:
        rows(svc, "DELETE FROM indexing_outbox WHERE outbox_id = %s RETURNING 1", (outbox_id,))
    m = scrape(svc)
    assert sample(m, "elf_index_notes_behind", "elf_index_notes_behind") <= behind_before
    assert sample(m, "elf_outbox_oldest_pending_age_seconds", "elf_outbox_oldest_pending_age_seconds",
                  outbox="indexing_outbox") < 60


def test_request_counts_add_up_across_the_gunicorn_workers(svc):
    """Two worker processes answer; a scrape (answered by one of them) counts every request exactly once."""
    before = request_count(scrape(svc), "/health")
    for _ in range(20):
        with requests.Session() as fresh:  # a new connection each: gunicorn spreads them over its workers
            assert fresh.get(svc.public + "/health", timeout=30).status_code == 200
    pids = {rec["pid"] for rec in json_lines(svc.api.output()) if rec["logger"] == "elf.request"}
    assert len(pids) == 2, pids
    assert request_count(scrape(svc), "/health") - before == 20


def test_every_outbox_table_has_gauges():
    created = set()
    for sql in (REPO / "sql").rglob("*.sql"):
        created |= set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+_outbox)\b", sql.read_text()))
    assert created and created == set(OUTBOX_TABLES)


# --- /metrics with static API keys ----------------------------------------------------------------------------

TOKENS = {name: secrets.token_urlsafe(24) for name in ("user", "admin")}


def test_metrics_need_an_admin_key_when_static_keys_are_on(isolated_services):
    keys = [{"token_id": f"{name}-t1", "token": TOKENS[name], "tenant_id": "t1", "project_id": "p1",
             "agent_id": f"{name}-agent", "role": name} for name in TOKENS]
    s = isolated_services("observability_keys",
                          lambda data: data["security"].update(auth_mode="static_keys", auth_keys=keys))
    s.start_api()
    bearer = {name: {"Authorization": f"Bearer {token}"} for name, token in TOKENS.items()}
    assert requests.get(s.admin + "/metrics", timeout=30).status_code == 401
    assert requests.get(s.admin + "/metrics", headers=bearer["user"], timeout=30).status_code == 403
    assert scrape(s, headers=bearer["admin"])["elf_metrics_database_up"]
    assert requests.get(s.public + "/metrics", headers=bearer["user"], timeout=30).status_code == 404
    # the key, not a header, gives the log line its context; the token itself is never logged
    rid = f"keys-{uuid.uuid4().hex[:8]}"
    requests.get(s.public + "/v2/notes", headers={**bearer["user"], "X-Request-Id": rid}, timeout=30)
    line = wait_for_line(s.api, lambda rec: rec.get("request_id") == rid and rec["logger"] == "elf.request")
    assert (line["tenant_id"], line["agent_id"], line["route"]) == ("t1", "user-agent", "/v2/notes")
    assert not any(token in s.api.output() for token in TOKENS.values())


def test_every_response_says_its_time_in_server_timing(svc):
    """``app`` on every response, after a view's own entries (a search's ``search`` stays first)."""
    health = requests.get(svc.public + "/health", timeout=30)
    missing = requests.get(svc.public + f"/v2/notes/{uuid.uuid4()}", headers=headers(), timeout=30)
    added = ingest(svc, [note("The release train leaves on Thursdays.")])
    found = requests.post(svc.public + "/v2/searches", json={"query": "release train", "mode": "quick_find"},
                          headers={**headers(), "X-ELF-Read-Profile": "private_only"}, timeout=30)
    for r in (health, missing, added, found):
        entries = [e.strip() for e in r.headers["Server-Timing"].split(",")]
        assert re.fullmatch(r"app;dur=\d+\.\d\d", entries[-1]), (r.status_code, entries)
    assert found.status_code == 200 and found.headers["Server-Timing"].startswith("search;dur=")
    assert missing.status_code == 404 and added.status_code == 200
