"""The floor of a search: the same query's unavoidable work done in-process, so a latency is read as a ratio.

A search must embed its query, ask Qdrant for candidates and re-validate them in Postgres. The floor does
those three for the same query, in this process, against the service's own collection and database:
- embedding: the configured embedding provider (``build_embedding``: the in-process local model with local
  providers), one call for the query and, when it asks about someone, the query in their words
  (elf_domain.speakers), as a search does when its query-vector cache misses; wall time (and this process's
  CPU time, which counts every onnxruntime thread);
- Qdrant: the search's batch of a dense and a BM25 query, the dense query among the notes observed on a
  date the query names when it names one, and the dense query in the speaker's words among their notes when it
  asks about someone (``elf_infra.index.hybrid.recall_batch``, ids and scores only) under
  the same payload filter (``notes_collection.read_filter`` of the read profile's scopes), limit
  ``memory.candidate_k``; the figure is the engine's own ``time`` from the REST response (qdrant-client drops
  it from its high-level answer, so the batch goes through its generated REST API; HTTP and JSON are not in it);
- Postgres: the re-validation query of search.services.pipeline ``_revalidate`` (the read rule, status and
  TTL over the candidate chunks, joined with every chunk of the surviving notes), for as many candidate
  chunk ids as the service re-validates (the dense hits, then the BM25 and the dated ones, up to candidate_k and the
  prefilter: the same number, not the service's fused order), over one warm psycopg connection; the figure
  is the wall time of executing it and fetching its rows.
A query's floor is the sum of the three; percentiles are taken over those per-query sums.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import psycopg
from qdrant_client import QdrantClient, models

from bench.stats import percentile
from elf_config import ElfConfig
from elf_domain.spaces import ORG_PROJECT_ID
from elf_domain.speakers import first_person, query_subjects
from elf_domain.time_phrases import observed_ranges
from elf_infra.index import bm25, collection_facts
from elf_infra.index.hybrid import TIE_FETCH, recall_batch
from elf_infra.index.notes_collection import observed_between, read_filter, spoken_by
from elf_infra.index.scope_filter import idf_corpus
from elf_infra.index.search_breadth import dense_params
from elf_infra.providers.factory import build_embedding

WHAT = ("floor = per query, in this process: query embedding (wall) + Qdrant engine time (the response's `time`) "
        "+ Postgres re-validation (wall: execute + fetch)")


@dataclass(frozen=True)
class QueryFloor:
    embed_ms: float
    embed_cpu_ms: float
    qdrant_ms: float
    postgres_ms: float
    candidates: int  # chunk ids re-validated
    rows: int = 0  # chunk rows the re-validation returned (every chunk of the surviving notes)

    @property
    def total_ms(self) -> float:
        return self.embed_ms + self.qdrant_ms + self.postgres_ms

    @property
    def cpu_ms(self) -> float:
        """CPU the floor's work takes: the embedding's CPU time, and Qdrant's and Postgres's times counted whole."""
        return self.embed_cpu_ms + self.qdrant_ms + self.postgres_ms


def ratio(measured: Sequence[float], floors: Sequence[float], p: float) -> float:
    """The p-th percentile (0-100) of ``measured`` over the p-th percentile of ``floors``."""
    return percentile(measured, p) / percentile(floors, p)


def candidate_ids(dense: Sequence[str], lexical: Sequence[str], limit: int) -> list[str]:
    """As many distinct chunk ids as the search's fusion keeps (dense hits first, then BM25, up to ``limit``)."""
    return list(dict.fromkeys([*dense, *lexical]))[:limit]


class _EngineTimed:
    """Stands in for the QdrantClient in ``recall_batch``: sends its batch through qdrant-client's REST
    API, which keeps the engine's ``time`` (seconds) that the high-level call drops."""

    def __init__(self, client: QdrantClient):
        self.client, self.seconds = client, 0.0

    def query_batch_points(self, collection_name: str, requests: Sequence[models.QueryRequest]):
        answer = self.client.http.search_api.query_batch_points(
            collection_name=collection_name, query_request_batch=models.QueryRequestBatch(searches=list(requests)))
        self.seconds = answer.time
        return answer.result


