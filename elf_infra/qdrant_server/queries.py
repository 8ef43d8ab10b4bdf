"""Qdrant REST query / scroll / count bodies to qdrant-edge requests.

Query forms covered: a dense vector, a multi-vector, a sparse vector, `{"nearest": <vector>}`,
`{"fusion": "rrf" | "dbsf"}`, `{"rrf": {"k", "weights"}}` and `{"order_by": ...}`, with nested
`prefetch` stages. Queries by point id, recommend/discover/context, formula, MMR and `lookup_from` are
refused with 400. A top-level filter also restricts the prefetch stages (qdrant-edge plans it so, like
the Qdrant server).
"""

from __future__ import annotations

from typing import Any

import qdrant_edge as qe

from .errors import bad_request, unsupported
from .filters import build_filter
from .points import point_id, sparse_vector, with_payload, with_vector

# Qdrant's RRF constant when `{"fusion": "rrf"}` names no k (qdrant-client's local mode uses the same).
DEFAULT_RRF_K = 2
DEFAULT_LIMIT = 10

_QUERY_KEYS = {
    "shard_key", "prefetch", "query", "using", "filter", "params", "score_threshold", "limit", "offset",
    "with_vector", "with_payload", "lookup_from",
}
_PREFETCH_KEYS = {"prefetch", "query", "using", "filter", "params", "score_threshold", "limit", "lookup_from"}
_DIRECTIONS = {"asc": qe.Direction.Asc, "desc": qe.Direction.Desc}


def _check_keys(body: dict[str, Any], allowed: set[str], what: str) -> None:
    unknown = set(body) - allowed
    if unknown:
        raise bad_request(f"unknown {what} fields: {sorted(unknown)}")
    if body.get("lookup_from") is not None:
        raise unsupported("`lookup_from`")
    if body.get("shard_key") is not None:
        raise unsupported("`shard_key`")


def _limit(value: Any) -> int:
    if value is None:
        return DEFAULT_LIMIT
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise bad_request("limit must be a non-negative integer")
    return value


def build_query_request(body: Any) -> qe.QueryRequest:
    """A REST `QueryRequest` body to a qdrant-edge QueryRequest (payload and vectors off by default)."""
    if not isinstance(body, dict):
        raise bad_request("query request must be an object")
    _check_keys(body, _QUERY_KEYS, "query request")
    offset = body.get("offset")
    if offset is not None and (not isinstance(offset, int) or offset < 0):
        raise bad_request("offset must be a non-negative integer")
    return qe.QueryRequest(
        limit=_limit(body.get("limit")),
        offset=offset,
        query=_query(body.get("query"), body.get("using")),
        prefetches=_prefetches(body.get("prefetch")),
        with_vector=with_vector(body.get("with_vector"), default=False),
        with_payload=with_payload(body.get("with_payload"), default=False),
        filter=build_filter(body.get("filter")),
        score_threshold=body.get("score_threshold"),
        params=search_params(body.get("params")),
    )


def _prefetches(value: Any) -> list[qe.Prefetch] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    out = []
    for p in items:
        if not isinstance(p, dict):
            raise bad_request("prefetch must be an object")
        _check_keys(p, _PREFETCH_KEYS, "prefetch")
        out.append(
            qe.Prefetch(
                limit=_limit(p.get("limit")),
                query=_query(p.get("query"), p.get("using")),
                prefetches=_prefetches(p.get("prefetch")),
                params=search_params(p.get("params")),
                filter=build_filter(p.get("filter")),
                score_threshold=p.get("score_threshold"),
            )
        )
    return out


def _nearest(vector: Any, using: str | None) -> qe.Query:
    if isinstance(vector, list):
        return qe.Query.Nearest(vector, using=using)
    if isinstance(vector, dict) and "indices" in vector:
        return qe.Query.Nearest(sparse_vector(vector), using=using)
    if isinstance(vector, (int, str)):
        raise unsupported("query by point id")
    raise unsupported("this query vector form (inference objects such as Document or Image)")


