"""Export and import of a tenant (issue 19 item 2) on real services: manage.py export_tenant writes a tenant's
rows as JSON lines, import_tenant loads them into a fresh database (under the same or another tenant name) and
queues the re-indexing; the same searches then return the same notes, and the imported tenant exports to the
same records. Refusals (clashing ids, a tenant that holds data, a cut file) write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elf_project.portability import SPECS
from tests.conftest import EMBED_PATH
from tests.notes_helpers import ingest, note, rows
from tests.portability_helpers import (
    SEARCHES,
    manage,
    search_ids,
    seed_tenant,
    start_services,
    wait_outboxes_done,
)

TENANT, OTHER, RENAMED = "acme", "globex", "initech"


@pytest.fixture(scope="module")
def source(isolated_services_module):
    """Two seeded tenants on a running API and worker, indexed; the search results of TENANT."""
    s = isolated_services_module("export_src")
    start_services(s)
    ids = seed_tenant(s, TENANT)
    seed_tenant(s, OTHER)
    other_project = ingest(s, [note("Fact: the staging cluster has six nodes.")], tenant=TENANT, project="p2")
    assert other_project.json()["results"][0]["op"] == "ADD", other_project.text
    wait_outboxes_done(s)
    s.searched = {query: search_ids(s, query, TENANT) for query, _ in SEARCHES}
    for query, key in SEARCHES:
        assert s.searched[query][0] == ids[key], (query, s.searched[query])
    return s


@pytest.fixture(scope="module")
def exports(source, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("exports")
    files = {"plain": folder / "acme.jsonl", "vectors": folder / "acme-vectors.jsonl"}
    for name, extra in (("plain", ()), ("vectors", ("--with-vectors",))):
        done = manage(source, "export_tenant", "--tenant", TENANT, "--out", str(files[name]), *extra)
        assert done.returncode == 0, done.stderr
    return files


def records(path: Path) -> list[dict]:
    """The rows of an export file (header left out)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["kind"] == "elf_export" and lines[-1]["kind"] == "elf_export_end"
    return lines[1:-1]


def by_predicate_name(lines: list[dict]) -> list[dict]:
    """The records with each shared (global or project) predicate named by its scope and name instead of its id
    and timestamps: every database seeds the global registry under ids of its own, and an import keeps the
    target's row of the same name, so those are all that may differ after a move."""
    lines = json.loads(json.dumps(lines))
    names = {r["row"]["predicate_id"]: f'{r["row"]["scope_key"]}/{r["row"]["canonical_norm"]}'
             for r in lines if r["kind"] == "graph_predicates_shared"}
    for r in lines:
        if r["kind"] == "graph_predicates_shared":
            for column in ("predicate_id", "created_at", "updated_at"):
                del r["row"][column]
        elif r["kind"] == "graph_facts":
            r["row"]["predicate_id"] = names.get(r["row"]["predicate_id"], r["row"]["predicate_id"])
    return lines


def global_predicates(svc) -> list[tuple]:
    return rows(svc, "SELECT predicate_id::text, canonical_norm, cardinality, status FROM graph_predicates "
                     "WHERE scope_key = '__global__' ORDER BY canonical_norm")


def fact_predicates(svc, tenant: str) -> list[tuple]:
    """(scope_key, predicate name, predicate_id) of the tenant's facts."""
    return sorted(rows(svc, "SELECT p.scope_key, p.canonical_norm, p.predicate_id::text FROM graph_facts f "
                            "JOIN graph_predicates p USING (predicate_id) WHERE f.tenant_id = %s", (tenant,)))


def renamed(lines: list[dict], old: str, new: str) -> list[dict]:
    return json.loads(json.dumps(lines).replace(f'"{old}"', f'"{new}"').replace(f'"{old}:', f'"{new}:'))


def lines_of_p2(lines: list[dict]) -> list[dict]:
    """The records of project p2: its note and that note's version and ingest decision."""
    notes = {r["row"]["note_id"] for r in lines if r["kind"] == "memory_notes" and r["row"]["project_id"] == "p2"}
    return [r for r in lines if r["row"].get("project_id") == "p2" or r["row"].get("note_id") in notes]


def tenant_counts(svc, tenant: str) -> dict[str, int]:
    """Rows per exported kind that belong to ``tenant`` (the export's own selection rules)."""
    return {spec.name: rows(svc, f"SELECT count(*) FROM {spec.table} t WHERE {spec.where}",
                            {"tenant": tenant, "project": None})[0][0] for spec in SPECS if not spec.vectors}


