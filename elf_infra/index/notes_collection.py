"""The notes collection in Qdrant (spec v2 section 6): a hybrid collection (`hybrid`) with one point per
note chunk: point id = chunk_id, the `dense` and `bm25` vectors, and the section 6 payload. Chunk text is
never stored in Qdrant; Postgres is authoritative and Qdrant may be stale.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from qdrant_client import QdrantClient, models

from .hybrid import DENSE_VECTOR, SPARSE_VECTOR, ensure_hybrid_collection
from .read_keys import READ_KEYS_TIMEOUT_S, add_read_keys, some_point_lacks_read_tag, warn_untagged
from .scope_filter import (
    LEXICAL_SCOPE,
    READ_KEY,
    READ_TAG,
    lexical_scope,
    read_keys,
    read_tags,
    reader_fields,
    scope_filter,
)

KEYWORD_INDEXES = ("tenant_id", "project_id", "agent_id", "scope", "status", "note_id", "type", "key", LEXICAL_SCOPE)
# The speaker label the note's text opens with (elf_domain.speakers), absent when it has none: recall searches the
# speaker's own notes when a query asks about them (search.services.recall, leg dense_speaker). Indexed like the
# fields above, but most notes have none, so a collection of an earlier version gets the index without the
# warning about points lacking it; `manage.py rebuild_qdrant` gives its points their labels.
SPEAKER = "speaker"
# When the note's statement was made, in whole seconds since the epoch (an integer index: a search whose query
# names a date asks for a range of it, elf_domain.time_phrases); absent when the writer gave no observed_at.
OBSERVED_TS = "observed_ts"
TENANT = "tenant_id"


def keyword_index(field: str) -> models.KeywordIndexParams:
    """The keyword index of ``field``. Qdrant adds HNSW links among the points of each large value of an
    indexed field (a subgraph per tenant, per project, per status...), so a filtered dense search stays
    connected inside the value; each such field costs about one more graph build per optimization (measured
    on 10k points of one tenant with the nine fields: 17.8 s to optimize, 7.3 s with links for tenant_id alone;
    elf-bench scale loads a million). Only tenant_id keeps its links, and is marked ``is_tenant`` (Qdrant
    stores a tenant's points together): a search always filters by one tenant, and a small tenant's points are
    scanned exactly through this index (below the HNSW full-scan threshold) while a large one's are found
    through its links. The other fields filter inside a tenant (their values hold most of its points, or,
    like note_id and key, few points each) and need no links of their own."""
    if field == TENANT:
        return models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    return models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, enable_hnsw=False)


def _index_differs(info: models.PayloadIndexInfo, wanted: models.KeywordIndexParams) -> bool:
    if info.data_type != models.PayloadSchemaType.KEYWORD:
        return True
    is_tenant = bool(getattr(info.params, "is_tenant", None))
    no_links = getattr(info.params, "enable_hnsw", None) is False
    return is_tenant != bool(wanted.is_tenant) or no_links != (wanted.enable_hnsw is False)


def ensure_notes_collection(client: QdrantClient, name: str, vector_dim: int, *, quantization: str) -> None:
    """Create the notes collection and its payload indexes when missing, or check an existing one
    (hybrid.CollectionMismatch when its vectors differ; it is never changed or dropped here). A keyword index
    created by an earlier version with other parameters (no ``is_tenant`` / ``enable_hnsw``, see
    ``keyword_index``) is replaced by the current one in place: the points stay, and the HNSW links follow at
    the collection's next optimization. The ``read_tag`` index, which turns searches to that tag
    (``searched_by``), is created when no point lacks the tag (a new collection); else a warning names the
    command that adds it (``key_reads``, elf_infra.index.read_keys). A collection of an earlier version searched by
    ``read_key`` keeps that index and is searched by it until then."""
    # a missing field: created, and warned about
    ensure_hybrid_collection(client, name, vector_dim, KEYWORD_INDEXES, quantization=quantization)
    schema = client.get_collection(name).payload_schema
    if READ_TAG not in schema:
        if some_point_lacks_read_tag(client, name):
            warn_untagged(name, searched_by(schema))
        else:
            _index_read_tag(client, name)
    for field in (*KEYWORD_INDEXES, SPEAKER):
        wanted = keyword_index(field)
        if field not in schema or _index_differs(schema[field], wanted):
            client.create_payload_index(name, field, wanted, wait=True)
    if OBSERVED_TS not in schema:
        client.create_payload_index(name, OBSERVED_TS, models.PayloadSchemaType.INTEGER, wait=True)


def key_reads(url: str, name: str) -> int:
    """Give every point of the notes collection ``name`` at ``url`` that lacks it its ``read_tag`` (and
    ``read_key``, from its own payload), then index the tag, which turns searches to it. Returns how many points
    were rewritten. Its own client, with a long timeout: indexing the tag of a million points takes Qdrant more
    than the services' 10 s."""
    client = QdrantClient(url=url, timeout=READ_KEYS_TIMEOUT_S)
    try:
        added = add_read_keys(client, name)
        if READ_TAG not in client.get_collection(name).payload_schema:  # an existing index keeps up with writes
            _index_read_tag(client, name)
        return added
    finally:
        client.close()


def read_tag_index() -> models.IntegerIndexParams:
    """``read_tag``'s index: exact matches only (no range structure), and no HNSW links of its own (a tag's points
    are one owner's, inside one tenant, whose links tenant_id keeps; see keyword_index)."""
    return models.IntegerIndexParams(type=models.IntegerIndexType.INTEGER, lookup=True, range=False,
                                     enable_hnsw=False)


def _index_read_tag(client: QdrantClient, name: str) -> None:
    client.create_payload_index(name, READ_TAG, read_tag_index(), wait=True)


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
    observed_at: datetime | None = None,
    speaker: str | None = None,
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
        LEXICAL_SCOPE: lexical_scope(tenant_id, project_id),  # BM25's IDF corpus (hybrid.scoped_idf)
        **reader_fields(tenant_id, scope, project_id, agent_id),  # who may find it (read_filter)
    }
    if observed_at is not None:
        payload[OBSERVED_TS] = int(observed_at.timestamp())
    if speaker is not None:
        payload[SPEAKER] = speaker
    return models.PointStruct(
        id=payload["chunk_id"],
        vector={DENSE_VECTOR: [float(x) for x in dense], SPARSE_VECTOR: bm25},
        payload=payload,
    )


