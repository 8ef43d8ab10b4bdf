"""The ranking pool's rule (agent-memory-acb-prd 8.2), as Postgres applies it in acb.ranking_pool's full query, so
that a pool ranked earlier can be brought up to date in process with only the chunks written since.

An entry is (ts, chunk_id, rank): rank is ts_rank_cd of the chunk for the query, which depends on the chunk and
the query only, never on the other chunks, so an entry's rank never changes while its chunk does not. The pool is
the newest ``limit`` matching chunks by (ts DESC, chunk_id DESC); of it the best ``k`` by (rank DESC, chunk_id)
are read in full. Python compares str by code point, which is the byte order of their UTF-8 encoding, the order
of the "C" collation the full query sorts chunk ids by."""

from __future__ import annotations

from datetime import datetime

Entry = tuple[datetime, str, float]  # (ts, chunk_id, rank)


def newest(entries: list[Entry], limit: int) -> list[Entry]:
    """The pool: the newest ``limit`` entries by (ts, chunk_id), newest first; one entry per chunk id (the later
    in ``entries`` wins, so a delta passed after the old pool replaces its entries)."""
    by_id = {e[1]: e for e in entries}
    return sorted(by_id.values(), key=lambda e: (e[0], e[1]), reverse=True)[:limit]


def merge(pool: list[Entry], delta: list[Entry], limit: int) -> list[Entry]:
    """The pool after the chunks of ``delta`` were written: the newest ``limit`` of both."""
    if not delta:
        return pool
    return newest([*pool, *delta], limit)


def best(pool: list[Entry], k: int) -> list[Entry]:
    """The ``k`` best-ranked entries of the pool, ties broken on the chunk id (ascending)."""
    return sorted(pool, key=lambda e: (-e[2], e[1]))[:k]
