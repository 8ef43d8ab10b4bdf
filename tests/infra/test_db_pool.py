"""The API pool's hand-out check (elf_kernel.db_pool.check_pooled) on real Postgres connections: no round trip
for a healthy idle connection, the real check (and its error) for one Postgres ended or one already closed."""

from __future__ import annotations

import time

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from elf_kernel.db_pool import check_pooled


@pytest.fixture
def round_trips(monkeypatch) -> list:
    calls: list = []
    real = ConnectionPool.check_connection
    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(lambda conn: (calls.append(conn), real(conn))))
    return calls


def test_a_healthy_idle_connection_is_handed_out_without_a_round_trip(test_stack, round_trips) -> None:
    with psycopg.connect(test_stack.storage.postgres.dsn, autocommit=True) as conn:
        conn.execute("SELECT 1").fetchall()
        check_pooled(conn)
        assert round_trips == []
        conn.execute("SELECT 1").fetchall()  # still usable


def test_a_connection_postgres_ended_fails_the_check(test_stack, round_trips) -> None:
    dsn = test_stack.storage.postgres.dsn
    with psycopg.connect(dsn, autocommit=True) as conn, psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [conn.info.backend_pid])
        deadline = time.monotonic() + 5
        with pytest.raises(psycopg.OperationalError):
            while time.monotonic() < deadline:  # the FATAL message reaches the socket at once; allow a moment
                check_pooled(conn)
                time.sleep(0.01)
        assert round_trips == [conn]


def test_a_closed_connection_fails_the_check(test_stack, round_trips) -> None:
    conn = psycopg.connect(test_stack.storage.postgres.dsn, autocommit=True)
    conn.close()
    with pytest.raises(psycopg.OperationalError):
        check_pooled(conn)
    assert round_trips == [conn]


@pytest.mark.django_db
def test_the_django_pool_hands_out_connections_through_check_pooled() -> None:
    from django.db import connection

    assert connection.pool._check is check_pooled  # the backend set it on the pool Django built
