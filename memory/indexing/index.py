"""The notes collection as the worker and the rebuild use it: points built from Postgres rows.

One ``NotesIndex`` per process and config (a forked worker child builds its own, never sharing its parent's
sockets). The collection is ensured once per process and again after Qdrant answers 404, so an operator
dropping the collection costs one failed attempt (retried by the outbox), not a stuck worker.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Sequence

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import UnexpectedResponse

from elf_infra.index import bm25
from elf_infra.index.notes_collection import chunk_point, ensure_notes_collection, note_filter, upsert_chunks
from elf_project.config import ElfConfig

from ..models import MemoryNote

QDRANT_TIMEOUT_S = 10


def _is_not_found(exc: UnexpectedResponse) -> bool:
    return exc.status_code == 404


class NotesIndex:
    def __init__(self, cfg: ElfConfig):
        q = cfg.storage.qdrant
        self.client = QdrantClient(url=q.url, timeout=QDRANT_TIMEOUT_S)
        self.collection = q.collection
        self.vector_dim = q.vector_dim
        self._ensured = False

    def ensure(self) -> None:
        """Create the collection (and its payload indexes) when missing."""
        ensure_notes_collection(self.client, self.collection, self.vector_dim)
        self._ensured = True

    def _ensure_once(self) -> None:
        if not self._ensured:
            self.ensure()

    def upsert(self, points: Sequence[models.PointStruct]) -> None:
        self._ensure_once()
        try:
            upsert_chunks(self.client, self.collection, points)
        except UnexpectedResponse as exc:
            if _is_not_found(exc):  # dropped since this process ensured it: ensure again on the retry
                self._ensured = False
            raise

    def replace_note_points(self, note_id: uuid.UUID, points: Sequence[models.PointStruct]) -> None:
        """Upsert the note's points (at least one), then delete its other points (chunks that no longer exist).

        Upserting first means a re-indexed note is never missing from the index in between.
        """
        self.upsert(points)
        stale = models.Filter(
            must=note_filter(note_id).must, must_not=[models.HasIdCondition(has_id=[p.id for p in points])]
        )
        self.client.delete(self.collection, points_selector=models.FilterSelector(filter=stale), wait=True)

    def delete_note(self, note_id: uuid.UUID) -> None:
        """Delete every point of a note; a missing collection has none to delete."""
        try:
            self.client.delete(
                self.collection, points_selector=models.FilterSelector(filter=note_filter(note_id)), wait=True
            )
        except UnexpectedResponse as exc:
            if not _is_not_found(exc):
                raise
            self._ensured = False


_cache: dict[tuple[int, str, str, int], NotesIndex] = {}
_cache_lock = threading.Lock()


def notes_index(cfg: ElfConfig) -> NotesIndex:
    """This process's NotesIndex for the configured Qdrant url and collection."""
    q = cfg.storage.qdrant
    key = (os.getpid(), q.url, q.collection, q.vector_dim)
    with _cache_lock:
        if key not in _cache:
            _cache.clear()  # entries of a parent process (after fork) or of an older config
            _cache[key] = NotesIndex(cfg)
        return _cache[key]


def chunk_to_point(
    note: MemoryNote,
    *,
    chunk_id: uuid.UUID,
    chunk_index: int,
    start_offset: int,
    end_offset: int,
    text: str,
    dense: Sequence[float],
    embedding_version: str,
) -> models.PointStruct:
    """The Qdrant point of one chunk: the note's section 6 payload, its dense vector and a local BM25 vector."""
    return chunk_point(
        chunk_id=chunk_id,
        note_id=note.note_id,
        chunk_index=chunk_index,
        start_offset=start_offset,
        end_offset=end_offset,
        tenant_id=note.tenant_id,
        project_id=note.project_id,
        agent_id=note.agent_id,
        scope=note.scope,
        note_type=note.type,
        key=note.key,
        status=note.status,
        updated_at=note.updated_at,
        expires_at=note.expires_at,
        importance=note.importance,
        confidence=note.confidence,
        embedding_version=embedding_version,
        dense=dense,
        bm25=bm25.embed_document(text),
    )
