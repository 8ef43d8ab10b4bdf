"""A hybrid collection in Qdrant, through plain qdrant-client: a named dense vector `dense` (cosine) and a
sparse vector `bm25` (IDF modifier, computed in the app by `elf_infra.index.bm25`) per point, with keyword
payload indexes. Notes use it (`notes_collection`), and so do documents. Text is never stored in Qdrant:
Postgres is authoritative and Qdrant may be stale.

BM25's IDF is computed over the caller's (tenant, project), not the whole collection: every BM25 request names
that project's points as the IDF corpus (`params.idf.corpus`, Qdrant's `IdfCorpusParams`;
`scope_filter.idf_corpus`). So one tenant's or project's writes never move another's scores, and no one can
learn from its own scores which words others write (issue 36). Document vectors carry only BM25's
term-frequency part, with a fixed average length (`bm25.BM25_AVG_LEN`), so they depend on no corpus either;
nothing about the statistics is stored, and a rebuild from Postgres restores them exactly.

Why the project and not exactly what the search may read (which adds the org space's org_shared points and
leaves out other agents' private ones): Qdrant counts the corpus per request, and each condition of the corpus
filter costs (at 100k notes in one project, per BM25 query: no corpus 1.1 ms, the tenant alone 2.2 ms, tenant
and project 4-6 ms, the full read filter 7-7.5 ms, a MatchAny of two projects 7 ms). An org_shared note is
scored with the statistics of the project that reads it. The corpus is one keyword condition also because the
embedded server keeps the document frequencies of such a corpus instead of counting them per request
(elf_infra/qdrant_server/term_stats.py: 12.4 -> 3.3 ms per BM25 query at 1M notes in one project).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import UnexpectedResponse

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "bm25"
LOG = logging.getLogger("elf.index")
TIE_FETCH = 2  # the BM25 leg asks for this many times its limit, to see where a tie group at the limit ends


def scoped_idf(corpus: models.Filter | None) -> models.SearchParams | None:
    """A BM25 request's search params: IDF over the points ``corpus`` admits (the caller's project). None
    (collection-wide IDF) only for a search that names no corpus, which no tenant's request makes."""
    if corpus is None:
        return None
    return models.SearchParams(idf=models.IdfCorpusParams(corpus=corpus))


class CollectionMismatch(RuntimeError):
    """An existing collection does not have the vectors a hybrid index needs."""


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


def dense_quantization(kind: str) -> models.ScalarQuantization | None:
    """The dense vector's quantization for ``storage.qdrant.dense_quantization``: "int8" keeps an int8 copy of
    every vector in RAM, which the HNSW search walks (about twice as fast as float at 384 dimensions), and the
    candidates are rescored with the float vectors (``RESCORE``); "none", float only."""
    if kind == "none":
        return None
    return models.ScalarQuantization(scalar=models.ScalarQuantizationConfig(
        type=models.ScalarType.INT8, quantile=0.99, always_ram=True))


# Sent with every dense request: the returned points carry their float cosine (exact), whatever the collection
# stores; a collection without quantization ignores it (qdrant-edge's default would return the int8 estimate).
RESCORE = models.QuantizationSearchParams(rescore=True)


def dense_search_params(hnsw_ef: int | None = None) -> models.SearchParams:
    """A dense request's search params: ``hnsw_ef`` (None: Qdrant's default) and RESCORE."""
    return models.SearchParams(hnsw_ef=hnsw_ef, quantization=RESCORE)


def ensure_hybrid_collection(client: QdrantClient, name: str, vector_dim: int, keyword_indexes: Sequence[str], *,
                             quantization: str) -> None:
    """Create the collection (its dense vector quantized as ``quantization`` says, see dense_quantization) and
    its keyword payload indexes when missing.

    An existing collection is checked instead: a different dense size or distance, or a missing `bm25`
    IDF sparse vector, raises CollectionMismatch (it is never changed or dropped here); another quantization
    than ``quantization`` is only logged (the collection works as it is; docs/operations.md, "Quantized dense
    vectors").
    """
    if not client.collection_exists(name):
        try:
            client.create_collection(
                name,
                vectors_config={DENSE_VECTOR: models.VectorParams(
                    size=vector_dim, distance=models.Distance.COSINE,
                    quantization_config=dense_quantization(quantization))},
                sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            )
        except UnexpectedResponse:
            if not client.collection_exists(name):  # else another process created it first
                raise
    info = client.get_collection(name)
    problem = _describe_mismatch(info, name, vector_dim)
    if problem:
        raise CollectionMismatch(problem)
    _warn_other_quantization(info, name, quantization)
    for field in keyword_indexes:
        if field not in info.payload_schema:
            client.create_payload_index(name, field, models.PayloadSchemaType.KEYWORD, wait=True)
            _warn_points_without(client, name, field)


def collection_quantization(info: models.CollectionInfo) -> str:
    """What an existing collection stores for its dense vector: "int8" or "none"."""
    params = info.config.params
    dense = params.vectors.get(DENSE_VECTOR) if isinstance(params.vectors, dict) else None
    quant = (dense.quantization_config if dense is not None else None) or info.config.quantization_config
    return "int8" if isinstance(quant, models.ScalarQuantization) else "none"


