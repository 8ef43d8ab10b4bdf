"""Handing out a pooled Postgres connection without a round trip when nothing says it broke.

psycopg_pool's stock ``check`` (what Django's ``CONN_HEALTH_CHECKS`` installs) sends an empty query every
time a connection is handed out, i.e. once per request: a round trip on every API call. A pooled connection
is idle, so Postgres sends it nothing unless it ends it: a restart, a crash or ``pg_terminate_backend``
leaves the socket readable (the server's FATAL message, or end of file). ``check_pooled`` runs the
round-trip check only then, so a dead connection is still replaced before a request gets it (docs/operations.md,
"Failure behaviour"; tests/ops/test_faults.py restarts Postgres under writing threads).
"""

from __future__ import annotations

import select

from psycopg_pool import ConnectionPool


def check_pooled(conn) -> None:
    """The pool's ``check``: return quietly when ``conn`` has nothing waiting on its socket; otherwise run
    psycopg_pool's round-trip check, which raises for a broken connection (the pool then replaces it)."""
    try:
        readable = bool(select.select([conn.fileno()], [], [], 0)[0])
    except Exception:  # a closed connection has no socket: let the real check decide
        readable = True
    if readable or conn.broken:
        ConnectionPool.check_connection(conn)
