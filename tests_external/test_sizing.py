"""The sizing figures of docs/deploying.md, measured on this run's deployment and printed at the end of the run.

A small load: NOTE_AGENTS requests of 10 notes (each request under its own agent, ten unrelated sentences, so the
resolver adds them all), indexed by the worker; then SEARCHES searches from 4 client threads, half in each mode.
Recorded: the RSS and PSS of elf-api (gunicorn master and workers) and elf-worker (Celery's main process and its
pool) after the load, next to the idle figures taken at start-up (conftest); the Postgres bytes per note (the growth
of pg_total_relation_size over every table of the database, indexes and TOAST included, divided by the notes
added); the Qdrant points per note (one per chunk); the same two per KB of document text (DOCS runbooks of about
8 KB); and the Postgres bytes per search (its trace, kept search.explain.retention_days), once the worker has
written the traces.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg
import requests

from tests_external.conftest import MEASURED, memory_of
from tests_external.deployment import wait_for
from tests_external.test_deployment import wait_outboxes_done

NOTE_AGENTS = 100
SEARCHES = 40
DOCS = 10
NAMES = ["atlas", "billing", "comet", "delta", "ember", "falcon", "garnet", "harbor", "iris", "juniper", "kestrel",
         "lumen", "meridian", "nimbus", "orchid", "pylon", "quartz", "raven", "sierra", "tundra", "umber", "vertex",
         "willow", "xenon", "yarrow", "zephyr", "aurora", "basalt", "cinder", "dune"]
PEOPLE = ["Alice", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas"]
CITIES = ["Lisbon", "Oslo", "Vienna", "Dublin", "Porto", "Krakow", "Ghent", "Turin", "Tallinn", "Bergen"]
MONTHS = ["March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]


def notes_for(i: int) -> list[dict]:
    name, person, city, month = NAMES[i % 30], PEOPLE[i % 10], CITIES[(i * 3) % 10], MONTHS[(i * 7) % 10]
    texts = [
        ("fact", f"Fact: the {name} service listens on port {9000 + i}."),
        (
            "preference",
            f"Preference: the user wants charts in {['green', 'blue', 'amber'][i % 3]} in the {name} report.",
        ),
        ("decision", f"Decision: the team will migrate the {name} database to Postgres 17 in {month}."),
        ("constraint", f"Constraint: never deploy the {name} app on a Friday afternoon."),
        ("fact", f"Fact: {person} leads the {name} team and reviews every pull request."),
        ("plan", f"Plan: the user will visit the {city} office in {month} to meet the support staff."),
        ("fact", f"Fact: the {name} nightly backup runs at {i % 6}:30 UTC and keeps {7 + i} days of history."),
        ("preference", f"Preference: the user prefers {['Python', 'Go', 'Rust'][i % 3]} for small command line tools."),
        ("fact", f"Fact: the staging cluster for {name} has {3 + i % 5} nodes with 64 GB of memory each."),
        ("profile", f"Profile: the user lives in {city} and works remotely on Mondays."),
    ]
    return [{"type": t, "text": text, "importance": 0.5, "confidence": 0.9} for t, text in texts]


def doc_text(i: int) -> str:
    """About 8 KB of English prose: 40 paragraphs of a runbook, each naming its own system and numbers."""
    paras = []
    for j in range(40):
        name = NAMES[(i * 7 + j) % 30]
        paras.append(
            f"Step {j + 1} of runbook {i}. Before restarting the {name} service, the operator checks that "
            f"the queue for {name} holds fewer than {100 + j * 13} messages and that replica {j % 4} "
            f"reports a lag under {j % 9 + 1} seconds. If it does not, wait {j % 5 + 2} minutes and look "
            f"at the {name} dashboard again before going on."
        )
    return "\n\n".join(paras) + "\n"


def db_bytes_and_notes(dsn: str) -> tuple[int, int]:
    with psycopg.connect(dsn) as conn:
        total = conn.execute(
            "SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'"
        ).fetchone()[0]
        notes = conn.execute("SELECT count(*) FROM memory_notes").fetchone()[0]
    return int(total), int(notes)


def rows(dsn: str, query: str, params=()) -> list[tuple]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(query, params).fetchall()


def test_measure_memory_and_disk_under_a_small_load(deployment):
    dep = deployment
    tenant = f"size-{uuid.uuid4().hex[:8]}"
    wait_outboxes_done(dep)
    bytes0, notes0 = db_bytes_and_notes(dep.pg.owner_dsn)

    t0 = time.monotonic()

    def write(i: int) -> None:
        hdr = {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": f"agent{i}"}
        r = requests.post(
            dep.public + "/v2/notes/ingest",
            json={"scope": "agent_private", "notes": notes_for(i)},
            headers=hdr,
            timeout=120,
        )
        assert r.status_code == 200, r.text

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(NOTE_AGENTS)))
    ingest_s = time.monotonic() - t0
    wait_outboxes_done(dep, timeout=300)
    indexed_s = time.monotonic() - t0
    bytes1, notes1 = db_bytes_and_notes(dep.pg.owner_dsn)
    added = notes1 - notes0
    assert added >= NOTE_AGENTS * 9, added  # nearly every note is new (the resolver may merge a rare pair)

    def put_doc(i: int) -> int:
        body = doc_text(i)
        hdr = {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": "docs"}
        r = requests.post(
            dep.public + "/v2/docs",
            headers=hdr,
            timeout=120,
            json={"scope": "agent_private", "title": f"Runbook {i}", "content": body},
        )
        assert r.status_code == 200, r.text
        return len(body.encode())

    with ThreadPoolExecutor(2) as pool:
        doc_bytes = sum(pool.map(put_doc, range(DOCS)))
    wait_outboxes_done(dep, timeout=300)
    bytes_docs, _ = db_bytes_and_notes(dep.pg.owner_dsn)
    doc_points = rows(
        dep.pg.owner_dsn,
        "SELECT count(*) FROM doc_chunks c JOIN doc_documents d USING (doc_id) WHERE d.tenant_id = %s",
        (tenant,),
    )[0][0]

    def read(i: int) -> float:
        hdr = {
            "X-ELF-Tenant-Id": tenant,
            "X-ELF-Project-Id": "p1",
            "X-ELF-Agent-Id": f"agent{i % NOTE_AGENTS}",
            "X-ELF-Read-Profile": "private_plus_project",
        }
        q = [
            "Which port does the service listen on?",
            "When does the nightly backup run?",
            "Where does the user live?",
            "Which language does the user prefer for tools?",
        ][i % 4]
        s = time.monotonic()
        r = requests.post(
            dep.public + "/v2/searches",
            headers=hdr,
            timeout=60,
            json={"query": q, "mode": "quick_find" if i % 2 else "planned_search"},
        )
        assert r.status_code == 200 and r.json()["items"], r.text
        return time.monotonic() - s

    with ThreadPoolExecutor(4) as pool:
        latencies = sorted(pool.map(read, range(SEARCHES)))
    wait_for(
        lambda: not rows(dep.pg.owner_dsn, "SELECT 1 FROM search_trace_outbox WHERE status <> 'DONE'"),
        60,
        "the worker to write the search traces",
    )
    bytes2, _ = db_bytes_and_notes(dep.pg.owner_dsn)
    points = rows(
        dep.pg.owner_dsn,
        "SELECT count(*) FROM memory_note_chunks c JOIN memory_notes n USING (note_id) WHERE n.tenant_id = %s",
        (tenant,),
    )[0][0]
    MEASURED["memory_after_load"] = memory_of(dep)
    MEASURED["load"] = {
        "notes_added": added,
        "ingest_s": round(ingest_s, 1),
        "indexed_s": round(indexed_s, 1),
        "searches": SEARCHES,
        "search_median_ms": round(latencies[len(latencies) // 2] * 1000),
        "search_max_ms": round(latencies[-1] * 1000),
    }
    MEASURED["postgres_bytes_per_note"] = round((bytes1 - bytes0) / added)
    MEASURED["postgres_bytes_per_search_trace"] = round((bytes2 - bytes_docs) / SEARCHES)
    MEASURED["postgres_bytes_per_document_kb"] = round((bytes_docs - bytes1) / (doc_bytes / 1024))
    MEASURED["qdrant_points_per_document_kb"] = round(doc_points / (doc_bytes / 1024), 2)
    MEASURED["postgres_database_bytes"] = bytes2
    MEASURED["qdrant_points_per_note"] = round(points / added, 2)