def _warn_other_quantization(info: models.CollectionInfo, name: str, wanted: str) -> None:
    have = collection_quantization(info)
    if have != wanted:
        LOG.warning("collection %s stores its dense vectors as %s, not %s as storage.qdrant.dense_quantization "
                    "says; it keeps working as it is, and a rebuild into a new collection applies the setting "
                    "(docs/operations.md, \"Quantized dense vectors\")", name, have, wanted)


def _warn_points_without(client: QdrantClient, name: str, field: str) -> None:
    """A payload field new to an existing collection (e.g. `lexical_scope`, issue 36): points written before
    lack it until re-indexed, so say how many and what restores them (the rebuild reads Postgres' vectors and
    calls no embedding provider)."""
    lacking = client.count(name, count_filter=models.Filter(must=[models.IsEmptyCondition(
        is_empty=models.PayloadField(key=field))]), exact=True).count
    if lacking:
        LOG.warning("collection %s: %d points have no %r payload (written by an earlier version); until "
                    "`manage.py rebuild_qdrant` re-indexes them, searches rank them with less accurate BM25 "
                    "statistics", name, lacking, field)


@dataclass(frozen=True)
class RecallLists:
    """What one recall batch found, each list with its own scores: the dense and the BM25 candidates, the
    dense candidates among the points observed when the query says (empty when it names no date), and the
    candidates of the ``speaker`` search (empty when none was asked)."""

    dense: list[models.ScoredPoint]
    bm25: list[models.ScoredPoint]
    observed: list[models.ScoredPoint]
    speaker: Sequence[models.ScoredPoint] = ()


def recall_batch(
    client: QdrantClient,
    name: str,
    dense: Sequence[float],
    sparse: models.SparseVector,
    payload_filter: models.Filter | None,
    limit: int,
    *,
    with_payload: bool | Sequence[str] = True,
    lexical_limit: int | None = None,
    idf_corpus: models.Filter | None = None,
    observed: models.Filter | None = None,
    dense_params: models.SearchParams | None = None,
    speaker: tuple[Sequence[float], models.Filter] | None = None,
) -> RecallLists:
    """The dense and the BM25 candidates (up to `limit`, BM25 up to `lexical_limit` when given; both under
    `payload_filter`; BM25's IDF over `idf_corpus`; the dense ones searched with `dense_params`, see
    search_breadth), with an `observed` filter the dense candidates under both filters, and with `speaker` (a
    vector and a filter) the dense candidates of that vector under both filters, in one batch request, for
    fusion in the app. A query that is only stopwords has an empty BM25
    vector: its BM25 list is empty and not asked for."""
    payload = with_payload if isinstance(with_payload, bool) else list(with_payload)
    vector = [float(x) for x in dense]
    requests = [models.QueryRequest(query=vector, using=DENSE_VECTOR, filter=payload_filter, limit=limit,
                                    params=dense_params, with_payload=payload)]
    if sparse.indices:
        requests.append(models.QueryRequest(query=sparse, using=SPARSE_VECTOR, filter=payload_filter,
                                            limit=lexical_limit or limit, params=scoped_idf(idf_corpus),
                                            with_payload=payload))
    narrowed = [(vector, observed)] if observed is not None else []  # dense searches under one more filter
    if speaker is not None:
        narrowed.append(([float(x) for x in speaker[0]], speaker[1]))
    for query, also in narrowed:
        both = models.Filter(must=[f for f in (payload_filter, also) if f is not None])
        requests.append(models.QueryRequest(query=query, using=DENSE_VECTOR, filter=both, limit=limit,
                                            params=dense_params, with_payload=payload))
    results = iter(client.query_batch_points(name, requests=requests))
    first = next(results).points
    lexical = next(results).points if sparse.indices else []
    dated = next(results).points if observed is not None else []
    return RecallLists(first, lexical, dated, next(results).points if speaker is not None else [])


def upsert_points(client: QdrantClient, name: str, points: Sequence[models.PointStruct]) -> None:
    """Upsert points and wait until they are applied."""
    if points:
        client.upsert(name, points=list(points), wait=True)


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
    idf_corpus: models.Filter | None = None,
) -> list[models.ScoredPoint]:
    """Dense and BM25 candidates (each `prefetch_limit`, default `limit`, both under `payload_filter`; BM25's IDF
    over `idf_corpus`),
    fused with RRF; returns the top `limit` points with their payload (or only the named fields).

    `rrf_k=None` uses the server's RRF constant (Qdrant: 2); a value sends `{"rrf": {"k": rrf_k}}`.
    A query that is only stopwords has an empty BM25 vector and runs on the dense candidates alone.
    """
    per_source = prefetch_limit if prefetch_limit is not None else limit
    prefetch = [models.Prefetch(query=[float(x) for x in dense], using=DENSE_VECTOR, filter=payload_filter,
                                limit=per_source, params=dense_search_params())]
    if sparse.indices:
        prefetch.append(models.Prefetch(query=sparse, using=SPARSE_VECTOR, filter=payload_filter, limit=per_source,
                                        params=scoped_idf(idf_corpus)))
    fusion: models.FusionQuery | models.RrfQuery = (
        models.FusionQuery(fusion=models.Fusion.RRF) if rrf_k is None else models.RrfQuery(rrf=models.Rrf(k=rrf_k))
    )
    payload = with_payload if isinstance(with_payload, bool) else list(with_payload)
    return client.query_points(name, prefetch=prefetch, query=fusion, limit=limit, with_payload=payload).points
