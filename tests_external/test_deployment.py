"""ELF on services it does not manage (tests_external/deployment.py), over real HTTP and TCP only.

The owner role really is an ordinary role; Postgres takes passwords only; Redis wants its password; the two hosts
share nothing on disk; and the service works end to end: notes (add, get, search in both modes), add_event with
the local extractor, documents, core memory, the event log and its bundles, and rebuild_qdrant from the worker
host's checkout after the collections were dropped in Qdrant.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from pathlib import Path

import psycopg
import pytest
import redis
import requests

from tests_external.deployment import ADMIN_ROLE, DATABASE, HOST, OWNER_ROLE, REPO, Deployment, wait_for

READ = "private_plus_project"
# Statements only a superuser (or a role granted more than the owner is) may run: each must fail for the owner.
SUPERUSER_ONLY = [
    "ALTER SYSTEM SET work_mem = '8MB'",
    "SET session_replication_role = replica",
    "CREATE EXTENSION file_fdw",  # untrusted, like vector: only the admin creates such extensions
    "CREATE DATABASE elf_other",  # NOCREATEDB
    "CREATE ROLE intruder",  # NOCREATEROLE
    "COPY (SELECT 1) TO PROGRAM 'true'",
]


@pytest.fixture(scope="module")
def dep(deployment) -> Deployment:
    return deployment


@pytest.fixture
def tenant() -> str:
    return f"ext-{uuid.uuid4().hex[:8]}"


def headers(tenant: str, agent: str = "a1") -> dict[str, str]:
    return {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": agent, "X-ELF-Read-Profile": READ}


def rows(dep: Deployment, query: str, params=()) -> list[tuple]:
    with psycopg.connect(dep.pg.owner_dsn) as conn:
        return conn.execute(query, params).fetchall()


def post(dep: Deployment, path: str, body: dict, tenant: str | None = None, expect: int = 200) -> dict:
    r = requests.post(dep.public + path, json=body, headers=headers(tenant) if tenant else None, timeout=60)
    assert r.status_code == expect, f"{path}: {r.status_code} {r.text}"
    return r.json()


def wait_outboxes_done(dep: Deployment, timeout: float = 90) -> None:
    """Until the worker (on the other host) has processed every indexing job of both outboxes."""
    wait_for(lambda: not rows(dep, "SELECT 1 FROM indexing_outbox WHERE status <> 'DONE' UNION ALL "
                                   "SELECT 1 FROM doc_indexing_outbox WHERE status <> 'DONE'"),
             timeout, "the worker to index every note and document")


def search(dep: Deployment, tenant: str, query: str, mode: str) -> list[str]:
    body = post(dep, "/v2/searches", {"query": query, "mode": mode, "top_k": 5}, tenant)
    return [item["note_id"] for item in body["items"]]


def ingest(dep: Deployment, tenant: str, notes: list[dict]) -> list[str]:
    body = post(dep, "/v2/notes/ingest", {"scope": "agent_private", "notes": notes}, tenant)
    assert [r["op"] for r in body["results"]] == ["ADD"] * len(notes), body
    return [r["note_id"] for r in body["results"]]


def note(text: str, **kw) -> dict:
    return {"type": "fact", "text": text, "importance": 0.6, "confidence": 0.9, **kw}


# --- what the operator provisioned ------------------------------------------------------------------------------


def test_the_owner_role_is_no_superuser_and_superuser_operations_fail_for_it(dep):
    with psycopg.connect(dep.pg.owner_dsn) as conn:
        flags = conn.execute("SELECT current_user, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls "
                             "FROM pg_roles WHERE rolname = current_user").fetchone()
        assert flags == (OWNER_ROLE, False, False, False, False, False)
        memberships = conn.execute("SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid "
                                   "JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = current_user").fetchall()
        assert memberships == []  # no pg_read_server_files, pg_execute_server_program, ... either
        assert conn.execute("SELECT pg_catalog.pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s",
                            (DATABASE,)).fetchone() == (OWNER_ROLE,)
    for statement in SUPERUSER_ONLY:
        with (
            psycopg.connect(dep.pg.owner_dsn, autocommit=True) as conn,
            pytest.raises(psycopg.errors.InsufficientPrivilege),
        ):
            conn.execute(statement)


def test_postgres_takes_passwords_over_tcp_only(dep):
    with psycopg.connect(dep.pg.admin_dsn) as conn:
        rules = conn.execute("SELECT type, auth_method, error FROM pg_hba_file_rules").fetchall()
        assert rules and all(r == ("host", "scram-sha-256", None) for r in rules), rules
        stored = conn.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (OWNER_ROLE,)).fetchone()[0]
        assert stored.startswith("SCRAM-SHA-256$")
        assert conn.execute("SHOW unix_socket_directories").fetchone() == ("",)
    wrong = dep.pg.dsn(OWNER_ROLE, "not-the-password")
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong, connect_timeout=10).close()


def test_the_service_built_its_schema_as_the_owner_on_the_admins_vector_extension(dep):
    not_owned = rows(dep, "SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n "
                          "ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 'S', 'v') "
                          "AND pg_get_userbyid(c.relowner) <> current_user")
    assert not_owned == []
    tables = {r[0] for r in rows(dep, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {"memory_notes", "doc_documents", "acb_events", "core_memory_documents", "django_migrations"} <= tables
    assert rows(dep, "SELECT count(*) FROM schema_version")[0][0] >= 8
    extensions = dict(rows(dep, "SELECT extname, pg_get_userbyid(extowner) FROM pg_extension"))
    # vector is untrusted: the admin created it, the start-up's CREATE EXTENSION IF NOT EXISTS found it there.
    # btree_gin is a trusted extension: the owner created it itself (CREATE on the database it owns).
    assert extensions["vector"] == ADMIN_ROLE and extensions["btree_gin"] == OWNER_ROLE, extensions


def test_the_dsn_parameters_reach_every_connection(dep, tenant):
    """The DSN's query (here application_name; sslmode and sslrootcert on a managed Postgres) is on every connection
    of both hosts, Django's pooled ones included."""
    ingest(dep, tenant, [note("Fact: the west gate opens at seven.")])
    wait_outboxes_done(dep)
    named = dict(rows(dep, "SELECT application_name, count(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND pid <> pg_backend_pid() GROUP BY 1"))
    assert set(named) == {"api-host", "worker-host"}, named


