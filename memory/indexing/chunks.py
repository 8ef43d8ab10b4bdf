"""A note's chunks and their stored vectors (spec v2 section 12), shared by the indexing worker and add_note.

``note_chunks`` cuts a text the one way both use: the embedding model's tokenizer and ``[chunking]``, so a
note add_note stores a vector for is chunked exactly as the worker would chunk it. The tokenizer and the
chunk budget are ``elf_config.chunk_tokenizer``'s choice (MiniLM with a safety margin when the model's own
tokenizer is not shipped). ``store_chunks`` is the
one write of a note's chunk rows, chunk vectors and pooled note vector, in the caller's transaction:
- memory_note_chunks are upserted by (note_id, chunk_index), which keeps the existing chunk_id of an index,
  so re-processing yields the same Qdrant point ids; rows past the new count are deleted (their vectors
  cascade);
- the fresh chunk vectors are upserted; vectors of other embedding versions are dropped, since they may
  describe text that has changed;
- the pooled note vector is the plain mean of the chunk vectors, as the spec says, not re-normalised
  (cosine similarity, its only use, ignores the length).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

import numpy as np
from django.db import connection

from elf_config import ElfConfig
from elf_config.chunk_tokenizer import chunk_tokenizer
from elf_domain.chunking import Chunk, chunk_text
from elf_infra.providers.tokenizer import get_chunk_tokenizer


def note_chunks(cfg: ElfConfig, text: str) -> list[Chunk]:
    """The chunks of a note's text (one chunk, the whole text, when it fits in the chunk budget)."""
    choice = chunk_tokenizer(cfg)
    spans = get_chunk_tokenizer(choice.name).token_byte_spans(text)
    return chunk_text(text, spans, max_tokens=choice.max_tokens, overlap_tokens=choice.overlap_tokens)


_UPSERT_CHUNK = """
INSERT INTO memory_note_chunks (chunk_id, note_id, chunk_index, start_offset, end_offset, text, embedding_version)
VALUES (%(chunk_id)s, %(note_id)s, %(index)s, %(start)s, %(end)s, %(text)s, %(version)s)
ON CONFLICT (note_id, chunk_index) DO UPDATE
   SET start_offset = EXCLUDED.start_offset, end_offset = EXCLUDED.end_offset,
       text = EXCLUDED.text, embedding_version = EXCLUDED.embedding_version
RETURNING chunk_id"""
_UPSERT_VECTOR = """
INSERT INTO note_chunk_embeddings (chunk_id, embedding_version, embedding_dim, vec)
SELECT chunk_id, %(version)s, %(dim)s, %(vec)s::vector FROM chunk
ON CONFLICT (chunk_id, embedding_version) DO UPDATE
   SET embedding_dim = EXCLUDED.embedding_dim, vec = EXCLUDED.vec, created_at = now()
RETURNING chunk_id"""
_UPSERT_POOLED = """
INSERT INTO note_embeddings (note_id, embedding_version, embedding_dim, vec)
VALUES (%(note_id)s, %(version)s, %(dim)s, %(pooled)s::vector)
ON CONFLICT (note_id, embedding_version) DO UPDATE
   SET embedding_dim = EXCLUDED.embedding_dim, vec = EXCLUDED.vec, created_at = now()"""
# One statement for a chunk row and its fresh vector; for a single chunk, its vector is the pooled one too.
_UPSERT_CHUNK_AND_VECTOR = f"WITH chunk AS ({_UPSERT_CHUNK}){_UPSERT_VECTOR}"
_UPSERT_SINGLE_CHUNK = f"WITH chunk AS ({_UPSERT_CHUNK}), pooled AS ({_UPSERT_POOLED}){_UPSERT_VECTOR}"


def vector_text(vec: Sequence[float]) -> str:
    """A vector as pgvector's text input, ``[x,y,...]``: each value as the float32 pgvector stores, in 9
    significant digits (which give that float32 back exactly; 3x faster than ``str`` of the doubles)."""
    values = np.asarray(vec, dtype=np.float32).tolist()
    return "[" + ",".join(["%.9g"] * len(values)) % tuple(values) + "]"


