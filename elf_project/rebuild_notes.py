"""Rebuilding the Qdrant notes collection from Postgres vectors at bulk-load speed (manage.py rebuild_qdrant,
POST /v2/admin/qdrant/rebuild, and the recommended path after importing a million notes).

The points indexing writes (every chunk of every active, unexpired note, from its stored
vector of the configured embedding_version; BM25 computed locally; never an embedding call; a chunk without
such a vector counted as missing, a batch Qdrant refuses counted as errors while the rebuild goes on), built
the way a bulk load needs them (this replaced memory.indexing.rebuild's keyset pages):

- one streaming read (a server-side cursor over chunks, notes and vectors joined in Postgres), instead of a
  keyset page and a second vector query per 256 chunks through the ORM;
- the upsert of one batch runs on a thread while the next batch is read and built, so the Postgres read and
  the point building overlap Qdrant's work instead of adding to it;
- a batch Qdrant did not take is sent again twice before it counts as errors: at a million points on a busy
  machine the embedded server timed out on 10 of 1,954 batches.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
from django.db import connection, transaction

from elf_config import ElfConfig
from elf_infra.index.notes_collection import key_reads
from elf_infra.index.rebuild import Progress, RebuildReport
from memory.indexing.index import chunk_to_point, notes_index
from memory.models import MemoryNote, NoteStatus

log = logging.getLogger("elf.indexing")
BATCH = 512
ATTEMPTS = 3  # a batch Qdrant did not take (a timeout of a busy server) is sent again, after 1 s, then 2 s

NOTE_FIELDS = ("note_id", "tenant_id", "project_id", "agent_id", "scope", "type", "key", "status", "updated_at",
               "expires_at", "importance", "confidence", "observed_at", "text")  # text: the speaker label
CHUNK_FIELDS = ("chunk_id", "chunk_index", "start_offset", "end_offset", "text")
LIVE = "n.status = %(active)s AND (n.expires_at IS NULL OR n.expires_at > now())"


def rebuild_notes(*, cfg: ElfConfig, progress: Progress | None = None, tenant_id: str | None = None,
                  project_id: str | None = None) -> RebuildReport:
    """Upsert a point for every chunk of every active, unexpired note (of ``tenant_id`` and ``project_id``,
    when given) from its stored vector. A rebuild of every tenant ends by giving the points it did not write
    (an earlier version's, of notes no longer live) their ``read_tag`` and indexing it
    (elf_infra.index.notes_collection.key_reads), so the collection is searched by that tag from then on."""
    index = notes_index(cfg)
    index.handle.ensure()
    params = {"active": NoteStatus.ACTIVE.value, "version": cfg.embedding_version, "tenant": tenant_id,
              "project": project_id}
    where = (LIVE + (" AND n.tenant_id = %(tenant)s" if tenant_id is not None else "")
             + (" AND n.project_id = %(project)s" if project_id is not None else ""))
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM memory_note_chunks c JOIN memory_notes n USING (note_id) WHERE {where}",
                    params)
        (total,) = cur.fetchone()
    columns = ", ".join([*(f"c.{f}" for f in CHUNK_FIELDS), *(f"n.{f}" for f in NOTE_FIELDS), "e.vec::text"])
    sql = (f"SELECT {columns} FROM memory_note_chunks c JOIN memory_notes n ON n.note_id = c.note_id "
           f"LEFT JOIN note_chunk_embeddings e ON e.chunk_id = c.chunk_id AND e.embedding_version = %(version)s "
           f"WHERE {where}")
    pipeline = _Pipeline(index.upsert, total, progress)
    # In a transaction: the server-side cursor streams rows as they come (outside one it would be WITH HOLD,
    # every row materialised before the first is read).
    with pipeline, transaction.atomic(), connection.chunked_cursor() as cur:
        cur.execute(sql, params)
        while batch := cur.fetchmany(BATCH):
            pipeline.submit(_points(batch, cfg.embedding_version), len(batch))
    if tenant_id is None and project_id is None:
        key_reads(cfg.storage.qdrant.url, cfg.storage.qdrant.collection)
    return pipeline.report()


def _points(batch: list[tuple], version: str) -> list:
    """The points of the rows that have a vector (the rest are counted missing)."""
    points = []
    n_chunk = len(CHUNK_FIELDS)
    for row in batch:
        vec = row[-1]
        if vec is None:
            continue
        chunk = dict(zip(CHUNK_FIELDS, row[:n_chunk], strict=True))
        note = MemoryNote(**dict(zip(NOTE_FIELDS, row[n_chunk:-1], strict=True)))
        points.append(chunk_to_point(note, **chunk, dense=np.array(vec[1:-1].split(","), dtype=np.float32),
                                     embedding_version=version))
    return points


class _Pipeline:
    """Upserts one batch on a thread while the caller builds the next; at most one batch in flight."""

    def __init__(self, upsert: Callable[[list], None], total: int, progress: Progress | None):
        self._upsert, self._total, self._progress = upsert, total, progress
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="rebuild-upsert")
        self._flight: tuple[Future, int, int] | None = None
        self.rebuilt = self.missing = self.errors = 0
        if progress is not None:
            progress(0, total)

    def submit(self, points: list, rows: int) -> None:
        self._settle()
        self.missing += rows - len(points)
        self._flight = (self._pool.submit(self._upsert_with_retries, points), len(points), rows)

    def _upsert_with_retries(self, points: list) -> None:
        for attempt in range(ATTEMPTS):
            try:
                self._upsert(points)
                return
            except Exception as exc:  # the same points again are harmless: an upsert is idempotent
                if attempt == ATTEMPTS - 1:
                    raise
                log.info("rebuild: a batch of %d points failed (%s); sending it again", len(points), exc)
                time.sleep(2**attempt)

    def _settle(self) -> None:
        if self._flight is None:
            return
        future, points, _ = self._flight
        self._flight = None
        try:
            future.result()
            self.rebuilt += points
        except Exception as exc:
            log.warning("rebuild: a batch of %d points failed: %s", points, exc)
            self.errors += points
        if self._progress is not None:
            self._progress(self.rebuilt + self.missing + self.errors, self._total)

    def report(self) -> RebuildReport:
        return RebuildReport(self.rebuilt, self.missing, self.errors)

    def __enter__(self) -> _Pipeline:
        return self

    def __exit__(self, *exc) -> None:
        self._settle()
        self._pool.shutdown(wait=True)
