"""Apply the SQL schema under ``sql/`` at start-up.

``sql/init.sql`` is written for psql (``psql -v vector_dim=384 -f sql/init.sql``): plain SQL plus
``\\ir tables/NNN_name.sql`` include lines, with vector columns written ``vector(:vector_dim)``.
:func:`apply_schema` reproduces what psql does with that file, without psql: each ``\\ir`` line is
replaced by the included file (in order, relative to ``sql_dir``), ``:vector_dim`` is substituted with the
configured dimension, and every part runs in one transaction under an advisory lock, so concurrent
start-ups (API, worker) apply the schema one at a time and a failure leaves nothing half-applied.
"""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

# pg_advisory_xact_lock key that serialises schema application: the ASCII bytes "ELFSCHEM" read as a
# big-endian signed 64-bit integer (0x454C46534348454D). Every ELF process uses the same key.
SCHEMA_LOCK_KEY = int.from_bytes(b"ELFSCHEM", "big", signed=True)

# The psql variable token. The look-behind keeps ``::vector_dim`` (a cast) and ``x:vector_dim`` untouched;
# the look-ahead keeps longer identifiers such as ``:vector_dims`` untouched.
_VECTOR_DIM_TOKEN = re.compile(r"(?<![\w:]):vector_dim(?!\w)")
_INCLUDE_LINE = re.compile(r"^\s*\\ir\s+(\S+)\s*$")

# Tables whose ``vec`` column is ``vector(:vector_dim)``.
VECTOR_TABLES = ("note_chunk_embeddings", "note_embeddings", "doc_chunk_embeddings")

# Spec v2 section 5: table -> named indexes.
SPEC_INDEXES: dict[str, tuple[str, ...]] = {
    "memory_notes": ("idx_notes_scope_status", "idx_notes_key", "idx_notes_expires"),
    "memory_note_chunks": ("idx_note_chunks_note", "idx_note_chunks_note_index"),
    "note_chunk_embeddings": (),
    "note_embeddings": (),
    "memory_note_versions": (),
    "memory_hits": (),
    "indexing_outbox": ("idx_outbox_status_available", "idx_outbox_note_op_status"),
    "search_traces": ("idx_search_traces_expires", "idx_search_traces_context"),
    "search_trace_items": ("idx_search_trace_items_trace", "idx_search_trace_items_note"),
    "search_trace_stages": ("idx_search_trace_stages_trace_order", "idx_search_trace_stages_trace_name"),
    "search_trace_stage_items": ("idx_search_trace_stage_items_stage_item",),
    "search_trace_outbox": ("idx_trace_outbox_status_available", "idx_trace_outbox_trace_status"),
    "llm_cache": ("idx_llm_cache_key", "idx_llm_cache_expires"),
    "memory_ingest_decisions": ("idx_memory_ingest_decisions_tenant_scope_pipeline",),
}

# Tables beyond spec section 5 (supplement, doc extension, API-backing tables): table -> named indexes
# that carry a contract (uniqueness rules, lookups the specs require).
EXTRA_INDEXES: dict[str, tuple[str, ...]] = {
    "memory_note_fields": ("uq_memory_note_fields_note_kind_index",),
    "memory_space_grants": ("uq_memory_space_grants_active", "idx_memory_space_grants_grantee"),
    "memory_ingestion_profiles": ("uq_memory_ingestion_profiles_version",),
    "memory_ingestion_profile_defaults": (),
    "search_sessions": ("idx_search_sessions_expires", "idx_search_sessions_context"),
    "search_trace_candidates": ("idx_search_trace_candidates_trace", "idx_search_trace_candidates_expires"),
    "graph_entities": ("uq_graph_entities_canonical_norm",),
    "graph_entity_aliases": (
        "uq_graph_entity_aliases_entity_alias_norm",
        "idx_graph_entity_aliases_alias_norm",
    ),
    "graph_predicates": ("uq_graph_predicates_scope_canonical_norm",),
    "graph_predicate_aliases": ("uq_graph_predicate_aliases_scope_alias_norm",),
    "graph_facts": ("uq_graph_facts_open_object_entity", "uq_graph_facts_open_object_value"),
    "graph_fact_evidence": ("uq_graph_fact_evidence_fact_note",),
    "graph_fact_supersessions": (),
    "doc_documents": ("idx_doc_documents_scope_status_updated",),
    "doc_chunks": ("uq_doc_chunks_doc_index",),
    "doc_chunk_embeddings": (),
    "doc_indexing_outbox": ("idx_doc_outbox_status_available", "idx_doc_outbox_doc_op_status"),
    "core_memory_documents": ("uq_core_memory_documents_workspace",),
    "core_memory_versions": ("uq_core_memory_versions_doc_version",),
    "core_memory_entries": ("idx_core_memory_entries_lookup",),
    "core_memory_audit": ("idx_core_memory_audit_run",),
    "core_memory_pending": ("idx_core_memory_pending_run",),
    "acb_events": ("idx_acb_events_tenant_ts", "idx_acb_events_tenant_session_ts", "idx_acb_events_tags_gin"),
    "acb_chunks": ("uq_acb_chunks_event_ord", "idx_acb_chunks_tenant_ts", "idx_acb_chunks_session_recent",
                   "idx_acb_chunks_tenant_tsv_gin"),
    "acb_decisions": ("idx_acb_decisions_tenant_status_ts", "idx_acb_decisions_tsv_gin"),
    "acb_tasks": ("idx_acb_tasks_tenant_status_ts",),
    "acb_artifacts": ("idx_acb_artifacts_tenant_ts",),
    "acb_sessions": ("uq_acb_sessions_session", "idx_acb_sessions_last"),
    "acb_bundles": ("idx_acb_bundles_created", "idx_acb_bundles_session"),
}