def test_redis_wants_its_password(dep):
    with socket.create_connection((HOST, dep.redis.port), timeout=5) as bare:  # no AUTH: refused
        bare.sendall(b"PING\r\n")
        assert bare.recv(200).startswith(b"-NOAUTH"), "redis answered a client without its password"
    client = redis.Redis.from_url(dep.redis.url, socket_timeout=5)
    assert client.ping()
    client.close()


def test_health_sees_every_service(dep):
    for base in (dep.public, dep.admin):
        body = requests.get(base + "/health", timeout=10).json()
        assert body["status"] == "ok" and body["down"] == [] and set(body["checks"]) == {"postgres", "qdrant", "broker"}


def _open_paths(pid: int) -> set[str]:
    """Files a process has open or mapped."""
    paths = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            paths.add(os.readlink(fd))
        except OSError:
            continue
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].startswith("/"):
            paths.add(parts[5])
    return paths


def _group(leader: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) == leader:
                    pids.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return pids


def test_the_two_hosts_share_nothing_on_disk(dep):
    api, worker = dep.api, dep.worker
    assert worker.extra["imports_from"].startswith(str(worker.checkout) + "/"), worker.extra["imports_from"]
    assert Path(os.readlink(f"/proc/{worker.proc.pid}/cwd")) == worker.checkout
    assert Path(os.readlink(f"/proc/{api.proc.pid}/cwd")) == REPO
    for text in (worker.config.read_text(), api.config.read_text()):
        assert str(REPO) not in text and str(dep.workdir) not in text  # every path in them is relative
    venv = str(REPO / ".venv") + "/"
    for pid in _group(worker.proc.pid):
        for path in _open_paths(pid):
            assert not path.startswith(str(api.root) + "/"), (pid, path)
            assert not path.startswith(str(REPO) + "/") or path.startswith(venv), (pid, path)
    for pid in _group(api.proc.pid):
        for path in _open_paths(pid):
            assert not path.startswith(str(worker.root) + "/"), (pid, path)


# --- the service, end to end ------------------------------------------------------------------------------------