def test_the_export_holds_every_kind_of_the_tenant_and_nothing_else(source, exports, tmp_path):
    lines = records(exports["plain"])
    kinds = {r["kind"] for r in lines}
    assert kinds >= {
        "memory_notes",
        "memory_note_versions",
        "memory_note_fields",
        "memory_ingest_decisions",
        "memory_space_grants",
        "memory_ingestion_profiles",
        "memory_ingestion_profile_defaults",
        "doc_documents",
        "doc_chunks",
        "graph_entities",
        "graph_predicates_shared",
        "graph_predicates",
        "graph_facts",
        "graph_fact_evidence",
        "core_memory_documents",
        "core_memory_versions",
        "core_memory_entries",
        "core_memory_audit",
        "core_memory_pending",
        "acb_events",
        "acb_chunks",
        "acb_decisions",
        "acb_tasks",
        "acb_sessions",
    }
    assert not kinds & {"memory_note_chunks", "note_chunk_embeddings", "note_embeddings", "doc_chunk_embeddings"}
    # The tenant's own predicate travels as its row; the global one its facts use as a shared row (no tenant).
    own = [r for r in lines if r["kind"] != "graph_predicates_shared"]
    assert {r["row"]["tenant_id"] for r in own if "tenant_id" in r["row"]} == {TENANT}
    assert {(r["row"]["scope_key"], r["row"]["canonical_norm"]) for r in lines if r["kind"] == "graph_predicates"} == {
        (f"{TENANT}:p1", "leads since")
    }
    assert [
        (r["row"]["scope_key"], r["row"]["tenant_id"], r["row"]["canonical_norm"], r["row"]["status"])
        for r in lines
        if r["kind"] == "graph_predicates_shared"
    ] == [("__global__", None, "leads", "active")]
    assert OTHER not in exports["plain"].read_text()
    with_vectors = {r["kind"] for r in records(exports["vectors"])}
    assert with_vectors - kinds == {
        "memory_note_chunks",
        "note_chunk_embeddings",
        "note_embeddings",
        "doc_chunk_embeddings",
    }

    one_project = tmp_path / "p1.jsonl"
    done = manage(source, "export_tenant", "--tenant", TENANT, "--project", "p1", "--out", str(one_project))
    assert done.returncode == 0, done.stderr
    in_p2 = lines_of_p2(lines)
    assert {r["kind"] for r in in_p2} == {"memory_notes", "memory_note_versions", "memory_ingest_decisions"}
    assert records(one_project) == [r for r in lines if r not in in_p2]


def test_a_round_trip_into_a_fresh_database_returns_the_same_notes(source, exports, isolated_services_module):
    target = isolated_services_module("import_dst")
    start_services(target)
    embedded = len(target.fake.requests_to(EMBED_PATH))
    registry = global_predicates(target)
    assert {r[0] for r in registry}.isdisjoint(r[0] for r in global_predicates(source))  # seeded ids per database
    done = manage(target, "import_tenant", "--in", str(exports["plain"]))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tenant_id"] == TENANT and report["reindex"] == {"notes": 4, "docs": 1}

    assert tenant_counts(target, TENANT) == tenant_counts(source, TENANT)
    # The fact under the global "leads" now uses the target's own global row, which the import left as it was.
    assert global_predicates(target) == registry
    leads = next(r[0] for r in registry if r[1] == "leads")
    assert [(scope, name) for scope, name, _ in fact_predicates(target, TENANT)] == [
        (scope, name) for scope, name, _ in fact_predicates(source, TENANT)
    ]
    assert ("__global__", "leads", leads) in fact_predicates(target, TENANT)
    again = exports["plain"].with_name("again.jsonl")
    assert manage(target, "export_tenant", "--tenant", TENANT, "--out", str(again)).returncode == 0
    assert by_predicate_name(records(again)) == by_predicate_name(records(exports["plain"]))  # column for column

    wait_outboxes_done(target)
    assert len(target.fake.requests_to(EMBED_PATH)) > embedded  # no vectors in the file: the worker embedded
    assert {query: search_ids(target, query, TENANT) for query, _ in SEARCHES} == source.searched


