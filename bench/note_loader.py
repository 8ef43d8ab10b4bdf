"""Bulk-loading synthetic notes the way the indexing worker would leave them, for the search and scale benches.

Each note is one row in memory_notes, memory_note_chunks, note_chunk_embeddings and note_embeddings (binary
COPY, one transaction per batch) and one Qdrant point (dense + BM25, the payload of
``notes_collection.chunk_point``). Texts are LoCoMo dialogue sentences; only the distinct sentences (about
12k) are embedded with the configured local model, once, and a note repeating a sentence gets that vector
plus small Gaussian noise (re-normalised) and a distinct suffix ("(copy N)"), so a million notes load in
minutes instead of hours of embedding. Those copies make the true top 10 of a question near-ties, so the scale
bench's overlap@10 loads distinct notes instead (``pairs``: bench.pair_notes, each embedded by the model, cached).

The Qdrant points go to the collection's REST API as JSON encoded with orjson (the vectors straight from
numpy), in batches sent from two threads while this thread writes the next batch to Postgres: building
pydantic PointStructs and encoding them with qdrant-client costs more than the server's work.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import orjson
import psycopg
import requests
from pgvector.psycopg import register_vector
from qdrant_client import QdrantClient

from bench.add_note_bench import sentences
from bench.pair_notes import PairVectors
from bench.scale_probe import NOTES_TABLES
from elf_config import ElfConfig
from elf_domain.speakers import speaker_label
from elf_infra.index import bm25
from elf_infra.index.hybrid import DENSE_VECTOR, SPARSE_VECTOR
from elf_infra.index.notes_collection import chunk_point, ensure_notes_collection
from elf_infra.providers.local_embedder import LocalEmbedder

NOISE = 0.02
BATCH = 10_000  # notes per Postgres transaction
UPSERT_BATCH = 1_000  # points per Qdrant request
SCOPE, NOTE_TYPE = "agent_private", "fact"

_NOTE_COLUMNS = (
    "COPY memory_notes (note_id, tenant_id, project_id, agent_id, scope, type, text, importance, confidence, "
    "status, created_at, updated_at, embedding_version, source_ref) FROM STDIN WITH (FORMAT BINARY)"
)
_NOTE_TYPES = ["uuid", "text", "text", "text", "text", "text", "text", "real", "real", "text", "timestamptz",
               "timestamptz", "text", "jsonb"]
_CHUNK_COLUMNS = ("COPY memory_note_chunks (chunk_id, note_id, chunk_index, start_offset, end_offset, text, "
                  "embedding_version) FROM STDIN WITH (FORMAT BINARY)")


@dataclass(frozen=True)
class Owner:
    """Whose notes are loaded: tenant, project and agent (scope agent_private, type fact, status active)."""

    tenant: str
    project: str
    agent: str


class NoteLoader:
    """Loads notes numbered ``start .. start + count`` of a deterministic sequence for one owner: copies of
    ``distinct`` sentences, or with ``pairs`` that many distinct notes (bench.pair_notes)."""

    def __init__(self, cfg: ElfConfig, distinct: int = 20000, pairs: PairVectors | None = None):
        self.cfg = cfg
        self.pairs = pairs
        t0 = time.perf_counter()
        if pairs is not None:
            self.pair_vecs = pairs.vectors()
        else:
            self.base = sentences(distinct)
            self.base_vecs = np.asarray(LocalEmbedder(cfg.providers.embedding.model).embed(self.base),
                                        dtype=np.float32)
            print(f"embedded {len(self.base)} distinct sentences in {time.perf_counter() - t0:.1f} s", flush=True)
        self.rng = np.random.default_rng(7)
        self.collection = cfg.storage.qdrant.collection
        self.qdrant = QdrantClient(url=cfg.storage.qdrant.url, timeout=300)
        ensure_notes_collection(self.qdrant, self.collection, cfg.storage.qdrant.vector_dim,
                                quantization=cfg.storage.qdrant.dense_quantization)
        self.points_url = f"{cfg.storage.qdrant.url.rstrip('/')}/collections/{self.collection}/points?wait=true"
        self.http = requests.Session()
        self.pool = ThreadPoolExecutor(2)

    def notes(self, start: int, count: int) -> tuple[list[str], np.ndarray]:
        """Texts and unit vectors of notes ``start .. start + count``: note i is base sentence i mod n, its
        embedding as is the first time, with noise and a "(copy k)" suffix the k-th time after; with pairs, the
        pair notes ``start .. start + count`` and their cached vectors."""
        if self.pairs is not None:
            if start + count > self.pairs.count:
                raise ValueError(f"only {self.pairs.count:,} pair notes are embedded; {start + count:,} are needed")
            return self.pairs.texts[start:start + count], np.array(self.pair_vecs[start:start + count])
        idx = np.arange(start, start + count)
        j, rep = idx % len(self.base), idx // len(self.base)
        vecs = self.base_vecs[j].copy()
        noisy = rep > 0
        vecs[noisy] += self.rng.normal(0, NOISE, (int(noisy.sum()), vecs.shape[1])).astype(np.float32)
        vecs[noisy] /= np.linalg.norm(vecs[noisy], axis=1, keepdims=True)
        texts = [self.base[a] if b == 0 else f"{self.base[a]} (copy {b})" for a, b in zip(j.tolist(), rep.tolist(),
                                                                                          strict=True)]
        return texts, vecs

    def load(self, owner: Owner, start: int, count: int) -> float:
        """Write notes ``start .. start + count`` for ``owner``; returns the seconds taken (all points applied)."""
        return self.load_owners([owner], start, count)

    def load_owners(self, owners: list[Owner], start: int, per_owner: int) -> float:
        """Write ``per_owner`` notes for each of ``owners`` (notes ``start ..``, the first ``per_owner`` for the
        first owner, and so on); returns the seconds taken (all points applied)."""
        t0 = time.perf_counter()
        pending: list[Future] = []
        total = len(owners) * per_owner
        for b in range(start, start + total, BATCH):
            n = min(BATCH, start + total - b)
            texts, vecs = self.notes(b, n)
            whose = [owners[(i - start) // per_owner] for i in range(b, b + n)]
            ids = [(uuid.uuid4(), uuid.uuid4()) for _ in range(n)]
            self._copy(whose, texts, vecs, ids)
            for k in range(0, n, UPSERT_BATCH):
                part = slice(k, k + UPSERT_BATCH)
                pending.append(self.pool.submit(self._upsert, self._points(whose[part], texts[part], vecs[part],
                                                                           ids[part])))
            while len(pending) > 4 * BATCH // UPSERT_BATCH:  # bounded memory: wait for the oldest requests
                pending.pop(0).result()
        for f in pending:
            f.result()
        self._analyze()
        return time.perf_counter() - t0

    def _analyze(self) -> None:
        """ANALYZE the four tables, as import_tenant does after a bulk import: until then the planner has the
        statistics of before the load, and the search's re-validation of 10k notes just loaded took 300 ms."""
        with psycopg.connect(self.cfg.storage.postgres.dsn, autocommit=True) as conn:
            for table in NOTES_TABLES:
                conn.execute(f"ANALYZE {table}")

    def _copy(self, owners: list[Owner], texts: list[str], vecs: np.ndarray, ids: list[tuple[uuid.UUID, uuid.UUID]]
              ) -> None:
        cfg, ev, dim = self.cfg, self.cfg.embedding_version, self.cfg.storage.qdrant.vector_dim
        now = datetime.now(UTC)
        empty = psycopg.types.json.Jsonb({})
        with psycopg.connect(cfg.storage.postgres.dsn) as conn:
            register_vector(conn)
            with conn.cursor() as cur:
                with cur.copy(_NOTE_COLUMNS) as cp:
                    cp.set_types(_NOTE_TYPES)
                    for (note_id, _), text, o in zip(ids, texts, owners, strict=True):
                        cp.write_row((note_id, o.tenant, o.project, o.agent, SCOPE, NOTE_TYPE, text, 0.5, 0.9,
                                      "active", now, now, ev, empty))
                with cur.copy(_CHUNK_COLUMNS) as cp:
                    cp.set_types(["uuid", "uuid", "int4", "int4", "int4", "text", "text"])
                    for (note_id, chunk_id), text in zip(ids, texts, strict=True):
                        cp.write_row((chunk_id, note_id, 0, 0, len(text.encode()), text, ev))
                for table, key in (("note_chunk_embeddings", 1), ("note_embeddings", 0)):
                    column = "chunk_id" if key else "note_id"
                    with cur.copy(f"COPY {table} ({column}, embedding_version, embedding_dim, vec) "
                                  "FROM STDIN WITH (FORMAT BINARY)") as cp:
                        cp.set_types(["uuid", "text", "int4", "vector"])
                        for pair, vec in zip(ids, vecs, strict=True):
                            cp.write_row((pair[key], ev, dim, vec))

    def _points(self, owners: list[Owner], texts: list[str], vecs: np.ndarray,
                ids: list[tuple[uuid.UUID, uuid.UUID]]) -> bytes:
        """The REST upsert body: each point's payload is chunk_point's (so it cannot drift from the worker's),
        its dense vector the numpy row and its BM25 vector bm25.embed_document's."""
        now = datetime.now(UTC)
        points = []
        for (note_id, chunk_id), text, vec, owner in zip(ids, texts, vecs, owners, strict=True):
            sparse = bm25.embed_document(text)
            payload = chunk_point(chunk_id=chunk_id, note_id=note_id, chunk_index=0, start_offset=0,
                                  end_offset=len(text.encode()), tenant_id=owner.tenant, project_id=owner.project,
                                  agent_id=owner.agent, scope=SCOPE, note_type=NOTE_TYPE, key=None, status="active",
                                  updated_at=now, expires_at=None, importance=0.5, confidence=0.9,
                                  embedding_version=self.cfg.embedding_version, dense=(), bm25=sparse,
                                  speaker=speaker_label(text)).payload
            points.append({"id": payload["chunk_id"], "payload": payload,
                           "vector": {DENSE_VECTOR: vec,
                                      SPARSE_VECTOR: {"indices": sparse.indices, "values": sparse.values}}})
        return orjson.dumps({"points": points}, option=orjson.OPT_SERIALIZE_NUMPY)

    def _upsert(self, body: bytes) -> None:
        r = self.http.put(self.points_url, data=body, headers={"Content-Type": "application/json"}, timeout=600)
        if r.status_code != 200:
            raise RuntimeError(f"Qdrant upsert failed: {r.status_code} {r.text[:500]}")

    def wait_green(self, timeout: float = 3600) -> float:
        """Seconds until the collection reports green (its optimizer done), at most ``timeout``."""
        t0 = time.perf_counter()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if str(self.qdrant.get_collection(self.collection).status).lower().endswith("green"):
                break
            time.sleep(1)
        return time.perf_counter() - t0

    def close(self) -> None:
        self.pool.shutdown()
        self.http.close()
        self.qdrant.close()