NOTES = [
    note("Fact: the billing service listens on port 9443."),
    note("Fact: the nightly backup of the ledger database starts at 02:30 UTC."),
    note("Preference: the user wants release notes written in plain English.", type="preference",
         key="release_notes_style"),
]


def test_notes_add_get_and_search_in_both_modes(dep, tenant):
    ids = ingest(dep, tenant, NOTES)
    got = requests.get(f"{dep.public}/v2/notes/{ids[0]}", headers=headers(tenant), timeout=10)
    assert got.status_code == 200 and got.json()["text"] == NOTES[0]["text"], got.text
    wait_outboxes_done(dep)  # only the worker writes Qdrant points: a search hit proves it ran
    for mode in ("quick_find", "planned_search"):
        assert search(dep, tenant, "Which port does the billing service listen on?", mode)[0] == ids[0]
        assert search(dep, tenant, "When does the ledger backup run?", mode)[0] == ids[1]


def test_add_event_with_the_local_extractor(dep, tenant):
    body = post(dep, "/v2/events/ingest", {"messages": [
        {"role": "user", "content": "Remember that the staging cluster restarts every Sunday at midnight."},
        {"role": "assistant", "content": "Got it."}]}, tenant)
    (result,) = [r for r in body["results"] if r["op"] == "ADD"]
    assert "staging cluster restarts every Sunday" in body["extracted"]["notes"][0]["text"]
    wait_outboxes_done(dep)
    assert search(dep, tenant, "When does the staging cluster restart?", "quick_find")[0] == result["note_id"]


DOC = ("Harbour operations handbook.\n\n"
       "The harbour office opens at nine and closes at five on weekdays. Boats moor at the east pier.\n\n"
       "The backup generator is tested every Monday at eight in the morning by the duty engineer.\n")


def test_documents_put_search_and_quote(dep, tenant):
    doc = post(dep, "/v2/docs", {"scope": "agent_private", "title": "Harbour handbook", "content": DOC}, tenant)
    wait_outboxes_done(dep)
    found = post(dep, "/v2/docs/search/l0", {"query": "When is the backup generator tested?", "top_k": 3}, tenant)
    assert found["items"] and found["items"][0]["doc_id"] == doc["doc_id"], found
    quoted = post(dep, "/v2/docs/excerpts", {"doc_id": doc["doc_id"], "level": "L0",
                                             "quote": {"exact": "The backup generator is tested every Monday"},
                                             "state": {"content_hash": doc["content_hash"]}}, tenant)
    assert quoted["verified"] and quoted["verification_errors"] == [], quoted


def test_core_memory_upsert_resolve_and_profile(dep, tenant):
    written = post(dep, "/v2/core-memory/entries", {"scope": "profile", "kind": "preference", "key": "response.tone",
                                                    "value": "friendly", "source": "user_explicit"}, tenant)
    assert written["status"] == "written", written
    resolved = post(dep, "/v2/core-memory/resolve", {"keys": ["response.tone"]}, tenant)
    assert resolved["items"][0]["found"] and resolved["items"][0]["value"] == "friendly"
    profile = requests.get(dep.public + "/v2/core-memory/profile.md", headers=headers(tenant), timeout=10)
    assert profile.status_code == 200 and "key:response.tone | value:friendly" in profile.text


def _event(tenant: str, kind: str, content: dict, *, actor=("agent", "agentA"), sensitivity="none") -> dict:
    return {"tenant_id": tenant, "session_id": "s1", "agent_id": "agentA", "project_id": "p1", "channel": "private",
            "actor": {"type": actor[0], "id": actor[1]}, "kind": kind, "sensitivity": sensitivity, "content": content,
            "refs": [], "tags": []}