# New notes of one request, each a single chunk with its fresh vector (the pooled one too): the parts of a
# data-modifying CTE, written in the statement that inserts the notes themselves.
_NEW_SINGLE_CHUNKS = (
    """new_chunk_rows AS MATERIALIZED (
  SELECT r.chunk_id, r.note_id, r.start_offset, r.end_offset, r.text, r.vec::vector AS vec
    FROM unnest(%s::uuid[], %s::uuid[], %s::int[], %s::int[], %s::text[], %s::text[])
         AS r(chunk_id, note_id, start_offset, end_offset, text, vec))""",
    """new_chunks AS (
  INSERT INTO memory_note_chunks (chunk_id, note_id, chunk_index, start_offset, end_offset, text, embedding_version)
  SELECT chunk_id, note_id, 0, start_offset, end_offset, text, %s FROM new_chunk_rows)""",
    """new_pooled AS (
  INSERT INTO note_embeddings (note_id, embedding_version, embedding_dim, vec)
  SELECT note_id, %s, vector_dims(vec), vec FROM new_chunk_rows)""",
    """new_chunk_vectors AS (
  INSERT INTO note_chunk_embeddings (chunk_id, embedding_version, embedding_dim, vec)
  SELECT chunk_id, %s, vector_dims(vec), vec FROM new_chunk_rows)""",
)


def new_single_chunks_cte(version: str, notes: Sequence[tuple[uuid.UUID, Chunk, Sequence[float]]]
                          ) -> tuple[list[str], list]:
    """``store_chunks`` for many notes created in this transaction, each a single chunk whose vector is given
    (``(note_id, chunk, vector)``): their chunk rows, chunk vectors and pooled vectors, as the parts of a
    data-modifying CTE and their positional parameters (``rows_together.insert_together`` runs them in the
    statement that inserts the notes). No parts for no notes."""
    if not notes:
        return [], []
    params = [[uuid.uuid4() for _ in notes], [n for n, _, _ in notes], [c.start_offset for _, c, _ in notes],
              [c.end_offset for _, c, _ in notes], [c.text for _, c, _ in notes],
              [vector_text(v) for _, _, v in notes], version, version, version]
    return list(_NEW_SINGLE_CHUNKS), params


def store_chunks(
    note_id: uuid.UUID, version: str, chunks: Sequence[Chunk], vectors: Mapping[int, Sequence[float]],
    fresh: set[int], *, new_note: bool = False,
) -> list[uuid.UUID]:
    """Write the note's chunk rows, the ``fresh`` chunk vectors (by chunk index) and the pooled vector of all
    of ``vectors``; returns the chunk ids in chunk order. ``new_note`` (a note created in this transaction)
    skips the deletes of rows it cannot have."""
    single = len(chunks) == 1 and chunks[0].index in fresh
    chunk_ids = []
    with connection.cursor() as cur:
        for chunk in chunks:
            row = {"chunk_id": uuid.uuid4(), "note_id": note_id, "index": chunk.index, "start": chunk.start_offset,
                   "end": chunk.end_offset, "text": chunk.text, "version": version}
            if chunk.index in fresh:
                vec = vectors[chunk.index]
                row.update(dim=len(vec), vec=vector_text(vec))
                cur.execute(_UPSERT_SINGLE_CHUNK if single else _UPSERT_CHUNK_AND_VECTOR, {**row, "pooled": row["vec"]})
            else:
                cur.execute(_UPSERT_CHUNK, row)
            chunk_ids.append(cur.fetchone()[0])
        if not new_note:
            cur.execute("DELETE FROM memory_note_chunks WHERE note_id = %s AND chunk_index >= %s",
                        [note_id, len(chunks)])
            cur.execute(
                "DELETE FROM note_chunk_embeddings e USING memory_note_chunks c "
                "WHERE e.chunk_id = c.chunk_id AND c.note_id = %s AND e.embedding_version <> %s",
                [note_id, version],
            )
            cur.execute("DELETE FROM note_embeddings WHERE note_id = %s AND embedding_version <> %s",
                        [note_id, version])
        if not single:
            pooled = np.mean(np.asarray([vectors[i] for i in range(len(chunk_ids))], dtype=np.float64), axis=0)
            cur.execute(_UPSERT_POOLED, {"note_id": note_id, "version": version, "dim": len(pooled),
                                         "pooled": vector_text(pooled)})
    return chunk_ids


def drop_chunk_vectors(note_id: uuid.UUID) -> None:
    """Forget the note's chunk and pooled vectors (every version): its context changed, so each chunk must be
    embedded again even where its text did not (the worker reuses a stored vector by chunk text)."""
    with connection.cursor() as cur:
        cur.execute("DELETE FROM note_chunk_embeddings e USING memory_note_chunks c "
                    "WHERE e.chunk_id = c.chunk_id AND c.note_id = %s", [note_id])
        cur.execute("DELETE FROM note_embeddings WHERE note_id = %s", [note_id])