def observed_between(ranges: Sequence[tuple[int, int]]) -> models.Filter:
    """Points observed inside any of ``ranges`` (epoch seconds, both ends included)."""
    return models.Filter(should=[models.FieldCondition(key=OBSERVED_TS, range=models.Range(gte=lo, lte=hi))
                                 for lo, hi in ranges])


def spoken_by(names: Sequence[str]) -> models.Filter:
    """Points whose note's speaker label is one of ``names``."""
    return models.Filter(must=[models.FieldCondition(key=SPEAKER, match=models.MatchAny(any=list(names)))])


READ_BY = ("read_tag", "read_key", "scope")  # how a notes collection is searched (searched_by), best first


def read_filter(*, tenant_id: str, project_id: str, agent_id: str, scopes: Sequence[str],
                by: str = "read_tag") -> models.Filter:
    """The first cut of a notes search (search.services.recall; the bench's floor and overlap probe send the same):
    one condition, a match of the caller's ``read_tag`` per allowed scope (``scope_filter.read_tags``: the tenant,
    the scope's home and, for agent_private, the caller). Qdrant checks the filter on every point a filtered
    search visits, so its cost grows with the collection: on a million notes in one project the dense search
    took 1.49-1.73 ms at p50 by the tag against 3.14-3.40 by the tenant and the string ``read_key`` (1.25-1.42
    with no filter), BM25 2.58-2.76 against 3.16-3.34; with the tenant as a second condition, 1.86-2.25
    (docs/benchmarks.md, "One integer read tag"). The tag names the tenant, so no tenant condition is sent.
    A collection whose points predate the tag is searched as its indexes allow (``searched_by``):
    ``by="read_key"``, the tenant and the caller's keys; ``by="scope"``, the tenant and scope, project and
    agent per scope.
    No status condition: a note has points only while it is active (the worker deletes the points of a note that
    is not; rebuild and import index live notes only), and a point's status payload is only rewritten by
    re-indexing, so the condition excluded nothing and cost each search 0.7 ms at 1M notes. Postgres
    re-validates tenant, status, TTL, scope and grants."""
    if by not in READ_BY:
        raise ValueError(f"read_filter by {by!r}, not one of {READ_BY}")
    if by == "scope":
        return scope_filter(tenant_id=tenant_id, project_id=project_id, agent_id=agent_id, scopes=scopes,
                            status=None)
    tenant = models.FieldCondition(key=TENANT, match=models.MatchValue(value=tenant_id))
    if by == "read_key":
        keys = read_keys(project_id, agent_id, scopes)
        match: models.Match = models.MatchAny(any=keys) if keys else models.MatchValue(value="__none__")
        return models.Filter(must=[tenant, models.FieldCondition(key=READ_KEY, match=match)])
    tags = read_tags(tenant_id, project_id, agent_id, scopes)
    if not tags:  # no scope: nothing (an empty MatchAny is refused; every integer could be some point's tag)
        return models.Filter(must=[tenant], must_not=[tenant])
    return models.Filter(must=[models.FieldCondition(key=READ_TAG, match=models.MatchAny(any=tags))])


def searched_by(schema: dict) -> str:
    """How a notes collection with this payload schema is searched (read_filter's ``by``): by ``read_tag`` once
    its index exists, which is once every point carries the tag (``ensure_notes_collection``); else by
    ``read_key`` when a version before the tag indexed that; else per scope."""
    if READ_TAG in schema:
        return "read_tag"
    return "read_key" if READ_KEY in schema else "scope"


def note_filter(note_id: uuid.UUID | str) -> models.Filter:
    """The filter selecting every chunk point of one note."""
    return models.Filter(must=[models.FieldCondition(key="note_id", match=models.MatchValue(value=str(note_id)))])


def delete_note_points(client: QdrantClient, name: str, note_id: uuid.UUID | str) -> None:
    """Delete all chunk points of a note (by payload filter; deleting nothing is not an error)."""
    client.delete(name, points_selector=models.FilterSelector(filter=note_filter(note_id)), wait=True)
