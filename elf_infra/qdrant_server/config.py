"""Collection and payload-index configuration: Qdrant REST JSON <-> qdrant-edge.

A collection's REST config is normalised once at creation (Qdrant's defaults filled in), persisted in
the collection's meta file, echoed by GET /collections/{name}, and turned into the qdrant-edge
EdgeConfig. Settings qdrant-edge cannot honour are refused with 400 instead of being dropped.
"""

from __future__ import annotations

import copy
from typing import Any

import qdrant_edge as qe

from .errors import bad_request, unsupported

DEFAULT_HNSW = {"m": 16, "ef_construct": 100, "full_scan_threshold": 10000, "max_indexing_threads": 0, "on_disk": False}
DEFAULT_OPTIMIZERS = {
    "deleted_threshold": 0.2,
    "vacuum_min_vector_number": 1000,
    "default_segment_number": 0,
    "max_segment_size": None,
    "memmap_threshold": None,
    "indexing_threshold": 10000,
    "flush_interval_sec": 5,
    "max_optimization_threads": None,
}
_DISTANCES = {"Cosine": qe.Distance.Cosine, "Euclid": qe.Distance.Euclid, "Dot": qe.Distance.Dot,
              "Manhattan": qe.Distance.Manhattan}
_DATATYPES = {"float32": qe.VectorStorageDatatype.Float32, "float16": qe.VectorStorageDatatype.Float16,
              "uint8": qe.VectorStorageDatatype.Uint8}
_MEMORY = {"cold": qe.Memory.Cold, "cached": qe.Memory.Cached, "pinned": qe.Memory.Pinned}
_HNSW_KEYS = {"m", "ef_construct", "full_scan_threshold", "max_indexing_threads", "on_disk", "payload_m",
              "inline_storage", "memory"}
_EDGE_OPTIMIZER_KEYS = ("deleted_threshold", "vacuum_min_vector_number", "default_segment_number",
                        "max_segment_size", "indexing_threshold", "prevent_unoptimized")
_VECTOR_KEYS = {"size", "distance", "on_disk", "datatype", "memory", "hnsw_config", "quantization_config"}
_SPARSE_INDEX_KEYS = {"full_scan_threshold", "on_disk", "memory", "datatype"}
_CLUSTER_KEYS = ("shard_number", "replication_factor", "write_consistency_factor")
_CREATE_UNSUPPORTED = ("wal_config", "strict_mode_config", "payload", "id_tracker", "init_from")
_SCALAR_KEYS = {"type", "quantile", "always_ram"}

# Payload index types: REST name -> (qdrant-edge enum, params class, params keys besides "type").
_INDEX_TYPES: dict[str, tuple[Any, Any, set[str]]] = {
    "keyword": (qe.PayloadSchemaType.Keyword, qe.KeywordIndexParams,
                {"is_tenant", "on_disk", "memory", "enable_hnsw", "prefix", "nested"}),
    "integer": (qe.PayloadSchemaType.Integer, qe.IntegerIndexParams,
                {"lookup", "range", "is_principal", "on_disk", "memory", "enable_hnsw", "nested"}),
    "float": (qe.PayloadSchemaType.Float, qe.FloatIndexParams,
              {"is_principal", "on_disk", "memory", "enable_hnsw", "nested"}),
    "bool": (qe.PayloadSchemaType.Bool, qe.BoolIndexParams, {"on_disk", "memory", "enable_hnsw", "nested"}),
    "datetime": (qe.PayloadSchemaType.Datetime, qe.DatetimeIndexParams,
                 {"is_principal", "on_disk", "memory", "enable_hnsw", "nested"}),
    "uuid": (qe.PayloadSchemaType.Uuid, qe.UuidIndexParams,
             {"is_tenant", "on_disk", "memory", "enable_hnsw", "nested"}),
}


