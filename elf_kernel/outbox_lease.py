"""The outbox lease protocol shared by indexing_outbox and search_trace_outbox (spec v2 section 12;
supplement section 4).

A worker claims due rows (status PENDING or FAILED, ``available_at <= now()``) with
``FOR UPDATE SKIP LOCKED`` and, in the same statement, pushes ``available_at`` forward by the lease
(``worker.outbox_lease_seconds``, 30 s by default).
Other workers then see the row as not due, so a row is processed by one worker at a time; a worker that
dies mid-job lets the lease run out and the next sweep claims the row again. A claim does not touch status
or attempts: only a failure counts as an attempt.

The new ``available_at`` is the lease's token. Settling a row (done, failed, released) only applies while
the token still matches, so a worker whose lease ran out and was re-claimed cannot overwrite the newer
claim's outcome. Failure: status FAILED, attempts + 1, ``last_error`` (secrets scrubbed, at most 1024
characters) and ``available_at = now() + backoff(attempts)`` with backoff = 500 ms * 2^(attempts - 1),
capped at 30 s. Rows are never deleted here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from django.db import connection

from elf_config import ElfConfig
from elf_infra.index.dispatch import send_outbox_task

from .runtime import get_config

BACKOFF_BASE_SECONDS = 0.5
BACKOFF_CAP_SECONDS = 30.0
LAST_ERROR_MAX_CHARS = 1024
PENDING, DONE, FAILED = "PENDING", "DONE", "FAILED"


def lease_seconds() -> float:
    """How long a claim holds a row (worker.outbox_lease_seconds)."""
    return get_config().worker.outbox_lease_seconds


def backoff_seconds(attempts: int) -> float:
    """Delay before retry number ``attempts`` (1-based): 0.5 s, 1 s, 2 s, ... capped at 30 s."""
    return min(BACKOFF_BASE_SECONDS * 2 ** max(attempts - 1, 0), BACKOFF_CAP_SECONDS)


def _secrets(cfg: ElfConfig) -> list[str]:
    p = cfg.providers
    values = [p.embedding.api_key, p.rerank.api_key, p.llm_extractor.api_key]
    dsn_password = connection.settings_dict.get("PASSWORD")
    if dsn_password:
        values.append(dsn_password)
    return [v for v in values if len(v) >= 4]


def error_text(exc: BaseException, cfg: ElfConfig) -> str:
    """``Type: message`` with configured secrets replaced, at most LAST_ERROR_MAX_CHARS characters.

    Provider errors never carry an api_key already; scrubbing again covers every other exception text.
    """
    text = f"{type(exc).__name__}: {exc}"
    for secret in _secrets(cfg):
        text = text.replace(secret, "[redacted]")
    return text[:LAST_ERROR_MAX_CHARS]


class OutboxLeaser:
    """Claims and settles rows of one outbox table. ``row_type`` is built positionally from
    (outbox_id, *columns, attempts, leased_until, created_at)."""

    def __init__(self, table: str, columns: Sequence[str], row_type: type):
        self.table, self.row_type = table, row_type
        returning = ", ".join(f"o.{c}" for c in ("outbox_id", *columns, "attempts", "available_at", "created_at"))
        self._claim_sql = f"""
UPDATE {table} o
   SET available_at = now() + make_interval(secs => %(lease)s), updated_at = now()
  FROM (SELECT outbox_id FROM {table}
         WHERE status IN ('{PENDING}', '{FAILED}') AND available_at <= now() {{extra}}
         ORDER BY available_at, created_at
         LIMIT %(limit)s
         FOR UPDATE SKIP LOCKED) due
 WHERE o.outbox_id = due.outbox_id
