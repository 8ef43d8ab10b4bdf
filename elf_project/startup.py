"""Start-up steps shared by elf-api, elf-worker and manage.py: schema (under an advisory lock), the shipped
global predicate registry, Django's own tables, and the notes collection in Qdrant."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import psycopg

from elf_config import ElfConfig
from elf_config.chunk_tokenizer import fallback_warning

log = logging.getLogger("elf.startup")
SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
# Separate from the schema lock of db_init so the two never wait on each other's transaction.
MIGRATE_LOCK_KEY = 0x454C465F4D494752  # "ELF_MIGR"
POSTGRES_WAIT_S = 30


class StartupError(Exception):
    pass


def wait_for_postgres(cfg: ElfConfig) -> None:
    deadline = time.monotonic() + POSTGRES_WAIT_S
    while True:
        try:
            with psycopg.connect(cfg.storage.postgres.dsn, connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError as exc:
            if time.monotonic() > deadline:
                host = cfg.storage.postgres.dsn.split("@")[-1]
                raise StartupError(
                    f"Postgres at {host} did not answer within {POSTGRES_WAIT_S}s ({str(exc).strip()[:200]}); "
                    "start it with `elf-stack up -c <config>` or fix storage.postgres.dsn"
                ) from None
            time.sleep(0.5)


def apply_schema(cfg: ElfConfig) -> list[str]:
    """Apply the migrations of sql/migrations the database lacks (db_init); returns their names."""
    from .db_init import SchemaError
    from .db_init import apply_schema as apply

    wait_for_postgres(cfg)
    try:
        applied = apply(cfg.storage.postgres.dsn, cfg.storage.qdrant.vector_dim, SQL_DIR)
    except SchemaError as exc:
        raise StartupError(f"schema: {exc}") from None
    if applied:
        log.info("schema: applied migrations %s", ", ".join(applied))
    return applied


def seed_registry() -> int:
    """The global predicate registry's missing rows (graph.services.predicate_seed: only adds, never changes an
    operator's edit); returns how many rows were added. Django's connections are closed after, as after
    migrate_django, so no forked process inherits one."""
    from django.db import connections

    from graph.services.predicate_seed import seed_global_predicates

    try:
        added = seed_global_predicates()
    finally:
        for conn in connections.all():
            conn.close()
            if hasattr(conn, "close_pool"):
                conn.close_pool()
    if added:
        log.info("graph: seeded %d global predicate rows", added)
    return added


def migrate_django(cfg: ElfConfig) -> None:
    """Django's contrib tables (auth, admin, sessions) come from Django's migrations, serialized by a lock."""
    from django.core.management import call_command
    from django.db import connections

    with psycopg.connect(cfg.storage.postgres.dsn, autocommit=True) as lock_conn:
        lock_conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATE_LOCK_KEY,))
        try:
            call_command("migrate", interactive=False, verbosity=0)
        finally:
            lock_conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATE_LOCK_KEY,))
    for conn in connections.all():
        conn.close()
        if hasattr(conn, "close_pool"):
            conn.close_pool()


def ensure_index(cfg: ElfConfig) -> bool:
    """Create the notes collection if missing.

    Qdrant being down is not fatal (the service starts, /health reports it, indexing retries later); an
    existing collection with the wrong vectors is: it raises StartupError.
    """
    from qdrant_client import QdrantClient

    from elf_infra.index.hybrid import CollectionMismatch
    from elf_infra.index.notes_collection import ensure_notes_collection

    try:
        client = QdrantClient(url=cfg.storage.qdrant.url, timeout=5)
        try:
            ensure_notes_collection(client, cfg.storage.qdrant.collection, cfg.storage.qdrant.vector_dim,
                                    quantization=cfg.storage.qdrant.dense_quantization)
        finally:
            client.close()
        return True
    except CollectionMismatch as exc:
        raise StartupError(str(exc)) from None
    except Exception as exc:  # the service still starts; /health reports qdrant down
        log.warning("qdrant not ready at %s: %s", cfg.storage.qdrant.url, exc)
        return False


def warn_about_config(cfg: ElfConfig) -> None:
    """Log what the config lets start but an operator should know: the chunker's MiniLM fallback for an
    embedding model whose tokenizer ELF does not ship (elf_config.chunk_tokenizer)."""
    warning = fallback_warning(cfg)
    if warning:
        log.warning("%s", warning)


def prepare(cfg: ElfConfig, *, prog: str, migrate: bool, index: bool) -> int:
    """Run the start-up steps an entry point needs; 0 when ready, else print why and return 1."""
    warn_about_config(cfg)
    try:
        apply_schema(cfg)
        seed_registry()
        if migrate:
            migrate_django(cfg)
        if index:
            ensure_index(cfg)
    except StartupError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    return 0