def _pick(value: Any, allowed: set[str], what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad_request(f"{what} must be an object")
    unknown = {k for k, v in value.items() if v is not None} - allowed
    if unknown:
        raise unsupported(f"{what} fields {sorted(unknown)}")
    return {k: v for k, v in value.items() if v is not None}


def _vector_params(value: Any, what: str) -> dict[str, Any]:
    params = _pick(value, _VECTOR_KEYS, what)
    if not isinstance(params.get("size"), int) or params["size"] < 1:
        raise bad_request(f"{what}: size must be a positive integer")
    if params.get("distance") not in _DISTANCES:
        raise bad_request(f"{what}: distance must be one of {sorted(_DISTANCES)}")
    if "datatype" in params and params["datatype"] not in _DATATYPES:
        raise bad_request(f"{what}: datatype must be one of {sorted(_DATATYPES)}")
    if "hnsw_config" in params:
        params["hnsw_config"] = _pick(params["hnsw_config"], _HNSW_KEYS, f"{what}.hnsw_config")
    if "quantization_config" in params:
        params["quantization_config"] = _quantization(params["quantization_config"], f"{what}.quantization_config")
    return params


def _quantization(value: Any, what: str) -> dict[str, Any] | None:
    """REST quantization config: scalar int8 only (``{"scalar": {"type": "int8", "quantile", "always_ram"}}``);
    product, binary and the others are refused with 400."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"scalar"}:
        raise unsupported(f"{what}: only scalar quantization")
    scalar = _pick(value["scalar"], _SCALAR_KEYS, f"{what}.scalar")
    if scalar.get("type") != "int8":
        raise bad_request(f"{what}.scalar.type must be int8")
    quantile = scalar.get("quantile")
    if quantile is not None and (not isinstance(quantile, (int, float)) or not 0.5 <= quantile <= 1.0):
        raise bad_request(f"{what}.scalar.quantile must be a number in [0.5, 1]")
    return {"scalar": scalar}


def _edge_quantization(value: dict[str, Any] | None) -> qe.ScalarQuantizationConfig | None:
    if value is None:
        return None
    scalar = value["scalar"]
    return qe.ScalarQuantizationConfig(qe.ScalarType.Int8, quantile=scalar.get("quantile"),
                                       always_ram=scalar.get("always_ram"))


def _is_single_vector(vectors: dict[str, Any]) -> bool:
    return isinstance(vectors.get("size"), int)


def normalize_create(body: Any) -> dict[str, Any]:
    """Validate a PUT /collections/{name} body; return the REST `CollectionConfig` with defaults filled in."""
    if not isinstance(body, dict):
        raise bad_request("collection config must be an object")
    for key in _CREATE_UNSUPPORTED:
        if body.get(key) is not None:
            raise unsupported(f"collection `{key}`")
    for key in _CLUSTER_KEYS:
        if body.get(key) not in (None, 1):
            raise unsupported(f"`{key}` other than 1")
    if body.get("sharding_method") not in (None, "auto"):
        raise unsupported("custom sharding")
    known = {"vectors", "sparse_vectors", "hnsw_config", "optimizers_config", "on_disk_payload", "metadata",
             "quantization_config",
             "sharding_method", *_CLUSTER_KEYS, *_CREATE_UNSUPPORTED}
    if set(body) - known:
        raise bad_request(f"unknown collection fields: {sorted(set(body) - known)}")

    vectors = body.get("vectors") or {}
    if not isinstance(vectors, dict):
        raise bad_request("vectors must be an object")
    if _is_single_vector(vectors):
        vectors = _vector_params(vectors, "vectors")
    else:
        vectors = {name: _vector_params(v, f"vectors.{name}") for name, v in vectors.items()}
    sparse = {}
    for name, v in (body.get("sparse_vectors") or {}).items():
        sp = _pick(v, {"index", "modifier"}, f"sparse_vectors.{name}")
        if sp.get("modifier") not in (None, "none", "idf"):
            raise bad_request(f"sparse_vectors.{name}: modifier must be none or idf")
        if "index" in sp:
            sp["index"] = _pick(sp["index"], _SPARSE_INDEX_KEYS, f"sparse_vectors.{name}.index")
        sparse[name] = sp
    if not vectors and not sparse:
        raise bad_request("a collection needs dense `vectors` or `sparse_vectors`")

    optimizer_keys = set(DEFAULT_OPTIMIZERS) | {"prevent_unoptimized"}
    optimizers = {**DEFAULT_OPTIMIZERS, **_pick(body.get("optimizers_config"), optimizer_keys, "optimizers_config")}
    if optimizers["memmap_threshold"] is not None:
        raise unsupported("optimizers_config.memmap_threshold (deprecated in Qdrant)")
    params: dict[str, Any] = {
        "vectors": vectors,
        "shard_number": 1,
        "replication_factor": 1,
        "write_consistency_factor": 1,
        "on_disk_payload": bool(body.get("on_disk_payload", True)),
    }
    if sparse:
        params["sparse_vectors"] = sparse
    config: dict[str, Any] = {
        "params": params,
        "hnsw_config": {**DEFAULT_HNSW, **_pick(body.get("hnsw_config"), _HNSW_KEYS, "hnsw_config")},
        "optimizer_config": optimizers,
        "quantization_config": _quantization(body.get("quantization_config"), "quantization_config"),
    }
    if body.get("metadata") is not None:
        if not isinstance(body["metadata"], dict):
            raise bad_request("metadata must be an object")
        config["metadata"] = body["metadata"]
    return config


def _hnsw(value: dict[str, Any]) -> qe.HnswIndexConfig:
    merged = {**DEFAULT_HNSW, **value}
    if "memory" in merged:
        merged["memory"] = _MEMORY[merged["memory"]]
    return qe.HnswIndexConfig(**merged)


def _edge_vector(params: dict[str, Any]) -> qe.EdgeVectorParams:
    return qe.EdgeVectorParams(
        size=params["size"],
        distance=_DISTANCES[params["distance"]],
        on_disk=params.get("on_disk"),
        datatype=_DATATYPES[params["datatype"]] if "datatype" in params else None,
        hnsw_config=_hnsw(params["hnsw_config"]) if "hnsw_config" in params else None,
        memory=_MEMORY[params["memory"]] if "memory" in params else None,
        quantization_config=_edge_quantization(params.get("quantization_config")),
    )


def _edge_sparse(params: dict[str, Any]) -> qe.EdgeSparseVectorParams:
    index = params.get("index", {})
    return qe.EdgeSparseVectorParams(
        full_scan_threshold=index.get("full_scan_threshold"),
        on_disk=index.get("on_disk"),
        modifier=qe.Modifier.Idf if params.get("modifier") == "idf" else None,
        datatype=_DATATYPES[index["datatype"]] if "datatype" in index else None,
        memory=_MEMORY[index["memory"]] if "memory" in index else None,
    )


def edge_config(config: dict[str, Any]) -> qe.EdgeConfig:
    """The qdrant-edge EdgeConfig for a normalised REST collection config."""
    params = config["params"]
    vectors = params["vectors"]
    if vectors and _is_single_vector(vectors):
        dense: Any = _edge_vector(vectors)
    else:
        dense = {name: _edge_vector(v) for name, v in vectors.items()} or None
    optimizers = config["optimizer_config"]
    return qe.EdgeConfig(
        vectors=dense,
        sparse_vectors={name: _edge_sparse(v) for name, v in params.get("sparse_vectors", {}).items()} or None,
        on_disk_payload=params["on_disk_payload"],
        hnsw_config=_hnsw(config["hnsw_config"]),
        quantization_config=_edge_quantization(config.get("quantization_config")),
        optimizers=qe.EdgeOptimizersConfig(**{k: optimizers.get(k) for k in _EDGE_OPTIMIZER_KEYS}),
    )


def normalize_index_schema(schema: Any) -> str | dict[str, Any]:
    """Validate a REST `field_schema` (a type name or a params object with `type`)."""
    if isinstance(schema, str):
        if schema not in _INDEX_TYPES:
            raise unsupported(f"payload index type {schema!r}")
        return schema
    if not isinstance(schema, dict) or schema.get("type") not in _INDEX_TYPES:
        raise unsupported(f"payload index schema {schema!r}")
    _, _, allowed = _INDEX_TYPES[schema["type"]]
    params = _pick({k: v for k, v in schema.items() if k != "type"}, allowed, f"{schema['type']} index params")
    if "memory" in params and params["memory"] not in _MEMORY:
        raise bad_request(f"memory must be one of {sorted(_MEMORY)}")
    return {"type": schema["type"], **params}


def edge_index_schema(schema: str | dict[str, Any]) -> Any:
    """A normalised field schema as the qdrant-edge PayloadSchemaType or index params object."""
    if isinstance(schema, str):
        return _INDEX_TYPES[schema][0]
    _, params_class, _ = _INDEX_TYPES[schema["type"]]
    kwargs = {k: v for k, v in schema.items() if k != "type"}
    if "memory" in kwargs:
        kwargs["memory"] = _MEMORY[kwargs["memory"]]
    return params_class(**kwargs)


def render_payload_schema(schemas: dict[str, str | dict[str, Any]], points: dict[str, int]) -> dict[str, Any]:
    """REST `payload_schema`: per field its data type, params (when given) and indexed point count."""
    out = {}
    for field, schema in schemas.items():
        entry: dict[str, Any] = {"data_type": schema if isinstance(schema, str) else schema["type"]}
        if isinstance(schema, dict):
            entry["params"] = copy.deepcopy(schema)
        entry["points"] = points.get(field, 0)
        out[field] = entry
    return out