def test_event_log_and_bundle(dep, tenant):
    post(dep, "/api/v1/events", _event(tenant, "message", {"text": "What does the ferry scheduler do?"},
                                       actor=("human", "user")))
    decision = post(dep, "/api/v1/events", _event(tenant, "decision", {
        "decision": "The ferry scheduler stores timetables in Postgres.", "rationale": ["one source of truth"]}))
    sealed = post(dep, "/api/v1/events", _event(tenant, "message", {"text": "The harbour gate code changes weekly."},
                                                actor=("human", "user"), sensitivity="high"))
    stored = rows(dep, "SELECT content FROM acb_events WHERE event_id = %s", (sealed["event_id"],))[0][0]
    assert "harbour gate" not in json.dumps(stored) and "encrypted" in stored  # sealed at rest with the hosts' key
    bundle = post(dep, "/api/v1/acb/build", {"tenant_id": tenant, "session_id": "s1", "agent_id": "agentB",
                                              "project_id": "p1", "channel": "private", "max_tokens": 4000,
                                              "query_text": "Where are the ferry timetables stored?"})
    texts = {s["name"]: " ".join(i["text"] for i in s["items"]) for s in bundle["sections"]}
    assert "stores timetables in Postgres" in texts["decision_ledger"], texts
    assert "harbour gate code changes weekly" in " ".join(texts.values())  # opened again for a private bundle
    assert rows(dep, "SELECT count(*) FROM acb_decisions WHERE decision_id = %s", (decision["decision_id"],)) == [(1,)]
    assert bundle["token_used_est"] <= bundle["budget_tokens"]


def test_rebuild_qdrant_from_the_worker_host_after_the_collections_were_dropped(dep, tenant):
    from qdrant_client import QdrantClient

    (nid,) = ingest(dep, tenant, [note("Fact: the lighthouse lamp is replaced every spring.")])
    doc = post(dep, "/v2/docs", {"scope": "agent_private", "title": "Lighthouse log", "content":
                                 "Lighthouse log.\n\nThe lighthouse lamp is replaced every spring by the keeper.\n"},
               tenant)
    wait_outboxes_done(dep)
    query = "How often is the lighthouse lamp replaced?"
    assert search(dep, tenant, query, "quick_find") == [nid]

    client = QdrantClient(url=dep.qdrant.url, timeout=30)  # the operator drops the index on the Qdrant side
    names = [c.name for c in client.get_collections().collections]
    assert len(names) == 2, names
    for name in names:
        client.delete_collection(name)
    client.close()
    gone = requests.post(dep.public + "/v2/searches", json={"query": query, "mode": "quick_find"},
                         headers=headers(tenant), timeout=60)
    assert gone.status_code == 503 or gone.json()["items"] == [], gone.text

    rebuilt = dep.worker.manage("rebuild_qdrant")
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    report = json.loads(rebuilt.stdout.strip().splitlines()[-1])
    note_chunks = rows(dep, "SELECT count(*) FROM memory_note_chunks")[0][0]
    doc_chunks = rows(dep, "SELECT count(*) FROM doc_chunks")[0][0]
    assert report["rebuilt_count"] == note_chunks > 0 and report["error_count"] == 0, report
    assert report["docs"]["rebuilt_count"] == doc_chunks > 0, report
    for mode in ("quick_find", "planned_search"):
        assert search(dep, tenant, query, mode) == [nid]
    found = post(dep, "/v2/docs/search/l0", {"query": query, "top_k": 3}, tenant)
    assert found["items"][0]["doc_id"] == doc["doc_id"]



def test_backup_and_restore_with_the_owner_roles_rights(dep, tenant, tmp_path):
    """elf-stack backup as the owner; restore into an empty database the admin made (as for the service's own:
    owned by elf, vector created), with nothing more than the owner's rights."""
    (nid,) = ingest(dep, tenant, [note("Fact: the ferry to the north island leaves at 06:40.")])
    dump = tmp_path / "elf.dump"
    host = dep.worker
    saved = host.stack("backup", "--out", str(dump))
    assert saved.returncode == 0 and dump.stat().st_size > 0, saved.stderr

    dep.pg.provision_database("elf_restored")
    restored_cfg = tmp_path / "restored.toml"
    restored_cfg.write_text(host.config.read_text().replace(f"/{DATABASE}?", "/elf_restored?"))
    restored = host.stack("restore", "--in", str(dump), config=restored_cfg)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    dsn = dep.pg.dsn(OWNER_ROLE, dep.pg.owner_password, "elf_restored")
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT text FROM memory_notes WHERE note_id = %s", (nid,)).fetchone() == (
            "Fact: the ferry to the north island leaves at 06:40.",)
        owners = conn.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'").fetchall()
    assert owners == [(OWNER_ROLE,)]
