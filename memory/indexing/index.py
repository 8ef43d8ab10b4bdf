"""The notes collection as this process uses it: a generic collection handle (ensured once per process and
again after Qdrant answers 404) plus what is about notes: points built from Postgres rows, and the points of
several notes replaced at once. An operator dropping the collection costs one failed attempt (retried by the outbox),
not a stuck
worker, and one extra round trip for a search.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from qdrant_client import models

from elf_config import ElfConfig
from elf_domain.speakers import speaker_label
from elf_infra.index import bm25
from elf_infra.index.collection import CollectionHandle, collection_handle
from elf_infra.index.notes_collection import chunk_point, ensure_notes_collection, note_filter

from ..models import MemoryNote


class NotesIndex:
    def __init__(self, handle: CollectionHandle):
        self.handle = handle

    def upsert(self, points: Sequence[models.PointStruct]) -> None:
        self.handle.upsert(list(points))

    def replace_notes_points(self, points: Mapping[uuid.UUID, Sequence[models.PointStruct]]) -> None:
        """Make ``points[note_id]`` each note's only points (an empty list: none), in two calls whatever the
        number of notes: one upsert of all the points, then one delete of every note's other points."""
        if not points:
            return
        self.handle.upsert([p for note_points in points.values() for p in note_points])
        stale = [
            models.Filter(
                must=note_filter(note_id).must,
                must_not=[models.HasIdCondition(has_id=[p.id for p in kept])] if kept else None,
            )
            for note_id, kept in points.items()
        ]
        self.handle.delete(models.Filter(should=stale))


def notes_index(cfg: ElfConfig) -> NotesIndex:
    """This process's notes index for the configured Qdrant url, collection and vector size."""
    q = cfg.storage.qdrant
    dim, quant = q.vector_dim, q.dense_quantization
    return NotesIndex(
        collection_handle(
            q.url, q.collection, lambda client, name: ensure_notes_collection(client, name, dim, quantization=quant),
            shape=(dim,),
        )
    )


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
        observed_at=note.observed_at,
        speaker=speaker_label(note.text),
    )
