"""Django's PostgreSQL backend with two additions:

- the connection pool checks a connection as it hands it out with ``elf_kernel.db_pool.check_pooled`` (a round
  trip only when the socket shows Postgres ended it) instead of psycopg_pool's round trip on every hand-out.
  Django builds the pool itself and passes ``check`` as a fixed argument, so the check is set on the pool
  Django built (psycopg_pool 3.3 keeps it in ``_check``; tests/infra/test_db_pool.py fails if that changes).
- ``prepared_cursor()``: a cursor that binds its parameters on the server, so a statement it runs
  ``PREPARE_THRESHOLD`` times on a connection is prepared there and, planned once for any values (a generic
  plan), neither parsed nor planned again. Django's own cursors bind on the client and never prepare (its
  default, kept for everything else: the ORM builds statements whose text varies with the values). Meant for
  a hot statement of fixed text whose plan does not depend on its values (one driven by primary keys): the
  search re-validation was planned on every call, 1.5 ms of Postgres CPU against 0.9 ms to run it
  (pg_stat_statements under 32 agents, docs/benchmarks.md). Not for a statement whose best plan depends on
  how many rows its values select: the resolver's nearest-note lookup, given a generic plan, scanned a
  100k-note group without parallel workers (0.8 s against 0.3 s).
"""

from __future__ import annotations

from django.db.backends.postgresql import base

from ..db_pool import check_pooled

# psycopg's own default: a statement is prepared on its fifth run on a connection. Only the cursors of
# ``prepared_cursor`` take part (psycopg's client-binding cursors, Django's default, never prepare).
PREPARE_THRESHOLD = 5
GENERIC_PLANS = "-c plan_cache_mode=force_generic_plan"


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        if pool is not None and getattr(pool, "_check", None) is not check_pooled:
            pool._check = check_pooled
        return pool

    def get_connection_params(self):
        params = super().get_connection_params()
        if params.get("prepare_threshold") is None:  # Django turns psycopg's preparation off unless OPTIONS set it
            params["prepare_threshold"] = PREPARE_THRESHOLD
        # Postgres would otherwise keep planning a prepared statement per call while its generic plan's estimate
        # exceeds the custom plans' (as the re-validation's did). The setting reaches prepared statements only:
        # those of prepared_cursor, and the queries inside the schema's PL/pgSQL triggers (primary-key lookups).
        params["options"] = f"{params.get('options', '')} {GENERIC_PLANS}".strip()
        return params

    def prepared_cursor(self):
        """A cursor like ``cursor()`` (the same wrapper, so query capture and error translation hold) whose
        statements are bound server side and prepared after ``PREPARE_THRESHOLD`` runs on this connection.
        Parameters are typed by psycopg, not spliced into the text: a ``str`` goes as an untyped literal, a
        list as an array, so a statement needs the same casts it would need in ``PREPARE``."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            return self._prepare_cursor(base.ServerBindingCursor(self.connection))
