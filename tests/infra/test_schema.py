"""Schema tests: sql/ applied through elf_project.db_init on a fresh, throwaway database.

Needs the ``pg_admin_dsn`` fixture (superuser DSN of a Postgres server with pgvector) from conftest.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from psycopg import errors, sql
from psycopg.conninfo import make_conninfo

from elf_project.db_init import (
    VECTOR_TABLES,
    SchemaError,
    apply_schema,
    expected_indexes,
    expected_tables,
    load_migrations,
    render_schema,
)

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
DIM = 384

SPEC_TABLES = {
    "memory_notes",
    "memory_note_chunks",
    "note_chunk_embeddings",
    "note_embeddings",
    "memory_note_versions",
    "memory_hits",
    "indexing_outbox",
    "search_traces",
    "search_trace_items",
    "search_trace_stages",
    "search_trace_stage_items",
    "search_trace_outbox",
    "llm_cache",
    "memory_ingest_decisions",
}
# Spec v2 section 5: index -> table.
SPEC_INDEXES = {
    "idx_notes_scope_status": "memory_notes",
    "idx_notes_key": "memory_notes",
    "idx_notes_expires": "memory_notes",
    "idx_note_chunks_note": "memory_note_chunks",
    "idx_note_chunks_note_index": "memory_note_chunks",
    "idx_outbox_status_available": "indexing_outbox",
    "idx_outbox_note_op_status": "indexing_outbox",
    "idx_search_traces_expires": "search_traces",
    "idx_search_traces_context": "search_traces",
    "idx_search_trace_items_trace": "search_trace_items",
    "idx_search_trace_items_note": "search_trace_items",
    "idx_search_trace_stages_trace_order": "search_trace_stages",
    "idx_search_trace_stages_trace_name": "search_trace_stages",
    "idx_search_trace_stage_items_stage_item": "search_trace_stage_items",
    "idx_trace_outbox_status_available": "search_trace_outbox",
    "idx_trace_outbox_trace_status": "search_trace_outbox",
    "idx_llm_cache_key": "llm_cache",
    "idx_llm_cache_expires": "llm_cache",
    "idx_memory_ingest_decisions_tenant_scope_pipeline": "memory_ingest_decisions",
}
EXTRA_TABLES = {
    "acb_events", "acb_chunks", "acb_chunk_writes", "acb_chunk_epochs", "acb_decisions", "acb_tasks", "acb_artifacts",
    "acb_sessions", "acb_bundles",
    "core_memory_documents",
    "core_memory_versions",
    "core_memory_entries",
    "core_memory_audit",
    "core_memory_pending",
    "memory_space_grants",
    "search_sessions",
    "memory_note_fields",
    "memory_ingestion_profiles",
    "memory_ingestion_profile_defaults",
    "search_trace_candidates",
    "graph_entities",
    "graph_entity_aliases",
    "graph_predicates",
    "graph_predicate_aliases",
    "graph_facts",
    "graph_fact_evidence",
    "graph_fact_supersessions",
    "doc_documents",
    "doc_chunks",
    "doc_chunk_embeddings",
    "doc_indexing_outbox",
}


@contextmanager
def _scratch_database(pg_admin_dsn: str) -> Iterator[str]:
    """A new, uniquely named empty database; dropped on exit. Yields its DSN."""
    name = f"elf_schema_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(pg_admin_dsn, dbname=name)
    finally:
        with psycopg.connect(pg_admin_dsn, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def schema_dsn(pg_admin_dsn: str):
    with _scratch_database(pg_admin_dsn) as dsn:
        apply_schema(dsn, DIM, SQL_DIR)
        apply_schema(dsn, DIM, SQL_DIR)
        yield dsn


@pytest.fixture
def db(schema_dsn: str):
    """A connection whose work is rolled back at the end of the test."""
    with psycopg.connect(schema_dsn, autocommit=True) as conn, conn.transaction(force_rollback=True):
        yield conn


def _snapshot(dsn: str) -> tuple[set[str], dict[str, tuple[str, str]]]:
    with psycopg.connect(dsn) as conn:
        tables = {
            row[0]
            for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
        indexes = {
            name: (table, definition)
            for name, table, definition in conn.execute(
                "SELECT indexname, tablename, indexdef FROM pg_indexes WHERE schemaname = 'public'"
            )
        }
    return tables, indexes


def _vector_types(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            """
            SELECT c.relname, format_type(a.atttypid, a.atttypmod)
            FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
            WHERE c.relname = ANY(%s) AND a.attname = 'vec' AND NOT a.attisdropped
            """,
            (list(VECTOR_TABLES),),
        ).fetchall()
    return dict(rows)


def test_expected_tables_cover_spec_and_extras():
    assert set(expected_tables()) == SPEC_TABLES | EXTRA_TABLES
    assert len(expected_tables()) == len(set(expected_tables()))


def test_every_table_exists(schema_dsn):
    tables, _ = _snapshot(schema_dsn)
    assert set(expected_tables()) <= tables


def test_expected_indexes_cover_spec():
    assert SPEC_INDEXES.items() <= expected_indexes().items()


def test_every_named_index_exists_on_its_table(schema_dsn):
    _, indexes = _snapshot(schema_dsn)
    missing = {name for name in expected_indexes() if name not in indexes}
    assert not missing
    assert {name: indexes[name][0] for name in expected_indexes()} == expected_indexes()


def test_spec_index_shapes(schema_dsn):
    _, indexes = _snapshot(schema_dsn)
    assert indexes["idx_notes_key"][1].endswith("WHERE (key IS NOT NULL)")
    assert "(tenant_id, project_id, agent_id, scope, type, key)" in indexes["idx_notes_key"][1]
    assert indexes["idx_llm_cache_key"][1].startswith("CREATE UNIQUE INDEX")
    assert "(cache_kind, cache_key)" in indexes["idx_llm_cache_key"][1]
    assert "(tenant_id, project_id, agent_id, scope, pipeline, ts)" in (
        indexes["idx_memory_ingest_decisions_tenant_scope_pipeline"][1]
    )
    assert indexes["note_chunk_embeddings_pkey"][1].endswith("(chunk_id, embedding_version)")
    assert indexes["note_embeddings_pkey"][1].endswith("(note_id, embedding_version)")


def test_apply_twice_is_idempotent(schema_dsn):
    before = _snapshot(schema_dsn)
    apply_schema(schema_dsn, DIM, SQL_DIR)
    assert _snapshot(schema_dsn) == before


def test_concurrent_start_ups_serialise_on_the_advisory_lock(pg_admin_dsn):
    with _scratch_database(pg_admin_dsn) as dsn, ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: apply_schema(dsn, DIM, SQL_DIR), range(4)))
        # One start-up applied every migration; the others, waiting on the lock, found nothing left to do.
        assert sorted(results, key=len) == [[], [], [], [m.name for m in load_migrations(SQL_DIR)]]
        tables, _ = _snapshot(dsn)
        assert set(expected_tables()) <= tables


def test_vector_columns_use_configured_dimension(schema_dsn):
    assert _vector_types(schema_dsn) == {table: f"vector({DIM})" for table in VECTOR_TABLES}


def test_other_dimension_is_refused(schema_dsn):
    with pytest.raises(SchemaError) as excinfo:
        apply_schema(schema_dsn, 768, SQL_DIR)
    message = str(excinfo.value)
    assert "vector(384)" in message
    assert "768" in message
    assert _vector_types(schema_dsn)["note_chunk_embeddings"] == "vector(384)"


@pytest.mark.parametrize("bad", [0, -1, True, "384", 384.0, None])
def test_vector_dim_must_be_positive_int(bad):
    with pytest.raises(SchemaError, match="positive integer"):
        render_schema(bad, SQL_DIR)


def test_render_expands_includes_in_order_and_substitutes_exact_token(tmp_path):
    (tmp_path / "tables").mkdir()
    (tmp_path / "init.sql").write_text(
        "CREATE EXTENSION IF NOT EXISTS vector;\n\\ir tables/b.sql\n-- between\n\\ir tables/a.sql\n"
    )
    (tmp_path / "tables" / "b.sql").write_text("CREATE TABLE b (v vector(:vector_dim));\n")
    (tmp_path / "tables" / "a.sql").write_text(
        "SELECT :vector_dim, x::vector_dim, :vector_dims, a:vector_dim, :vector_dim_x;\n"
    )

    parts = render_schema(12, tmp_path)

    assert [source for source, _ in parts] == ["init.sql", "tables/b.sql", "init.sql", "tables/a.sql"]
    assert parts[1][1] == "CREATE TABLE b (v vector(12));\n"
    assert parts[3][1] == "SELECT 12, x::vector_dim, :vector_dims, a:vector_dim, :vector_dim_x;\n"


def test_render_rejects_other_meta_commands(tmp_path):
    (tmp_path / "init.sql").write_text("\\set vector_dim 3\n")
    with pytest.raises(SchemaError, match="meta-command"):
        render_schema(3, tmp_path)


def test_render_reports_missing_include(tmp_path):
    (tmp_path / "init.sql").write_text("\\ir tables/missing.sql\n")
    with pytest.raises(SchemaError, match="missing.sql"):
        render_schema(3, tmp_path)


def _grant(conn, *, kind: str, grantee: str | None, owner: str = "owner") -> None:
    conn.execute(
        """
        INSERT INTO memory_space_grants (grant_id, tenant_id, project_id, scope, space_owner_agent_id,
                                         grantee_kind, grantee_agent_id, granted_by_agent_id)
        VALUES (%s, 't', 'p', 'project_shared', %s, %s, %s, %s)
        """,
        (uuid.uuid4(), owner, kind, grantee, owner),
    )


def test_one_active_grant_per_grantee(db):
    _grant(db, kind="project", grantee=None)
    _grant(db, kind="agent", grantee="bob")
    for kind, grantee in (("project", None), ("agent", "bob")):
        with pytest.raises(errors.UniqueViolation), db.transaction():
            _grant(db, kind=kind, grantee=grantee)

    db.execute(
        "UPDATE memory_space_grants SET revoked_at = now(), revoked_by_agent_id = 'owner' "
        "WHERE grantee_kind = 'project'"
    )
    _grant(db, kind="project", grantee=None)


@pytest.mark.parametrize(
    ("kind", "grantee"),
    [("agent", "owner"), ("agent", None), ("project", "bob"), ("team", None)],
)
def test_grant_grantee_rules(db, kind, grantee):
    with pytest.raises(errors.CheckViolation):
        _grant(db, kind=kind, grantee=grantee)


def _entity(conn, name: str) -> uuid.UUID:
    entity_id = uuid.uuid4()
    conn.execute(
        "INSERT INTO graph_entities (entity_id, tenant_id, project_id, canonical, canonical_norm) "
        "VALUES (%s, 't', 'p', %s, %s)",
        (entity_id, name, name.lower()),
    )
    return entity_id


def _fact(conn, subject, predicate_id, *, entity=None, value=None, valid_to=None) -> None:
    conn.execute(
        """
        INSERT INTO graph_facts (fact_id, tenant_id, project_id, agent_id, scope, subject_entity_id,
                                 predicate, predicate_id, object_entity_id, object_value, valid_from, valid_to)
        VALUES (%s, 't', 'p', 'a', 'project_shared', %s, 'works at', %s, %s, %s, %s, %s)
        """,
        (uuid.uuid4(), subject, predicate_id, entity, value, datetime(2024, 1, 1, tzinfo=UTC), valid_to),
    )


def test_one_open_fact_per_object(db):
    alice, acme = _entity(db, "Alice"), _entity(db, "Acme")
    predicate_id = uuid.uuid4()
    db.execute(
        "INSERT INTO graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, "
        "canonical_norm, cardinality, status) VALUES (%s, 't:p', 't', 'p', 'works at', 'works at', "
        "'multi', 'pending')",
        (predicate_id,),
    )
    closed = datetime(2025, 1, 1, tzinfo=UTC)
    for obj in ({"entity": acme}, {"value": "Initech"}):
        _fact(db, alice, predicate_id, **obj)
        _fact(db, alice, predicate_id, **obj, valid_to=closed)
        with pytest.raises(errors.UniqueViolation), db.transaction():
            _fact(db, alice, predicate_id, **obj)

    for obj in ({}, {"entity": acme, "value": "Acme"}):
        with pytest.raises(errors.CheckViolation), db.transaction():
            _fact(db, alice, predicate_id, **obj)


@pytest.mark.parametrize(
    ("column", "value"),
    [("type", "opinion"), ("status", "archived"), ("scope", "team_shared"), ("importance", 1.5)],
)
def test_note_checks(db, column, value):
    row = {
        "note_id": uuid.uuid4(),
        "tenant_id": "t",
        "project_id": "p",
        "agent_id": "a",
        "scope": "agent_private",
        "type": "fact",
        "text": "Fact: the sky is blue.",
        "importance": 0.5,
        "confidence": 0.5,
        "status": "active",
        "embedding_version": "v1",
    }
    insert = sql.SQL("INSERT INTO memory_notes ({}) VALUES ({})").format(
        sql.SQL(", ").join(map(sql.Identifier, row)), sql.SQL(", ").join([sql.Placeholder()] * len(row))
    )
    with db.transaction():
        db.execute(insert, list(row.values()))
    row.update({"note_id": uuid.uuid4(), column: value})
    with pytest.raises(errors.CheckViolation):
        db.execute(insert, list(row.values()))
