"""Admin trace endpoints against a live elf-api (isolated services), and the trace admin page.

Traces are written into the isolated database by the real ``persist_trace``, run in a child process
bootstrapped with the set's config."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from datetime import timedelta

import psycopg
import pytest
import requests
from django.utils import timezone

from tests.conftest import REPO
from tests.traces.test_traces import make_payload
from traces.services.persist import persist_trace

H = {"X-ELF-Tenant-Id": "t1", "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": "reader"}
PERSIST_SCRIPT = (
    "import json, sys\n"
    "from elf_project.runtime import bootstrap\n"
    "bootstrap(sys.argv[1])\n"
    "from traces.services.persist import persist_trace\n"
    "for p in json.load(sys.stdin):\n"
    "    persist_trace(p)\n"
)


def persist_in(svc, payloads: list[dict]) -> None:
    done = subprocess.run([sys.executable, "-c", PERSIST_SCRIPT, str(svc.config_path)], input=json.dumps(payloads),
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def world(isolated_services_module):
    svc = isolated_services_module("trace_api")
    svc.start_api()  # applies the schema
    base = timezone.now().replace(microsecond=0) - timedelta(hours=1)
    payloads = []
    for i in range(7):  # two traces share each created_at: the trace_id breaks the tie
        payloads.append(make_payload(agent="a1" if i % 2 else "a2", read_profile="all_scopes" if i % 3 == 0
                                     else "private_only", created_at=base + timedelta(minutes=i // 2),
                                     stage_items=70, candidates=5 if i == 0 else None))
    other = [make_payload(tenant="t2"), make_payload(project="p2")]
    expired = make_payload(created_at=base, expires_at=timezone.now() - timedelta(minutes=1))
    persist_in(svc, payloads + other + [expired])
    # Trace rows that name a note are shown only when the caller may read it: make every note the reader's.
    _own_notes(svc, "reader", payloads + other + [expired])
    return svc, payloads, other, expired


def _own_notes(svc, agent: str, payloads: list[dict]) -> None:
    ids = {i["note_id"] for p in payloads for i in p["items"]}
    ids |= {r["note_id"] for p in payloads for st in p["stages"] for r in st["items"] if r["note_id"]}
    ids |= {c["snapshot"]["note_id"] for p in payloads for c in (p.get("candidates") or [])}
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        for nid in ids:
            conn.execute(
                "INSERT INTO memory_notes (note_id, tenant_id, project_id, agent_id, scope, type, text, importance, "
                "confidence, status, embedding_version, source_ref) VALUES (%s, 't1', 'p1', %s, 'agent_private', "
                "'fact', 'Fact: a traced note.', 0.5, 0.5, 'active', %s, '{}')",
                (nid, agent, svc.cfg.embedding_version),
            )


def get(svc, path: str, headers=H, **params) -> requests.Response:
    return requests.get(svc.admin + path, headers=headers, params=params, timeout=10)


def expected_order(payloads) -> list[str]:
    keyed = [(p["trace"]["created_at"], uuid.UUID(p["trace"]["trace_id"])) for p in payloads]
    return [str(t) for _, t in sorted(keyed, reverse=True)]


def test_recent_pages_with_cursors_without_gaps_or_duplicates(world) -> None:
    svc, payloads, _, _ = world
    seen, params = [], {"limit": 3}
    while True:
        r = get(svc, "/v2/admin/traces/recent", **params)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["schema"] == "elf.recent_traces/v1" and len(body["traces"]) <= 3
        seen += [t["trace_id"] for t in body["traces"]]
        if body["next_cursor"] is None:
            break
        params = {"limit": 3, "cursor_created_at": body["next_cursor"]["created_at"],
                  "cursor_trace_id": body["next_cursor"]["trace_id"]}
    assert seen == expected_order(payloads)  # other tenant/project and expired traces never listed
    first = get(svc, "/v2/admin/traces/recent").json()["traces"][0]
    assert set(first) == {"trace_id", "tenant_id", "project_id", "agent_id", "read_profile", "query", "created_at"}


def test_recent_filters(world) -> None:
    svc, payloads, _, _ = world
    by_agent = get(svc, "/v2/admin/traces/recent", agent_id="a1").json()["traces"]
    assert [t["trace_id"] for t in by_agent] == expected_order([p for p in payloads if p["trace"]["agent_id"] == "a1"])
    by_profile = get(svc, "/v2/admin/traces/recent", read_profile="all_scopes").json()["traces"]
    assert {t["read_profile"] for t in by_profile} == {"all_scopes"} and len(by_profile) == 3
    after, before = payloads[2]["trace"]["created_at"], payloads[6]["trace"]["created_at"]
    window = get(svc, "/v2/admin/traces/recent", created_after=after, created_before=before).json()["traces"]
    assert [t["trace_id"] for t in window] == expected_order(payloads[4:6])  # both bounds strict


@pytest.mark.parametrize("given", ["cursor_created_at", "cursor_trace_id"])
def test_half_a_cursor_is_rejected_with_both_paths(world, given) -> None:
    value = timezone.now().isoformat() if given == "cursor_created_at" else str(uuid.uuid4())
    r = get(world[0], "/v2/admin/traces/recent", **{given: value})
    assert r.status_code == 400
    assert r.json()["error_code"] == "INVALID_REQUEST"
    assert set(r.json()["fields"]) == {"$.query.cursor_created_at", "$.query.cursor_trace_id"}


def test_recent_limit_and_headers_are_validated(world) -> None:
    svc = world[0]
    r = get(svc, "/v2/admin/traces/recent", limit=201)
    assert r.status_code == 400 and r.json()["fields"] == ["$.query.limit"]
    assert len(get(svc, "/v2/admin/traces/recent", limit=200).json()["traces"]) == 7
    r = get(svc, "/v2/admin/traces/recent", headers={"X-ELF-Tenant-Id": "t1"})
    assert r.status_code == 400 and "$.headers.X-ELF-Project-Id" in r.json()["fields"]


def test_trace_of_another_tenant_or_project_is_not_found(world) -> None:
    svc, payloads, other, expired = world
    for p in other + [expired]:
        tid = p["trace"]["trace_id"]
        for path in (f"/v2/admin/traces/{tid}", f"/v2/admin/traces/{tid}/bundle", f"/v2/admin/trajectories/{tid}",
                     f"/v2/admin/trace-items/{p['items'][0]['item_id']}"):
            r = get(svc, path)
            assert r.status_code == 404 and r.json()["error_code"] == "NOT_FOUND", path
    # any agent of the project may read: access is tenant + project only
    own = get(svc, f"/v2/admin/traces/{other[0]['trace']['trace_id']}",
              headers={**H, "X-ELF-Tenant-Id": "t2"})
    assert own.status_code == 200


def test_get_trace_returns_items_as_stored_and_a_summary(world) -> None:
    svc, payloads, _, _ = world
    p = payloads[1]
    body = get(svc, f"/v2/admin/traces/{p['trace']['trace_id']}").json()
    assert body["trace"]["trace_id"] == p["trace"]["trace_id"] and body["trace"]["agent_id"] == "a1"
    assert [i["item_id"] for i in body["items"]] == [i["item_id"] for i in p["items"]]
    assert body["items"][0]["explain"] == p["items"][0]["explain"]
    summary = body["trajectory_summary"]
    assert summary["schema"] == "search_retrieval_trajectory/v1"
    assert [(s["stage_order"], s["stage_name"], s["item_count"]) for s in summary["stages"]] == [
        (s["stage_order"], s["stage_name"], 70) for s in p["stages"]]
    assert summary["stages"][0]["stats"] == p["stages"][0]["stage_payload"]


def test_bundle_bounded_and_full(world) -> None:
    svc, payloads, _, _ = world
    tid = payloads[0]["trace"]["trace_id"]
    bounded = get(svc, f"/v2/admin/traces/{tid}/bundle").json()
    assert bounded["schema"] == "elf.trace_bundle/v1" and bounded["generated_at"]
    assert bounded["candidates"] is None
    assert {len(s["items"]) for s in bounded["stages"]} == {64}
    assert {s["item_count"] for s in bounded["trajectory_summary"]["stages"]} == {70}
    assert [m["metrics"]["position"] for m in bounded["stages"][0]["items"][:3]] == [0, 1, 2]
    full = get(svc, f"/v2/admin/traces/{tid}/bundle", mode="full").json()
    assert {len(s["items"]) for s in full["stages"]} == {70}
    assert [c["rank"] for c in full["candidates"]] == [1, 2, 3, 4, 5]
    tuned = get(svc, f"/v2/admin/traces/{tid}/bundle", stage_items_limit=5, candidates_limit=2).json()
    assert {len(s["items"]) for s in tuned["stages"]} == {5} and len(tuned["candidates"]) == 2
    r = get(svc, f"/v2/admin/traces/{tid}/bundle", stage_items_limit=257, mode="partial")
    assert r.status_code == 400 and set(r.json()["fields"]) == {"$.query.stage_items_limit", "$.query.mode"}


def test_trajectory_and_trace_item(world) -> None:
    svc, payloads, _, _ = world
    p = payloads[3]
    traj = get(svc, f"/v2/admin/trajectories/{p['trace']['trace_id']}").json()
    assert traj["trajectory"]["schema"] == "search_retrieval_trajectory/v1"
    assert [s["stage_name"] for s in traj["stages"]] == [s["stage_name"] for s in p["stages"]]
    assert len(traj["stages"][0]["items"]) == 70
    assert traj["stages"][0]["stage_payload"] == p["stages"][0]["stage_payload"]
    item = p["items"][1]
    body = get(svc, f"/v2/admin/trace-items/{item['item_id']}").json()
    assert body["trace"]["trace_id"] == p["trace"]["trace_id"]
    assert body["item"]["explain"] == item["explain"] and body["item"]["rank"] == 2
    assert body["trajectory"]["schema"] == "search_retrieval_trajectory/v1"
    assert [(s["stage_name"], s["metrics"]["position"]) for s in body["trajectory"]["stages"]] == [
        (s["stage_name"], 1) for s in p["stages"]
    ]
    assert get(svc, "/v2/admin/trace-items/not-a-uuid").status_code == 404


def test_admin_openapi_lists_the_trace_endpoints(world) -> None:
    paths = requests.get(world[0].admin + "/openapi.json", timeout=10).json()["paths"]
    for path in (
        "/v2/admin/traces/recent",
        "/v2/admin/traces/{trace_id}",
        "/v2/admin/traces/{trace_id}/bundle",
        "/v2/admin/trajectories/{trace_id}",
        "/v2/admin/trace-items/{item_id}",
    ):
        assert "404" in paths[path]["get"]["responses"], path


@pytest.mark.django_db
def test_admin_trace_page_shows_ranking_terms_and_stages(admin_client, test_stack) -> None:
    port = test_stack.service.admin_bind.rsplit(":", 1)[1]
    payload = make_payload(tenant="t-admin-trace")
    persist_trace(payload)
    r = admin_client.get(f"/admin/traces/searchtrace/{payload['trace']['trace_id']}/change/", SERVER_PORT=port)
    assert r.status_code == 200
    html = r.content.decode()
    assert "blend.retrieval" in html and "tie_breaker" in html and "rewrite.expansion" in html
    assert str(payload["items"][0]["final_score"]) in html
    listing = admin_client.get("/admin/traces/searchtrace/?tenant_id=t-admin-trace", SERVER_PORT=port)
    assert payload["trace"]["trace_id"] in listing.content.decode()
    assert admin_client.get("/admin/search/llmcache/", SERVER_PORT=port).status_code == 200


def test_worker_sweep_persists_a_queued_trace(world) -> None:
    svc = world[0]
    payload = make_payload(tenant="t-worker", query="Queued for the worker sweep.")  # kept out of t1's listings
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:  # what enqueue_trace commits (no task sent)
        conn.execute(
            "INSERT INTO search_trace_outbox (outbox_id, trace_id, status, payload) "
            "VALUES (%s, %s, 'PENDING', %s::jsonb)",
            (uuid.uuid4(), payload["trace"]["trace_id"], json.dumps(payload)),
        )
    svc.start_worker()
    deadline = time.monotonic() + 30
    headers = {**H, "X-ELF-Tenant-Id": "t-worker"}
    while get(svc, f"/v2/admin/traces/{payload['trace']['trace_id']}", headers=headers).status_code != 200:
        assert time.monotonic() < deadline, "the sweep did not persist the queued trace"
        time.sleep(0.5)
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        (status,) = conn.execute(
            "SELECT status FROM search_trace_outbox WHERE trace_id = %s", (payload["trace"]["trace_id"],)
        ).fetchone()
    assert status == "DONE"


def test_trace_rows_naming_notes_the_caller_cannot_read_are_hidden(world) -> None:
    """The same read rule as search and notes: another agent of the project sees the trace, not the notes."""
    svc, payloads, _, _ = world
    p = payloads[0]
    stranger = {**H, "X-ELF-Agent-Id": "stranger"}
    body = get(svc, f"/v2/admin/traces/{p['trace']['trace_id']}/bundle", headers=stranger, mode="full").json()
    assert body["trace"]["trace_id"] == p["trace"]["trace_id"]
    assert body["items"] == [] and not body["candidates"]
    assert all(row["note_id"] is None for st in body["stages"] for row in st["items"])
    item_id = p["items"][0]["item_id"]
    assert get(svc, f"/v2/admin/trace-items/{item_id}", headers=stranger).status_code == 404
    assert get(svc, f"/v2/admin/trace-items/{item_id}").status_code == 200
    owner = get(svc, f"/v2/admin/traces/{p['trace']['trace_id']}/bundle", mode="full").json()
    assert len(owner["items"]) == len(p["items"]) and owner["candidates"]