# search.services.pipeline._revalidate: the ORM query written out (readable_notes + not_expired + status over
# the candidate chunks, select_related note), with the chunk ids as one array parameter.
REVALIDATE = """SELECT c.chunk_id, c.note_id, c.chunk_index, c.start_offset, c.end_offset, c.text, c.embedding_version,
    c.created_at, n.note_id, n.tenant_id, n.project_id, n.agent_id, n.scope, n.type, n.key, n.text, n.importance,
    n.confidence, n.status, n.created_at, n.updated_at, n.expires_at, n.embedding_version, n.source_ref,
    n.hit_count, n.last_hit_at
FROM memory_note_chunks c JOIN memory_notes n ON c.note_id = n.note_id
WHERE c.note_id IN (
    SELECT v0.note_id FROM memory_notes v0 JOIN memory_note_chunks v1 ON v0.note_id = v1.note_id
    WHERE v0.tenant_id = %(tenant)s
      AND ((v0.project_id = %(project)s AND v0.scope IN ('agent_private', 'project_shared'))
           OR (v0.project_id = %(org)s AND v0.scope = 'org_shared'))
      AND v0.scope = ANY(%(scopes)s)
      AND (v0.agent_id = %(agent)s OR (v0.scope IN ('project_shared', 'org_shared') AND EXISTS(
          SELECT 1 FROM memory_space_grants g
          WHERE g.project_id = v0.project_id AND g.scope = v0.scope AND g.space_owner_agent_id = v0.agent_id
            AND g.tenant_id = v0.tenant_id AND g.revoked_at IS NULL
            AND (g.grantee_kind = 'project' OR (g.grantee_agent_id = %(agent)s AND g.grantee_kind = 'agent'))
          LIMIT 1)))
      AND v1.chunk_id = ANY(%(chunks)s::uuid[]) AND v0.status = 'active'
      AND (v0.expires_at IS NULL OR v0.expires_at > now()))"""


class SearchFloor:
    """Measures the floor of one query at a time for one caller (tenant, project, agent, read profile)."""

    def __init__(self, cfg: ElfConfig, *, tenant: str, project: str, agent: str, read_profile: str):
        scopes = list(cfg.scopes.read_profiles[read_profile])
        self.collection = cfg.storage.qdrant.collection
        self.limit = cfg.memory.candidate_k
        if 0 < cfg.search.prefilter.max_candidates < self.limit:
            self.limit = cfg.search.prefilter.max_candidates
        self.embedder = build_embedding(cfg)
        self.embedder.embed(["warm up"])  # a loaded model, as the service's is
        self.qdrant = _EngineTimed(QdrantClient(url=cfg.storage.qdrant.url, timeout=60))
        self.flt = read_filter(tenant_id=tenant, project_id=project, agent_id=agent, scopes=scopes,
                               by=collection_facts.facts(self.qdrant.client, self.collection).read_by)
        self.corpus = idf_corpus(tenant, project)
        self.conn = psycopg.connect(cfg.storage.postgres.dsn, autocommit=True)
        self.params = {"tenant": tenant, "project": project, "org": ORG_PROJECT_ID, "scopes": scopes, "agent": agent}

    def measure(self, query: str) -> QueryFloor:
        t0, c0 = time.perf_counter(), time.process_time()
        subjects = query_subjects(query)
        vectors = self.embedder.embed([query, first_person(query, subjects)] if subjects else [query])
        embed_ms, embed_cpu_ms = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        ranges = observed_ranges(query)
        found = recall_batch(self.qdrant, self.collection, vectors[0], bm25.embed_query(query), self.flt, self.limit,
                             with_payload=False, lexical_limit=self.limit * TIE_FETCH, idf_corpus=self.corpus,
                             observed=observed_between(ranges) if ranges else None,
                             dense_params=dense_params(self.qdrant.client, self.collection),
                             speaker=(vectors[1], spoken_by(subjects)) if subjects else None)
        qdrant_ms = self.qdrant.seconds * 1000
        ids = candidate_ids([str(p.id) for p in found.dense],
                            [str(p.id) for p in [*found.bm25, *found.observed, *found.speaker]], self.limit)
        t0 = time.perf_counter()
        rows = self.conn.execute(REVALIDATE, {**self.params, "chunks": ids}).fetchall()
        postgres_ms = (time.perf_counter() - t0) * 1000
        return QueryFloor(embed_ms, embed_cpu_ms, qdrant_ms, postgres_ms, len(ids), len(rows))

    def close(self) -> None:
        self.conn.close()
        self.qdrant.client.close()