RETURNING {returning}
"""

    def _claim(self, extra_sql: str, params: dict) -> list:
        # One statement, atomic on its own: outside a transaction it commits by itself (no BEGIN and COMMIT
        # round trips around it), inside one it commits with it.
        with connection.cursor() as cur:
            cur.execute(self._claim_sql.format(extra=extra_sql), {"lease": lease_seconds(), **params})
            leases = [self.row_type(*row) for row in cur.fetchall()]
        return sorted(leases, key=lambda lease: lease.created_at)

    def lease_due(self, limit: int) -> list:
        """Claim up to ``limit`` due rows (oldest first); rows another transaction holds are skipped."""
        return self._claim("", {"limit": limit})

    def lease_one(self, outbox_id):
        """Claim one row if it is due; None when it is done, not due yet, or held by another worker."""
        leases = self._claim("AND outbox_id = %(outbox_id)s", {"limit": 1, "outbox_id": str(outbox_id)})
        return leases[0] if leases else None

    def _settle(self, leases, set_sql: str, params: dict) -> set:
        """Apply ``set_sql`` to the rows whose lease token still holds, in one statement; returns their ids."""
        if not leases:
            return set()
        with connection.cursor() as cur:
            cur.execute(
                f"UPDATE {self.table} o SET {set_sql}, updated_at = now() "
                "FROM unnest(%(ids)s::uuid[], %(tokens)s::timestamptz[]) AS held(outbox_id, token) "
                "WHERE o.outbox_id = held.outbox_id AND o.available_at = held.token AND o.status <> %(done)s "
                "RETURNING o.outbox_id",
                {**params, "ids": [lease.outbox_id for lease in leases],
                 "tokens": [lease.leased_until for lease in leases], "done": DONE},
            )
            return {row[0] for row in cur.fetchall()}

    def _settle_one(self, lease, set_sql: str, params: dict) -> bool:
        return lease.outbox_id in self._settle([lease], set_sql, params)

    def mark_done(self, lease) -> bool:
        """DONE; False when the lease was lost (another worker holds or finished the row)."""
        return self._settle_one(lease, "status = %(status)s", {"status": DONE})

    def mark_all_done(self, leases) -> set:
        """Every row DONE in one statement; returns the outbox ids settled (a row whose lease was lost is
        left to the newer claim, as ``mark_done`` leaves it)."""
        return self._settle(leases, "status = %(status)s", {"status": DONE})

    def mark_failed(self, lease, exc: BaseException, cfg: ElfConfig) -> bool:
        """FAILED with attempts + 1, last_error and the backoff; False when the lease was lost."""
        return self._settle_one(
            lease,
            "status = %(status)s, attempts = attempts + 1, last_error = %(error)s, "
            "available_at = now() + make_interval(secs => %(delay)s)",
            {"status": FAILED, "error": error_text(exc, cfg), "delay": backoff_seconds(lease.attempts + 1)},
        )

    def release(self, lease) -> bool:
        """Give a claimed row back unprocessed: due again at once, nothing counted."""
        return self._settle_one(lease, "available_at = now()", {})

    def retry_now(self, outbox_ids, task_name: str, *, log: logging.Logger) -> int:
        """An operator's retry: make the given PENDING/FAILED rows due now (DONE rows are left) and dispatch
        ``task_name`` for each; returns how many were made due."""
        with connection.cursor() as cur:
            cur.execute(
                f"UPDATE {self.table} SET available_at = now(), updated_at = now() "
                "WHERE outbox_id = ANY(%s::uuid[]) AND status IN (%s, %s) RETURNING outbox_id",
                [[str(i) for i in outbox_ids], PENDING, FAILED],
            )
            ids = [row[0] for row in cur.fetchall()]
        for outbox_id in ids:
            send_outbox_task(task_name, outbox_id, log=log)
        return len(ids)

    def run(self, lease, work: Callable[[], None], cfg: ElfConfig, *, what: str, log: logging.Logger) -> bool:
        """Do ``work`` for a claimed row and settle it: DONE (True), or FAILED with backoff (False) when
        ``work`` raised. ``what`` names the row in the log lines."""
        try:
            work()
        except Exception as exc:
            log.warning("%s failed, attempt %d: %s", what, lease.attempts + 1, exc)
            self.mark_failed(lease, exc, cfg)
            return False
        if not self.mark_done(lease):
            log.info("%s: lease lost before completion; the newer claim settles it", what)
        return True

    def sweep(self, process: Callable[[object], bool], *, batch: int, budget_s: float,
              together: Callable[[list], set] | None = None) -> int:
        """Claim up to ``batch`` due rows and process them oldest first, starting none after ``budget_s``
        (at most two thirds of the lease, so no claimed row's lease runs out before it is started; unstarted
        rows are released for the next sweep); returns how many were done. ``together``, when given, is first
        handed every claimed row and returns the outbox ids it settled DONE at once; ``process`` takes the
        rest one by one."""
        budget_s = min(budget_s, lease_seconds() * 2 / 3)
        started = time.monotonic()
        leases = self.lease_due(batch)
        settled = together(leases) if together is not None and leases else set()
        leases = [lease for lease in leases if lease.outbox_id not in settled]
        done = len(settled)
        for position, lease in enumerate(leases):
            if time.monotonic() - started > budget_s:
                for unstarted in leases[position:]:
                    self.release(unstarted)
                break
            done += bool(process(lease))
        return done
