"""Indexing several notes together: the notes of outbox rows claimed together (spec v2 section 12).

For each note whose latest row is an UPSERT, while the caller holds the notes' locks:
1. read the note; a missing, non-active or expired note is not indexed: its points go;
2. chunk the text (``chunks.note_chunks``). A chunk whose stored row at the same index has the same text
   and a vector of the current embedding version keeps that vector, so a note add_note already stored
   with its vector (a single-chunk note), re-processing an unchanged note, or a metadata-only change costs
   no embedding;
3. embed the chunks still without a vector, of all the notes at once: one provider call per EMBED_BATCH
   texts (identical texts once). A provider failure leaves the notes that needed it untouched and is
   returned for their rows; the other notes go on;
4. in one transaction, ``chunks.store_chunks`` for every note whose stored rows do not already say exactly
   this (chunk rows, chunk vectors and the pooled vector of the current version): a note add_note stored
   costs no write here;
5. upsert every note's points in one Qdrant call, then delete each note's other points (stale chunk ids,
   and all points of the notes that are not indexed) in one more.
A note whose latest row is a DELETE loses its points (whatever the rows before it asked, the last one is
what processing them in order leaves). Running it twice gives the same rows and points.

Embedding version: always the configured ``cfg.embedding_version``, the only provider the worker can call.
A row written under an older version simply has its note re-embedded with the current one.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from elf_config import ElfConfig
from elf_domain.chunking import Chunk
from elf_infra.providers.errors import ProviderError
from elf_infra.providers.factory import build_embedding

from ..domain.note_context import embedding_text
from ..models import MemoryNote, MemoryNoteChunk, NoteChunkEmbedding, NoteEmbedding, NoteStatus, OutboxOp
from .chunks import note_chunks, store_chunks
from .index import chunk_to_point, notes_index

EMBED_BATCH = 64  # texts per embedding provider call


@dataclass
class _Plan:
    note: MemoryNote
    chunks: list[Chunk]
    vectors: dict[int, list[float]] = field(default_factory=dict)
    fresh: set[int] = field(default_factory=set)  # chunk indexes embedded now
    stored_ids: list[uuid.UUID] | None = None  # the chunk ids, when the stored rows already say all of it


def is_indexable(note: MemoryNote | None) -> bool:
    """Active and not expired (the same rule search re-validates with)."""
    if note is None or note.status != NoteStatus.ACTIVE:
        return False
    return note.expires_at is None or note.expires_at > timezone.now()


def index_notes(*, cfg: ElfConfig, ops: Mapping[uuid.UUID, str]) -> dict[uuid.UUID, ProviderError]:
    """Index the notes of ``ops`` (note_id -> the op of its latest row); returns the notes left unindexed
    because the embedding provider failed, with its error."""
    version = cfg.embedding_version
    notes = MemoryNote.objects.in_bulk([n for n, op in ops.items() if op == OutboxOp.UPSERT])
    plans = [_Plan(note, note_chunks(cfg, note.text)) for note in notes.values() if is_indexable(note)]
    _reuse_stored(plans, version)
    failed = _embed(cfg, plans)
    plans = [p for p in plans if p.note.note_id not in failed]
    with transaction.atomic():
        for p in plans:
            if p.stored_ids is None:
                p.stored_ids = store_chunks(p.note.note_id, version, p.chunks, p.vectors, p.fresh)
    points = {n: [] for n in ops if n not in failed}
    for p in plans:
        points[p.note.note_id] = [
            chunk_to_point(p.note, chunk_id=chunk_id, chunk_index=c.index, start_offset=c.start_offset,
                           end_offset=c.end_offset, text=c.text, dense=p.vectors[c.index], embedding_version=version)
            for chunk_id, c in zip(p.stored_ids, p.chunks, strict=False)
        ]
    notes_index(cfg).replace_notes_points(points)
    return failed


def _reuse_stored(plans: list[_Plan], version: str) -> None:
    """Take each chunk's stored vector where the stored row at its index has the same text; mark the plans
    whose stored rows, chunk vectors and pooled vector already say exactly what they would write."""
    note_ids = [p.note.note_id for p in plans]
    if not note_ids:
        return
    stored: dict[uuid.UUID, dict[int, tuple]] = {}
    for row in MemoryNoteChunk.objects.filter(note_id__in=note_ids).values_list(
        "note_id", "chunk_index", "chunk_id", "start_offset", "end_offset", "text", "embedding_version"
    ):
        stored.setdefault(row[0], {})[row[1]] = row[2:]
    vectors = dict(NoteChunkEmbedding.objects.filter(chunk__note_id__in=note_ids, embedding_version=version)
                   .values_list("chunk_id", "vec"))
    pooled = set(NoteEmbedding.objects.filter(note_id__in=note_ids, embedding_version=version)
                 .values_list("note_id", flat=True))
    for p in plans:
        rows = stored.get(p.note.note_id, {})
        for c in p.chunks:
            row = rows.get(c.index)
            if row is not None and row[3] == c.text and row[0] in vectors:
                p.vectors[c.index] = [float(x) for x in vectors[row[0]]]
            else:
                p.fresh.add(c.index)
        if not p.fresh and p.note.note_id in pooled and len(rows) == len(p.chunks) and all(
            rows[c.index][1:] == (c.start_offset, c.end_offset, c.text, version) for c in p.chunks
        ):
            p.stored_ids = [rows[c.index][0] for c in p.chunks]


def _embed(cfg: ElfConfig, plans: list[_Plan]) -> dict[uuid.UUID, ProviderError]:
    """Embed every fresh chunk of the plans, EMBED_BATCH texts per provider call; on a provider error, the
    notes that needed a vector are returned with it."""
    texts = list(dict.fromkeys(embedding_text(c.text, p.note.context) for p in plans for c in p.chunks
                               if c.index in p.fresh))
    if not texts:
        return {}
    embedder = build_embedding(cfg)
    by_text: dict[str, list[float]] = {}
    try:
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start : start + EMBED_BATCH]
            by_text.update(zip(batch, embedder.embed(batch), strict=True))
    except ProviderError as exc:
        return {p.note.note_id: exc for p in plans if p.fresh}
    for p in plans:
        for index in p.fresh:
            p.vectors[index] = by_text[embedding_text(p.chunks[index].text, p.note.context)]
    return {}
