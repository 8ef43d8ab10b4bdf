"""The notes collection in Qdrant (spec v2 section 6), through plain qdrant-client.

One point per note chunk: point id = chunk_id, a named dense vector `dense` (cosine) and a sparse vector
`bm25` (IDF modifier, computed in the app by `elf_infra.index.bm25`), and the section 6 payload. Chunk text
is never stored in Qdrant; Postgres is authoritative and Qdrant may be stale.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import UnexpectedResponse

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "bm25"
KEYWORD_INDEXES = ("tenant_id", "project_id", "agent_id", "scope", "status", "note_id", "type", "key")


class NotesCollectionMismatch(RuntimeError):
    """An existing collection does not have the vectors the notes index needs."""


def _describe_mismatch(info: models.CollectionInfo, name: str, vector_dim: int) -> str | None:
    params = info.config.params
    vectors = params.vectors if isinstance(params.vectors, dict) else {}
    dense = vectors.get(DENSE_VECTOR)
    if dense is None:
        return f"collection {name!r} has no dense vector named {DENSE_VECTOR!r}"
    if dense.size != vector_dim:
        return (f"collection {name!r} has {DENSE_VECTOR!r} vectors of size {dense.size} but "
                f"storage.qdrant.vector_dim is {vector_dim}; rebuild the collection")
    if dense.distance != models.Distance.COSINE:
        return f"collection {name!r} uses {dense.distance} distance for {DENSE_VECTOR!r}, expected Cosine"
    sparse = (params.sparse_vectors or {}).get(SPARSE_VECTOR)
    if sparse is None or sparse.modifier != models.Modifier.IDF:
        return f"collection {name!r} needs a sparse vector {SPARSE_VECTOR!r} with the idf modifier"
    return None


def ensure_notes_collection(client: QdrantClient, name: str, vector_dim: int) -> None:
    """Create the notes collection and its keyword payload indexes when missing.

    An existing collection is checked instead: a different dense size or distance, or a missing `bm25`
    IDF sparse vector, raises NotesCollectionMismatch (it is never changed or dropped here).
    """
    if not client.collection_exists(name):
        try:
            client.create_collection(
                name,
                vectors_config={DENSE_VECTOR: models.VectorParams(size=vector_dim, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            )
        except UnexpectedResponse:
            if not client.collection_exists(name):  # else another process created it first
                raise
    info = client.get_collection(name)
    problem = _describe_mismatch(info, name, vector_dim)
    if problem:
        raise NotesCollectionMismatch(problem)
    for field in KEYWORD_INDEXES:
        if field not in info.payload_schema:
            client.create_payload_index(name, field, models.PayloadSchemaType.KEYWORD, wait=True)


def _timestamp(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def chunk_point(
    *,
    chunk_id: uuid.UUID | str,
    note_id: uuid.UUID | str,
    chunk_index: int,
    start_offset: int,
    end_offset: int,
    tenant_id: str,
    project_id: str,
    agent_id: str,
    scope: str,
    note_type: str,
    key: str | None,
    status: str,
    updated_at: datetime,
    expires_at: datetime | None,
    importance: float,
    confidence: float,
    embedding_version: str,
    dense: Sequence[float],
    bm25: models.SparseVector,
) -> models.PointStruct:
    """One chunk as a Qdrant point: id chunk_id, `dense` + `bm25` vectors, the section 6 payload (no text)."""
    payload: dict[str, Any] = {
        "note_id": str(uuid.UUID(str(note_id))),
        "chunk_id": str(uuid.UUID(str(chunk_id))),
        "chunk_index": chunk_index,
        "start_offset": start_offset,
        "end_offset": end_offset,
        "tenant_id": tenant_id,
        "project_id": project_id,
        "agent_id": agent_id,
        "scope": scope,
        "type": note_type,
        "key": key,
        "status": status,
        "updated_at": _timestamp(updated_at),
        "expires_at": _timestamp(expires_at),
        "importance": importance,
        "confidence": confidence,
        "embedding_version": embedding_version,
    }
    return models.PointStruct(
        id=payload["chunk_id"],
        vector={DENSE_VECTOR: [float(x) for x in dense], SPARSE_VECTOR: bm25},
        payload=payload,
    )


def dense_and_bm25_query(
    client: QdrantClient,
    name: str,
    dense: Sequence[float],
    sparse: models.SparseVector,
    payload_filter: models.Filter | None,
    limit: int,
    *,
    with_payload: bool | Sequence[str] = True,
) -> tuple[list[models.ScoredPoint], list[models.ScoredPoint]]:
    """The dense and the BM25 candidates (each up to `limit`, both under `payload_filter`) with their own scores,
    in one batch request, for fusion in the app. A query that is only stopwords has an empty BM25 vector: its
    BM25 list is empty and not asked for."""
    payload = with_payload if isinstance(with_payload, bool) else list(with_payload)
    requests = [models.QueryRequest(query=[float(x) for x in dense], using=DENSE_VECTOR, filter=payload_filter,
                                    limit=limit, with_payload=payload)]
    if sparse.indices:
        requests.append(models.QueryRequest(query=sparse, using=SPARSE_VECTOR, filter=payload_filter, limit=limit,
                                            with_payload=payload))
    results = client.query_batch_points(name, requests=requests)
    return results[0].points, (results[1].points if len(results) > 1 else [])


def upsert_chunks(client: QdrantClient, name: str, points: Sequence[models.PointStruct]) -> None:
    """Upsert chunk points and wait until they are applied."""
    if points:
        client.upsert(name, points=list(points), wait=True)


def note_filter(note_id: uuid.UUID | str) -> models.Filter:
    """The filter selecting every chunk point of one note."""
    return models.Filter(must=[models.FieldCondition(key="note_id", match=models.MatchValue(value=str(note_id)))])


def delete_note_points(client: QdrantClient, name: str, note_id: uuid.UUID | str) -> None:
    """Delete all chunk points of a note (by payload filter; deleting nothing is not an error)."""
    client.delete(name, points_selector=models.FilterSelector(filter=note_filter(note_id)), wait=True)


def hybrid_query(
    client: QdrantClient,
    name: str,
    dense: Sequence[float],
    sparse: models.SparseVector,
    payload_filter: models.Filter | None,
    limit: int,
    *,
    prefetch_limit: int | None = None,
    rrf_k: int | None = None,
    with_payload: bool | Sequence[str] = True,
) -> list[models.ScoredPoint]:
    """Dense and BM25 candidates (each `prefetch_limit`, default `limit`, both under `payload_filter`),
    fused with RRF; returns the top `limit` points with their payload (or only the named fields).

    `rrf_k=None` uses the server's RRF constant (Qdrant: 2); a value sends `{"rrf": {"k": rrf_k}}`.
    A query that is only stopwords has an empty BM25 vector and runs on the dense candidates alone.
    """
    per_source = prefetch_limit if prefetch_limit is not None else limit
    prefetch = [models.Prefetch(query=[float(x) for x in dense], using=DENSE_VECTOR, filter=payload_filter,
                                limit=per_source)]
    if sparse.indices:
        prefetch.append(models.Prefetch(query=sparse, using=SPARSE_VECTOR, filter=payload_filter, limit=per_source))
    fusion: models.FusionQuery | models.RrfQuery = (
        models.FusionQuery(fusion=models.Fusion.RRF) if rrf_k is None else models.RrfQuery(rrf=models.Rrf(k=rrf_k))
    )
    payload = with_payload if isinstance(with_payload, bool) else list(with_payload)
    return client.query_points(name, prefetch=prefetch, query=fusion, limit=limit, with_payload=payload).points
