"""Apply the SQL schema under ``sql/`` at start-up: the migrations a database lacks, in order.

``sql/migrations/NNNN_name.sql`` are the schema's history: ``0001_baseline`` is the schema of the last release
without versions (it includes ``sql/tables/*.sql``), each later file one change. Every migration is idempotent
(``CREATE ... IF NOT EXISTS``, ``ADD COLUMN IF NOT EXISTS`` ...), and once released it never changes.
:func:`apply_schema` creates the ``schema_version`` table (``sql/schema_version.sql``), runs the migrations not
recorded there in version order and records each (version, name, checksum, applied_at), all in one transaction
under an advisory lock, so concurrent start-ups (API, worker) apply them once and a failure leaves nothing
half-applied. A database made by a release before schema versions holds the baseline's tables without rows in
schema_version: the baseline runs (changing nothing, being idempotent) and is recorded, then the later files.

Migration files are written for psql: plain SQL plus ``\\ir path`` include lines (relative to the including
file), with vector columns written ``vector(:vector_dim)``. This module reproduces what psql does with them,
without psql: every ``\\ir`` line is replaced by the included file and ``:vector_dim`` by the configured
dimension. ``sql/init.sql`` includes schema_version.sql and every migration, for ``psql -f sql/init.sql``.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

# pg_advisory_xact_lock key that serialises schema application: the ASCII bytes "ELFSCHEM" read as a
# big-endian signed 64-bit integer (0x454C46534348454D). Every ELF process uses the same key.
SCHEMA_LOCK_KEY = int.from_bytes(b"ELFSCHEM", "big", signed=True)

# The psql variable token. The look-behind keeps ``::vector_dim`` (a cast) and ``x:vector_dim`` untouched;
# the look-ahead keeps longer identifiers such as ``:vector_dims`` untouched.
_VECTOR_DIM_TOKEN = re.compile(r"(?<![\w:]):vector_dim(?!\w)")
_INCLUDE_LINE = re.compile(r"^\s*\\ir\s+(\S+)\s*$")
_MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
MIGRATIONS_DIR = "migrations"
VERSION_TABLE_FILE = "schema_version.sql"
_MAX_INCLUDE_DEPTH = 8

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
    "acb_chunk_writes": ("idx_acb_chunk_writes_tenant_xid",),
    "acb_chunk_epochs": (),
    "acb_decisions": ("idx_acb_decisions_tenant_status_ts", "idx_acb_decisions_tsv_gin"),
    "acb_tasks": ("idx_acb_tasks_tenant_status_ts",),
    "acb_artifacts": ("idx_acb_artifacts_tenant_ts", "idx_acb_artifacts_project"),
    "acb_sessions": ("uq_acb_sessions_project_session", "idx_acb_sessions_last"),
    "acb_bundles": ("idx_acb_bundles_created", "idx_acb_bundles_session"),
}


class SchemaError(RuntimeError):
    """The schema cannot be applied: bad input, a malformed sql/ tree, or an incompatible database."""


# Indexes beyond the spec on its tables, for the queries the service runs (0002: export/import by tenant).
QUERY_INDEXES: dict[str, tuple[str, ...]] = {
    "memory_notes": ("idx_notes_resolver_group", "idx_acb_note_text_fts"),
    "memory_note_versions": ("idx_note_versions_tenant",),
    "memory_space_grants": ("idx_memory_space_grants_tenant",),
    "graph_predicates": ("idx_graph_predicates_tenant",),
    "graph_fact_supersessions": ("idx_graph_fact_supersessions_tenant",),
    # 0011: each outbox's claim reads its due rows in order from these partial indexes (elf_kernel.outbox_lease)
    "indexing_outbox": ("idx_outbox_due",),
    "doc_indexing_outbox": ("idx_doc_outbox_due",),
    "search_trace_outbox": ("idx_trace_outbox_due",),
}

# The table of applied migrations (sql/schema_version.sql); not one of the app tables above (no model maps it).
VERSION_TABLE = "schema_version"


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


@dataclass(frozen=True)
class Migration:
    """One file of sql/migrations: ``version`` from its 4-digit prefix, ``name`` its file stem."""

    version: int
    name: str
    parts: tuple[tuple[str, str], ...]  # (source file relative to sql/, text), includes expanded, not rendered

    @property
    def checksum(self) -> str:
        """SHA-256 of the expanded text: an edit to the file or to a file it includes changes it."""
        digest = hashlib.sha256()
        for _, text in self.parts:
            digest.update(text.encode("utf-8"))
        return digest.hexdigest()


def render_schema(vector_dim: int, sql_dir: Path) -> list[tuple[str, str]]:
    """Expand ``sql_dir/init.sql`` (what ``psql -f sql/init.sql`` runs) into ``(source, sql)`` parts in order.

    Runs of plain lines form one part each; every ``\\ir`` line becomes the parts of the included file, whose
    own includes are expanded the same way. ``:vector_dim`` is replaced with the integer in every part.
    """
    dim = _validated_dim(vector_dim)
    root = Path(sql_dir)
    return [(source, _render(text, dim)) for source, text in _expand(root / "init.sql", root)]


def load_migrations(sql_dir: Path) -> list[Migration]:
    """The migrations under ``sql_dir/migrations`` in version order; versions must run 1, 2, 3 ... with no gap
    or duplicate, so that every database applies the same sequence."""
    root = Path(sql_dir)
    folder = root / MIGRATIONS_DIR
    try:
        names = sorted(p.name for p in folder.iterdir() if p.suffix == ".sql")
    except OSError as exc:
        raise SchemaError(f"cannot list migrations in {folder}: {exc}") from exc
    migrations = []
    for name in names:
        match = _MIGRATION_FILE.match(name)
        if match is None:
            raise SchemaError(f"{MIGRATIONS_DIR}/{name}: a migration file is named NNNN_lowercase_name.sql")
        migrations.append(Migration(int(match.group(1)), name[:-4], tuple(_expand(folder / name, root))))
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise SchemaError(
                f"{MIGRATIONS_DIR}/{migration.name}.sql: expected version {expected:04d} next; migration versions "
                "run 0001, 0002, ... without gaps or duplicates"
            )
    return migrations


def apply_schema(dsn: str, vector_dim: int, sql_dir: Path) -> list[str]:
    """Bring the database at ``dsn`` up to the newest migration; returns the names of those applied now.

    Raises :class:`SchemaError` when ``vector_dim`` is not a positive integer, when ``sql/`` cannot be read,
    when the database already holds vector tables of another dimension, when it records a migration this
    release does not have (it was made by a newer release) or one whose file changed since it was applied, and
    when a migration fails (nothing is applied then).
    """
    dim = _validated_dim(vector_dim)
    root = Path(sql_dir)
    migrations = load_migrations(root)
    bootstrap = _expand(root / VERSION_TABLE_FILE, root)
    with psycopg.connect(dsn, autocommit=False) as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
            _check_vector_dim(cur, dim)
            cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
            _execute(cur, bootstrap, dim)
            cur.execute("SELECT version, name, checksum FROM schema_version ORDER BY version")
            pending = _pending(migrations, cur.fetchall())
            for migration in pending:
                _execute(cur, migration.parts, dim)
                cur.execute(
                    "INSERT INTO schema_version (version, name, checksum) VALUES (%s, %s, %s)",
                    (migration.version, migration.name, migration.checksum),
                )
        conn.commit()
    return [migration.name for migration in pending]


def _pending(migrations: list[Migration], recorded: list[tuple[int, str, str]]) -> list[Migration]:
    """The migrations not recorded yet, after checking the recorded ones against the files."""
    known = {m.version: m for m in migrations}
    for version, name, checksum in recorded:
        migration = known.get(version)
        if migration is None:
            newest = f"{migrations[-1].name}" if migrations else "none"
            raise SchemaError(
                f"the database records migration {name} (version {version}), which this release does not have "
                f"(its newest is {newest}): it was upgraded by a newer release. Run that release, or restore a "
                "backup taken before the upgrade."
            )
        if migration.checksum != checksum:
            raise SchemaError(
                f"{MIGRATIONS_DIR}/{migration.name}.sql (or a file it includes) changed after it was applied to "
                "this database. Applied migrations never change: restore the file and put the change in a new "
                "migration (docs/operations.md, \"Upgrading\")."
            )
    done = {version for version, _, _ in recorded}
    return [m for m in migrations if m.version not in done]


def _execute(cur: psycopg.Cursor, parts, dim: int) -> None:
    for source, text in parts:
        try:
            cur.execute(_render(text, dim))
        except psycopg.Error as exc:
            raise SchemaError(f"{source}: {exc}") from exc


def _expand(path: Path, root: Path, depth: int = 0) -> list[tuple[str, str]]:
    """``path`` as ``(source, text)`` parts with its ``\\ir`` lines expanded (relative to the including file);
    sources are named relative to ``root``."""
    if depth > _MAX_INCLUDE_DEPTH:
        raise SchemaError(f"{_source(path, root)}: \\ir includes nest deeper than {_MAX_INCLUDE_DEPTH}")
    parts: list[tuple[str, str]] = []
    pending: list[str] = []

    def flush() -> None:
        text = "".join(pending)
        if text.strip():
            parts.append((_source(path, root), text))
        pending.clear()

    for line in _read(path).splitlines(keepends=True):
        include = _INCLUDE_LINE.match(line)
        if include:
            flush()
            parts.extend(_expand(Path(os.path.normpath(path.parent / include.group(1))), root, depth + 1))
        elif line.lstrip().startswith("\\"):
            raise SchemaError(f"{_source(path, root)}: unsupported psql meta-command {line.strip()!r}")
        else:
            pending.append(line)
    flush()
    return parts


def _source(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


def _render(text: str, dim: int) -> str:
    return _VECTOR_DIM_TOKEN.sub(str(dim), text)


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