class SchemaError(RuntimeError):
    """The schema cannot be applied: bad input, a malformed sql/ tree, or an incompatible database."""

# Indexes beyond the spec on its tables, for the queries the service runs.
QUERY_INDEXES: dict[str, tuple[str, ...]] = {
    "memory_notes": ("idx_notes_resolver_group", "idx_acb_note_text_fts"),
}


def expected_tables() -> tuple[str, ...]:
    """Every table the schema creates: spec v2 section 5 first, then the extra tables."""
    return (*SPEC_INDEXES, *EXTRA_INDEXES)


def expected_indexes() -> dict[str, str]:
    """Named indexes the schema must create, mapped to their table."""
    return {
        index: table
        for mapping in (SPEC_INDEXES, EXTRA_INDEXES, QUERY_INDEXES)
        for table, indexes in mapping.items()
        for index in indexes
    }


def render_schema(vector_dim: int, sql_dir: Path) -> list[tuple[str, str]]:
    """Expand ``sql_dir/init.sql`` into ``(source, sql)`` parts in execution order.

    Runs of plain lines of init.sql form one part each; every ``\\ir`` line becomes the content of the
    included file. ``:vector_dim`` is replaced with the integer in every part.
    """
    dim = _validated_dim(vector_dim)
    init_path = Path(sql_dir) / "init.sql"
    parts: list[tuple[str, str]] = []
    pending: list[str] = []

    def flush() -> None:
        text = "".join(pending)
        if text.strip():
            parts.append(("init.sql", text))
        pending.clear()

    for line in _read(init_path).splitlines(keepends=True):
        include = _INCLUDE_LINE.match(line)
        if include:
            flush()
            relative = include.group(1)
            parts.append((relative, _read(init_path.parent / relative)))
        elif line.lstrip().startswith("\\"):
            raise SchemaError(f"init.sql: unsupported psql meta-command {line.strip()!r}")
        else:
            pending.append(line)
    flush()

    rendered = []
    for source, text in parts:
        if source != "init.sql" and any(line.lstrip().startswith("\\") for line in text.splitlines()):
            raise SchemaError(f"{source}: psql meta-commands are only supported in init.sql")
        rendered.append((source, _VECTOR_DIM_TOKEN.sub(str(dim), text)))
    return rendered


def apply_schema(dsn: str, vector_dim: int, sql_dir: Path) -> None:
    """Create the ELF schema in the database at ``dsn`` (idempotent).

    Raises :class:`SchemaError` when ``vector_dim`` is not a positive integer, when ``sql/`` cannot be
    expanded, or when the database already holds vector tables of another dimension.
    """
    parts = render_schema(vector_dim, sql_dir)
    with psycopg.connect(dsn, autocommit=False) as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
            _check_vector_dim(cur, vector_dim)
            cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
            for source, sql in parts:
                try:
                    cur.execute(sql)
                except psycopg.Error as exc:
                    raise SchemaError(f"{source}: {exc}") from exc
        conn.commit()


def _check_vector_dim(cur: psycopg.Cursor, vector_dim: int) -> None:
    cur.execute(
        """
        SELECT c.relname, format_type(a.atttypid, a.atttypmod)
        FROM pg_attribute AS a
        JOIN pg_class AS c ON c.oid = a.attrelid
        JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema()
          AND c.relname = ANY(%s)
          AND a.attname = 'vec'
          AND a.attnum > 0
          AND NOT a.attisdropped
        ORDER BY array_position(%s, c.relname::text)
        """,
        (list(VECTOR_TABLES), list(VECTOR_TABLES)),
    )
    expected = f"vector({vector_dim})"
    for table, found in cur.fetchall():
        if found != expected:
            raise SchemaError(
                f"database has {found} in {table}.vec but storage.qdrant.vector_dim is {vector_dim}; "
                "the schema cannot change a vector dimension in place: set vector_dim back to match "
                "the database, or use a new database and re-embed."
            )


def _validated_dim(vector_dim: object) -> int:
    if isinstance(vector_dim, bool) or not isinstance(vector_dim, int) or vector_dim <= 0:
        raise SchemaError(f"vector_dim must be a positive integer, got {vector_dim!r}")
    return vector_dim


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SchemaError(f"cannot read schema file {path}: {exc}") from exc
