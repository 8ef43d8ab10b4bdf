"""The retrieved evidence's ranking pool (agent-memory-acb-prd 8.2), ranked once and then kept up to date.

A bundle's full-text search ranks the newest CANDIDATE_POOL_MAX chunks of the project that match its query and that
its channel may read (ts_rank_cd, CPU-bound: the bulk of a retrieval bundle's cost), and reads the best SCORED_MAX
of them in full. Many bundles of a session ask the same query of a log that has grown by a few events since, so
each API process keeps the last pool it ranked for each (tenant, project, channels, sensitivities, query), with the
Postgres snapshot it was ranked under and the tenant's chunk epoch, and brings it up to date instead of ranking
again:

- the chunks written since are exactly those whose writing transaction (``acb_chunk_writes``, filled by a trigger
  on every insert: sql/migrations 0010) the kept snapshot does not see; one indexed statement ranks those that
  match (and the view may read), reads the tenant's epoch and takes the new snapshot, all under one statement
  snapshot; domain.pool merges them in by the full query's own order;
- a deleted or changed chunk (rebuild_chunks, a tenant's deletion, an UPDATE, TRUNCATE) bumps the epoch in the
  same transaction (``acb_chunk_epochs``, sql/migrations 0009): a pool kept at another epoch is ranked again in
  full. The epoch also names the database (its oid), so a database restored under a running API (new
  transaction ids, older rows) ranks every pool again.

So every bundle sees every event committed before its statement, as the full query would, and the same pool gives
the same best SCORED_MAX (tests/acb/test_incremental_pool.py builds both ways after interleaved writes and compares).
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import connection

from .domain.pool import Entry, best, merge
from .domain.pool_sql import DELTA_SQL, FULL_SQL

KEEP_POOLS = 64  # pools kept per API process (least recently used goes first); each holds <= CANDIDATE_POOL_MAX

# The pool's two statements are in acb.domain.pool_sql (the bench's floor runs the same text).
HITS_SQL = """SELECT chunk_id, event_id, session_id, ts, kind, token_est, importance, text
                FROM acb_chunks WHERE chunk_id = ANY(%(ids)s)"""


@dataclass
class Kept:
    snapshot: str
    epoch: str  # '<database oid>:<sum of the tenant's and the '*' epochs>'
    pool: list[Entry]
    best: dict[int, list[Entry]] = field(default_factory=dict)  # k -> the pool's best k
    rows: dict[str, tuple] = field(default_factory=dict)  # chunk_id -> its HITS_SQL row, for the best ones


@dataclass(frozen=True)
class Ranked:
    """The best ``k`` of the pool with their rows (HITS_SQL), and the pool's size."""

    best: list[Entry]
    rows: dict[str, tuple]
    pool_size: int
    path: str  # "full", "delta" or "kept": how this pool was brought up to date (for tests and the bench)


_kept: OrderedDict[tuple, Kept] = OrderedDict()
_lock = threading.Lock()
_local = threading.local()
paths: Counter[str] = Counter()  # how each pool was brought up to date in this process (tests, the bench's notes)


def forget() -> None:
    """Drop every kept pool."""
    with _lock:
        _kept.clear()


@contextmanager
def fresh() -> Iterator[None]:
    """Within: this thread ranks every pool in full and neither reads nor replaces the kept ones (the reference
    that tests compare an up-to-date pool's bundle with)."""
    _local.fresh = True
    try:
        yield
    finally:
        _local.fresh = False


def _entries(ids, tss, ranks) -> list[Entry]:
    return list(zip(tss, ids, ranks, strict=True)) if ids else []


def _one(sql: str, params: dict) -> tuple:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchone()


def _full(params: dict) -> tuple[Kept, bool]:
    snapshot, clean, epoch, ids, tss, ranks = _one(FULL_SQL, params)
    return Kept(snapshot, epoch, _entries(ids, tss, ranks)), clean


def _rows(ids: list[str]) -> dict[str, tuple]:
    with connection.cursor() as cur:
        cur.execute(HITS_SQL, {"ids": ids})
        return {r[0]: r for r in cur.fetchall()}


def rank(key: tuple, params: dict, limit: int, k: int) -> Ranked:
    """The pool for ``params`` (t, p, ch, sens, q as the SQL above names them) and its best ``k``: a kept pool brought
    up to date when this process has one for ``key``, else ranked in full.

    A pool is kept only from a statement of a transaction that has written nothing: a transaction's own
    uncommitted chunks are visible to it but not to the snapshots other transactions compare against, and they
    may still roll back."""
    params = {**params, "n": limit}
    keep = not getattr(_local, "fresh", False)
    with _lock:
        kept = _kept.get(key) if keep else None
    path = "full"
    if kept is not None:
        snapshot, clean, epoch, ids, tss, ranks = _one(DELTA_SQL, {**params, "snap": kept.snapshot})
        if epoch != kept.epoch or not clean:
            kept = None
        elif not ids:
            path, kept = "kept", Kept(snapshot, epoch, kept.pool, kept.best, kept.rows)
        else:
            path, kept = "delta", Kept(snapshot, epoch, merge(kept.pool, _entries(ids, tss, ranks), limit), {},
                                       kept.rows)
    if kept is None:
        kept, clean = _full(params)
        keep = keep and clean
    top = kept.best.get(k)
    if top is None:
        top = kept.best[k] = best(kept.pool, k)
    missing = [e[1] for e in top if e[1] not in kept.rows]
    if missing:
        rows = {e[1]: kept.rows[e[1]] for e in top if e[1] in kept.rows}
        rows.update(_rows(missing))
        if len(rows) < len(top) and path != "full":
            # a best chunk was deleted after this pool's snapshot (the deletion bumped the epoch): rank again
            with _lock:
                _kept.pop(key, None)
            return rank(key, params, limit, k)
        kept.rows = rows
    with _lock:
        paths[path] += 1
        if keep:
            _kept[key] = kept
            _kept.move_to_end(key)
            while len(_kept) > KEEP_POOLS:
                _kept.popitem(last=False)
    return Ranked(top, kept.rows, len(kept.pool), path)
