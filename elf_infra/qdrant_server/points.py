"""Points between Qdrant REST JSON and qdrant-edge: ids, vectors, payload selectors, records."""

from __future__ import annotations

import uuid
from typing import Any

import qdrant_edge as qe

from .errors import bad_request, unsupported

PointId = int | str


def point_id(value: Any) -> PointId:
    """Validate a REST point id: an unsigned integer or a UUID (any UUID spelling, stored canonical)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < 2**64:
            return value
    elif isinstance(value, str):
        try:
            return str(uuid.UUID(value))
        except ValueError:
            pass
    raise bad_request(f"value {value!r} is not a valid point ID, valid values are either an unsigned integer or a UUID")


def point_ids(values: Any) -> list[PointId]:
    """Validate a list of point ids."""
    if not isinstance(values, list):
        raise bad_request("point ids must be a list")
    return [point_id(v) for v in values]


def render_id(value: Any) -> PointId:
    """A point id as REST JSON (qdrant-edge may hand back uuid.UUID objects)."""
    return value if isinstance(value, int) else str(value)


def sparse_vector(value: dict[str, Any]) -> qe.SparseVector:
    """`{"indices": [...], "values": [...]}` to a qdrant-edge SparseVector."""
    indices, values = value.get("indices"), value.get("values")
    if not isinstance(indices, list) or not isinstance(values, list) or len(indices) != len(values):
        raise bad_request("sparse vector needs `indices` and `values` lists of equal length")
    return qe.SparseVector(indices, [float(v) for v in values])


def _named_vector(name: str, value: Any) -> Any:
    if isinstance(value, list):
        return value  # dense, or multi-vector (list of lists)
    if isinstance(value, dict) and "indices" in value:
        return sparse_vector(value)
    raise unsupported(f"vector `{name}` of this form (inference objects such as Document or Image)")


def vector_struct(value: Any) -> Any:
    """A REST VectorStruct: a plain list is the unnamed default vector, a dict holds named vectors."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return {name: _named_vector(name, v) for name, v in value.items()}
    raise bad_request("point vector must be a list or an object of named vectors")


def _payload(value: Any) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    raise bad_request("payload must be an object")


def points_from_list(points: Any) -> list[qe.Point]:
    """`{"points": [{"id", "vector", "payload"}, ...]}` body to qdrant-edge points."""
    if not isinstance(points, list):
        raise bad_request("`points` must be a list")
    out = []
    for p in points:
        if not isinstance(p, dict) or "id" not in p:
            raise bad_request("each point needs an `id`")
        out.append(qe.Point(point_id(p["id"]), vector_struct(p.get("vector", {})), _payload(p.get("payload"))))
    return out


def points_from_batch(batch: Any) -> list[qe.Point]:
    """`{"batch": {"ids", "vectors", "payloads"}}` body (columns) to qdrant-edge points."""
    if not isinstance(batch, dict):
        raise bad_request("`batch` must be an object")
    ids = point_ids(batch.get("ids"))
    vectors = batch.get("vectors", {})
    payloads = batch.get("payloads") or [None] * len(ids)
    if not isinstance(payloads, list) or len(payloads) != len(ids):
        raise bad_request("`payloads` must have one entry per id")
    if isinstance(vectors, list):
        if len(vectors) != len(ids):
            raise bad_request("`vectors` must have one entry per id")
        rows = [vector_struct(v) for v in vectors]
    elif isinstance(vectors, dict):
        for name, column in vectors.items():
            if not isinstance(column, list) or len(column) != len(ids):
                raise bad_request(f"vectors `{name}` must have one entry per id")
        rows = [{name: _named_vector(name, column[i]) for name, column in vectors.items()} for i in range(len(ids))]
    else:
        raise bad_request("`vectors` must be a list or an object of named vector lists")
    return [qe.Point(pid, vec, _payload(pl)) for pid, vec, pl in zip(ids, rows, payloads, strict=False)]


def with_payload(value: Any, default: bool) -> bool | qe.PayloadSelector:
    """REST WithPayloadInterface: bool, list of keys, or {"include": [...]} / {"exclude": [...]}; null is `default`."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        return qe.PayloadSelector.Include([str(k) for k in value])
    if isinstance(value, dict) and "include" in value:
        return qe.PayloadSelector.Include(list(value["include"]))
    if isinstance(value, dict) and "exclude" in value:
        return qe.PayloadSelector.Exclude(list(value["exclude"]))
    raise bad_request("with_payload must be a bool, a list of keys, or an include/exclude selector")


def with_vector(value: Any, default: bool) -> bool | list[str]:
    """REST WithVector: bool or a list of vector names; null is `default`."""
    if value is None:
        return default
    if isinstance(value, bool) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return value
    raise bad_request("with_vector must be a bool or a list of vector names")


def _render_vector(value: Any) -> Any:
    if isinstance(value, qe.SparseVector):
        return {"indices": list(value.indices), "values": list(value.values)}
    return value


def render_vectors(vector: Any) -> Any:
    """Vectors as REST JSON: the unnamed default vector as a plain list, named vectors as an object."""
    if isinstance(vector, dict):
        if set(vector) == {""}:
            return _render_vector(vector[""])
        return {name: _render_vector(v) for name, v in vector.items()}
    return _render_vector(vector)


def render_record(rec: qe.Record) -> dict[str, Any]:
    """A retrieved/scrolled point as REST `Record` JSON (absent fields omitted, as Qdrant does)."""
    out: dict[str, Any] = {"id": render_id(rec.id)}
    if rec.payload is not None:
        out["payload"] = rec.payload
    if rec.vector is not None:
        out["vector"] = render_vectors(rec.vector)
    if rec.order_value is not None:
        out["order_value"] = rec.order_value
    return out


def render_scored(point: qe.ScoredPoint) -> dict[str, Any]:
    """A query hit as REST `ScoredPoint` JSON."""
    out: dict[str, Any] = {"id": render_id(point.id), "version": point.version, "score": point.score}
    if point.payload is not None:
        out["payload"] = point.payload
    if point.vector is not None:
        out["vector"] = render_vectors(point.vector)
    if point.order_value is not None:
        out["order_value"] = point.order_value
    return out
