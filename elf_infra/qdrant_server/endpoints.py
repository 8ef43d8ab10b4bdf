"""The REST endpoints: each takes the registry, path parameters and the JSON body, and returns the
`result` value of Qdrant's response envelope (or raises ApiError)."""

from __future__ import annotations

from typing import Any

import qdrant_edge as qe

from . import config as cfg
from .errors import bad_request, unsupported
from .filters import build_filter
from .points import (
    point_ids,
    points_from_batch,
    points_from_list,
    render_id,
    render_record,
    render_scored,
    with_payload,
    with_vector,
)
from .queries import build_count_request, build_query_request, build_scroll_request
from .registry import CollectionRegistry
from .term_stats import StatsWrite

_UPDATE_MODES = {"upsert": qe.UpdateMode.Upsert, "insert_only": qe.UpdateMode.InsertOnly,
                 "update_only": qe.UpdateMode.UpdateOnly}

Params = dict[str, str]


def _object(body: Any) -> dict[str, Any]:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise bad_request("request body must be a JSON object")
    if body.get("shard_key") is not None:
        raise unsupported("`shard_key`")
    return body


def _update_result(operation_id: int) -> dict[str, Any]:
    return {"operation_id": operation_id, "status": "completed"}


# --- collections ---------------------------------------------------------------------------------
def list_collections(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """GET /collections."""
    return {"collections": [{"name": n} for n in reg.names()]}


def collection_exists(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """GET /collections/{name}/exists."""
    return {"exists": reg.exists(p["name"])}


def get_collection(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """GET /collections/{name}: CollectionInfo."""
    return reg.get(p["name"]).info()


def idf_corpora(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """GET /collections/{name}/idf_corpora (this server's own, not Qdrant's): the BM25 corpora it keeps counts of,
    and those being built (term_stats.py)."""
    return reg.get(p["name"]).term_stats.describe()


def create_collection(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """PUT /collections/{name}."""
    reg.create(p["name"], cfg.normalize_create(body if body is not None else {}))
    return True


def delete_collection(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """DELETE /collections/{name}: true, or false when there was no such collection."""
    return reg.delete(p["name"])


def create_index(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """PUT /collections/{name}/index (create_payload_index)."""
    coll = reg.get(p["name"])
    body = _object(body)
    field = body.get("field_name")
    if not isinstance(field, str) or not field:
        raise bad_request("field_name must be a non-empty string")
    if body.get("field_schema") is None:
        raise unsupported("a payload index without `field_schema`")
    return _update_result(coll.set_index(field, cfg.normalize_index_schema(body["field_schema"])))


def delete_index(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """DELETE /collections/{name}/index/{field}."""
    return _update_result(reg.get(p["name"]).drop_index(p["field"]))


# --- points --------------------------------------------------------------------------------------
def upsert_points(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """PUT /collections/{name}/points: `points` list or `batch` columns, optional update_filter / update_mode."""
    coll = reg.get(p["name"])
    body = _object(body)
    if "points" in body:
        points = points_from_list(body["points"])
    elif "batch" in body:
        points = points_from_batch(body["batch"])
    else:
        raise bad_request("upsert needs `points` or `batch`")
    mode = body.get("update_mode")
    if mode is not None and mode not in _UPDATE_MODES:
        raise bad_request(f"update_mode must be one of {sorted(_UPDATE_MODES)}")
    op = qe.UpdateOperation.upsert_points(
        points,
        condition=build_filter(body.get("update_filter")),
        update_mode=_UPDATE_MODES[mode] if mode else None,
    )
    conditional = body.get("update_filter") is not None or mode not in (None, "upsert")
    return _update_result(coll.update(op, len(points), StatsWrite.upsert(points, conditional=conditional)))


def delete_points(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """POST /collections/{name}/points/delete: by `points` ids or by `filter`."""
    coll = reg.get(p["name"])
    body = _object(body)
    if "points" in body:
        ids = point_ids(body["points"])
        return _update_result(coll.update(qe.UpdateOperation.delete_points(ids), len(ids), StatsWrite.delete(ids)))
    if "filter" in body:
        flt = build_filter(body["filter"])
        if flt is None:
            raise bad_request("delete needs a filter")
        op = qe.UpdateOperation.delete_points_by_filter(flt)
        return _update_result(coll.update(op, 0, StatsWrite(filter=flt)))
    raise bad_request("delete needs `points` or `filter`")


def retrieve_points(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """POST /collections/{name}/points: records by id."""
    coll = reg.get(p["name"])
    body = _object(body)
    ids = point_ids(body.get("ids"))
    payload = with_payload(body.get("with_payload"), default=True)
    vector = with_vector(body.get("with_vector"), default=False)
    records = coll.read(lambda s: s.retrieve(ids, with_payload=payload, with_vector=vector))
    return [render_record(r) for r in records]


def scroll_points(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """POST /collections/{name}/points/scroll."""
    coll = reg.get(p["name"])
    request = build_scroll_request(_object(body))
    records, next_offset = coll.read(lambda s: s.scroll(request))
    return {
        "points": [render_record(r) for r in records],
        "next_page_offset": None if next_offset is None else render_id(next_offset),
    }


def count_points(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """POST /collections/{name}/points/count."""
    coll = reg.get(p["name"])
    request = build_count_request(_object(body))
    return {"count": coll.read(lambda s: s.count(request))}


def query_points(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """POST /collections/{name}/points/query."""
    coll = reg.get(p["name"])
    request = build_query_request(coll.query_body(_object(body)))
    return {"points": [render_scored(sp) for sp in coll.read(lambda s: s.query(request))]}


def query_batch(reg: CollectionRegistry, p: Params, body: Any) -> Any:
    """POST /collections/{name}/points/query/batch."""
    coll = reg.get(p["name"])
    searches = _object(body).get("searches")
    if not isinstance(searches, list):
        raise bad_request("query batch needs a `searches` list")
    batch = qe.QueryBatchRequest([build_query_request(coll.query_body(_object(s))) for s in searches])
    results = coll.read(lambda s: s.query_batch(batch))
    return [{"points": [render_scored(sp) for sp in hits]} for hits in results]