def _query(q: Any, using: str | None) -> Any:
    if q is None:
        return None
    if not isinstance(q, dict) or "indices" in q:
        return _nearest(q, using)
    if "nearest" in q:
        return _nearest(q["nearest"], using)
    if "fusion" in q:
        if q["fusion"] == "rrf":
            return qe.Fusion.Rrf(k=DEFAULT_RRF_K)
        if q["fusion"] == "dbsf":
            return qe.Fusion.Dbsf()
        raise bad_request(f"unknown fusion {q['fusion']!r}")
    if "rrf" in q:
        rrf = q["rrf"] or {}
        k = rrf.get("k") if rrf.get("k") is not None else DEFAULT_RRF_K
        if not isinstance(k, int) or k < 1:
            raise bad_request("rrf k must be an integer of 1 or more")
        return qe.Fusion.Rrf(k=k, weights=rrf.get("weights"))
    if "order_by" in q:
        return order_by(q["order_by"])
    raise unsupported(f"query type {sorted(q)}")


def order_by(value: Any) -> qe.OrderBy:
    """REST OrderByInterface: a field name or `{"key", "direction", "start_from"}`."""
    if isinstance(value, str):
        return qe.OrderBy(value)
    if not isinstance(value, dict) or not isinstance(value.get("key"), str):
        raise bad_request("order_by must be a key or an object with `key`")
    direction = value.get("direction")
    if direction is not None and direction not in _DIRECTIONS:
        raise bad_request("order_by direction must be asc or desc")
    return qe.OrderBy(
        value["key"],
        direction=_DIRECTIONS[direction] if direction else None,
        start_from=value.get("start_from"),
    )


def _idf_params(value: Any) -> qe.IdfParams | None:
    """REST IdfParams: the named scope "global" (collection-wide, as when absent) or `{"corpus": <filter>}`."""
    if value is None or value == "global":
        return None
    if not isinstance(value, dict) or set(value) != {"corpus"}:
        raise bad_request('params.idf must be "global" or {"corpus": <filter>}')
    return qe.IdfParams(corpus=build_filter(value["corpus"]))


def search_params(value: Any) -> qe.SearchParams | None:
    """REST SearchParams (hnsw_ef, exact, indexed_only, quantization, acorn, idf) to qdrant-edge."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad_request("params must be an object")
    quant, acorn, idf = value.get("quantization"), value.get("acorn"), value.get("idf")
    return qe.SearchParams(
        hnsw_ef=value.get("hnsw_ef"),
        exact=bool(value.get("exact") or False),
        indexed_only=bool(value.get("indexed_only") or False),
        quantization=qe.QuantizationSearchParams(
            ignore=bool(quant.get("ignore") or False),
            rescore=quant.get("rescore"),
            oversampling=quant.get("oversampling"),
        ) if quant else None,
        acorn=qe.AcornSearchParams(
            enable=bool(acorn.get("enable") or False), max_selectivity=acorn.get("max_selectivity")
        ) if acorn else None,
        idf=_idf_params(idf),
    )


def build_scroll_request(body: dict[str, Any]) -> qe.ScrollRequest:
    """A REST `ScrollRequest` body (payload on and vectors off by default, page size 10)."""
    offset = body.get("offset")
    return qe.ScrollRequest(
        offset=point_id(offset) if offset is not None else None,
        limit=_limit(body.get("limit")),
        filter=build_filter(body.get("filter")),
        with_payload=with_payload(body.get("with_payload"), default=True),
        with_vector=with_vector(body.get("with_vector"), default=False),
        order_by=order_by(body["order_by"]) if body.get("order_by") is not None else None,
    )


def build_count_request(body: dict[str, Any]) -> qe.CountRequest:
    """A REST `CountRequest` body (exact by default)."""
    exact = body.get("exact")
    return qe.CountRequest(exact=True if exact is None else bool(exact), filter=build_filter(body.get("filter")))
