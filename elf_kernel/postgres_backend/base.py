"""Django's PostgreSQL backend whose connection pool checks a connection as it hands it out with
``elf_kernel.db_pool.check_pooled`` (a round trip only when the socket shows Postgres ended it) instead of
psycopg_pool's round trip on every hand-out. Django builds the pool itself and passes ``check`` as a fixed
argument, so the check is set on the pool Django built (psycopg_pool 3.3 keeps it in ``_check``;
tests/test_db_pool.py fails if that changes)."""

from __future__ import annotations

from django.db.backends.postgresql import base

from ..db_pool import check_pooled


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        if pool is not None and getattr(pool, "_check", None) is not check_pooled:
            pool._check = check_pooled
        return pool