def test_an_export_made_before_artifacts_had_a_project_still_imports(
    source, exports, isolated_services_module, tmp_path
):
    """An export written before migration 0004 has no acb_artifacts.project_id: the row takes its event's. It
    also predates the global predicate registry (0007): "leads" was then the tenant's own pending/multi
    predicate, and that row imports as it is, its facts on it, beside the global "leads" (another scope key)."""
    lines = [json.loads(line) for line in exports["plain"].read_text().splitlines()]
    artifacts = [r["row"] for r in lines if r["kind"] == "acb_artifacts"]
    assert artifacts and all(a["project_id"] == "p1" for a in artifacts)
    for a in artifacts:
        del a["project_id"]
    (shared,) = [r["row"] for r in lines if r["kind"] == "graph_predicates_shared"]
    assert (shared["scope_key"], shared["canonical_norm"]) == ("__global__", "leads")
    leads = {
        **shared,
        "scope_key": f"{TENANT}:p1",
        "tenant_id": TENANT,
        "project_id": "p1",
        "cardinality": "multi",
        "status": "pending",
    }
    lines = [r for r in lines if r["kind"] != "graph_predicates_shared"]
    at = next(i for i, r in enumerate(lines) if r["kind"] == "graph_predicates")
    lines.insert(at, {"kind": "graph_predicates", "row": leads})
    lines[0]["schema_version"] = 3
    counts = lines[-1]["counts"]
    counts["graph_predicates"] += counts.pop("graph_predicates_shared")
    old = tmp_path / "before-0004.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in lines))
    target = isolated_services_module("import_old")
    done = manage(target, "import_tenant", "--in", str(old), "--tenant", "oldco")
    assert done.returncode == 0, done.stderr
    got = rows(target, "SELECT artifact_id, project_id FROM acb_artifacts WHERE tenant_id = %s", ("oldco",))
    assert sorted(got) == sorted((a["artifact_id"], "p1") for a in artifacts)
    own = {r["row"]["canonical_norm"]: r["row"]["predicate_id"] for r in lines if r["kind"] == "graph_predicates"}
    assert fact_predicates(target, "oldco") == sorted(("oldco:p1", name, pid) for name, pid in own.items())
    assert ("leads", "single", "active") in [r[1:] for r in global_predicates(target)]  # the schema's seed


def test_an_import_with_vectors_under_another_name_embeds_nothing(source, exports, isolated_services_module):
    target = isolated_services_module("import_vec")
    start_services(target)
    embedded = len(target.fake.requests_to(EMBED_PATH))
    done = manage(target, "import_tenant", "--in", str(exports["vectors"]), "--tenant", RENAMED)
    assert done.returncode == 0, done.stderr
    wait_outboxes_done(target)
    assert len(target.fake.requests_to(EMBED_PATH)) == embedded  # the index came from the exported vectors
    assert rows(target, "SELECT count(*) FROM indexing_outbox WHERE status = 'DONE'")[0][0] == 4
    # The tables it wrote were analyzed: the planner counts the imported rows (a new table reads -1 until then,
    # and autovacuum never analyzes a table this small).
    for table in ("memory_notes", "memory_note_chunks", "note_embeddings"):
        (estimate, actual), = rows(target, f"SELECT (SELECT reltuples FROM pg_class WHERE relname = %s), "
                                          f"(SELECT count(*) FROM {table})", (table,))
        assert actual > 0 and estimate == actual, (table, estimate, actual)

    again = exports["plain"].with_name("renamed.jsonl")
    assert manage(target, "export_tenant", "--tenant", RENAMED, "--out", str(again)).returncode == 0
    assert by_predicate_name(records(again)) == by_predicate_name(renamed(records(exports["plain"]), TENANT, RENAMED))
    assert {query: search_ids(target, query, RENAMED) for query, _ in SEARCHES} == source.searched
    assert search_ids(target, SEARCHES[0][0], TENANT) == []

    # The same ids cannot come in twice, under any name; a tenant holding data takes no import; a cut file is
    # refused. None of them writes a row.
    before = tenant_counts(target, RENAMED)
    clash = manage(target, "import_tenant", "--in", str(exports["plain"]))
    assert clash.returncode != 0 and "memory_notes: rows with the ids of the file are already in" in clash.stderr
    full = manage(target, "import_tenant", "--in", str(exports["plain"]), "--tenant", RENAMED)
    assert full.returncode != 0 and f"tenant '{RENAMED}' already holds data (memory_notes" in full.stderr
    # Cut after rows whose key is the tenant (no id clash under a new name): the missing end record refuses it.
    lines = exports["plain"].read_text().splitlines(keepends=True)
    cut = exports["plain"].with_name("cut.jsonl")
    cut.write_text(lines[0] + "".join(x for x in lines if '"kind":"memory_ingestion_profile_defaults"' in x))
    short = manage(target, "import_tenant", "--in", str(cut), "--tenant", "umbrella")
    assert short.returncode != 0 and "the file is incomplete" in short.stderr
    assert tenant_counts(target, RENAMED) == before
    assert not any(tenant_counts(target, TENANT).values()) and not any(tenant_counts(target, "umbrella").values())
