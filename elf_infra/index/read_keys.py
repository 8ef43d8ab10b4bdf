"""``read_tag`` (and ``read_key``) for the points of a notes collection written before the fields existed
(issue 35).

A search matches ``read_tag`` (notes_collection.read_filter) only once the field's index exists, and the index
is created only once every point carries the tag: a point without it would be invisible to search. Until then
searches send the filter the collection's indexes allow (``read_key``, or per scope), and each start-up warns
(``warn_untagged``). ``manage.py rebuild_qdrant`` ends by adding the tag (``--read-keys`` does only that): every
point lacking it is read back with its vectors and payload and upserted with the tag and the key added, derived
from its own payload (tenant_id, scope, project_id, agent_id), so no Postgres read and no embedding call; Qdrant
re-optimizes those points afterwards, as after a rebuild. A point
deleted between its read and its upsert here comes back; Postgres re-validates every candidate of a search, so
it is never returned, and the next rebuild or the note's next write settles it."""

from __future__ import annotations

import logging

from qdrant_client import QdrantClient, models

from .scope_filter import READ_TAG, reader_fields

LOG = logging.getLogger("elf.indexing")
BATCH = 1000
LOG_EVERY = 100_000  # points
READ_KEYS_TIMEOUT_S = 900  # one call: a page of points, or indexing the tag of every point


def lacking_read_tag() -> models.Filter:
    return models.Filter(must=[models.IsEmptyCondition(is_empty=models.PayloadField(key=READ_TAG))])


def some_point_lacks_read_tag(client: QdrantClient, name: str) -> bool:
    """Whether any point of ``name`` has no ``read_tag``: the first one found ends the scan (a collection of an
    earlier version answers at once; a new one is empty)."""
    points, _ = client.scroll(name, scroll_filter=lacking_read_tag(), limit=1, with_payload=False)
    return bool(points)


def warn_untagged(name: str, searched_by: str) -> None:
    """``searched_by``: what the collection is searched by meanwhile (notes_collection.searched_by)."""
    LOG.warning("collection %s: points written by an earlier version have no read_tag, so searches send the slower "
                "filter by %s (at 1M notes, about twice the Qdrant time of the tag); `manage.py rebuild_qdrant "
                "--read-keys` adds it from each point's own payload, without reading Postgres", name,
                "read_key" if searched_by == "read_key" else "scope, project and agent")


def add_read_keys(client: QdrantClient, name: str) -> int:
    """Give every point of ``name`` without ``read_tag`` its tag and key; returns how many were rewritten. Pages
    of BATCH points in id order (no count first: on an unindexed field it scans the whole collection)."""
    done, offset = 0, None
    while True:
        points, offset = client.scroll(name, scroll_filter=lacking_read_tag(), limit=BATCH, offset=offset,
                                       with_payload=True, with_vectors=True)
        if points:
            if not done:
                LOG.warning("collection %s: adding read_tag to the points written by an earlier version (their "
                            "vectors are read back from Qdrant)", name)
            client.upsert(name, points=[_keyed(p) for p in points], wait=True)
            done += len(points)
            if done // LOG_EVERY != (done - len(points)) // LOG_EVERY:
                LOG.warning("collection %s: read_tag added to %d points so far", name, done)
        if offset is None or not points:
            if done:
                LOG.warning("collection %s: read_tag added to %d points", name, done)
            return done


def _keyed(point: models.Record) -> models.PointStruct:
    payload = dict(point.payload or {})
    payload.update(reader_fields(*(str(payload.get(f, "")) for f in ("tenant_id", "scope", "project_id", "agent_id"))))
    return models.PointStruct(id=point.id, vector=point.vector or {}, payload=payload)
