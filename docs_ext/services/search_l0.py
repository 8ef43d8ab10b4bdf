"""docs_search_l0 (doc-extension-v1 "L0: discovery"): dense + BM25 prefetch fused by Qdrant with RRF in the
doc collection, re-validated in Postgres under the read rule, each hit a tiny preview and a ready-to-store
``source_ref/v1`` pointer (supplement section 3). Discovery only: real reading is docs_excerpts_get."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models.functions import Substr

from elf_config import ElfConfig
from elf_domain.vocabulary import KNOWN_SCOPES
from elf_infra.index import bm25
from elf_infra.index.hybrid import hybrid_query
from elf_infra.index.scope_filter import idf_corpus, scope_filter
from elf_infra.providers.factory import build_embedding
from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import InvalidRequest

from ..domain.excerpts import LEVEL_BYTES
from ..indexing.index import docs_index
from ..models import DocChunk, DocDocument
from ..selectors import readable_docs
from .docs_enabled import require_enabled
from .excerpts import RESOLVER


@dataclass(frozen=True)
class L0Hit:
    doc: DocDocument
    chunk: DocChunk
    score: float
    preview: str

    def pointer(self) -> dict:
        """A source_ref/v1 an agent can store on a note and hydrate later with docs_excerpts_get."""
        d, c = self.doc, self.chunk
        return {
            "schema": "source_ref/v1", "resolver": RESOLVER,
            "ref": {"doc_id": str(d.doc_id), "chunk_id": str(c.chunk_id)},
            "state": {"content_hash": d.content_hash, "chunk_hash": c.chunk_hash,
                      "doc_updated_at": d.updated_at.isoformat()},
            "hashes": {"content_hash": d.content_hash, "chunk_hash": c.chunk_hash},
            "locator": {"position": {"start": c.start_offset, "end": c.end_offset}, "level": "L0"},
        }


def search_l0(*, cfg: ElfConfig, ctx: RequestContext, query: str, top_k: int, candidate_k: int,
              scope: str | None) -> list[L0Hit]:
    """docs_search_l0, the entry point its route calls: the query meets the English gate and must not be blank;
    candidate_k is at least top_k; ``scope`` None searches every scope the read rule lets the caller see."""
    require_enabled(cfg)
    require_english([("$.query", query, NATURAL)])
    if not query.strip():
        raise InvalidRequest("query must not be empty.", ["$.query"])
    query, candidate_k = query.strip(), max(candidate_k, top_k)
    scopes = [scope] if scope else list(KNOWN_SCOPES)
    dense = build_embedding(cfg).embed([query])[0]
    sparse = bm25.embed_query(query)
    flt = scope_filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scopes=scopes)
    corpus = idf_corpus(ctx.tenant_id, ctx.project_id)
    points = docs_index(cfg).handle.call(
        lambda client, name: hybrid_query(client, name, dense, sparse, flt, candidate_k, with_payload=["doc_id"],
                                          idf_corpus=corpus))
    # Equal RRF scores are ordered by chunk id: Qdrant's order among ties follows its segment layout, which
    # other tenants' writes change (issue 36: a tenant's ranking is its own).
    ranked = sorted(((str(p.id), p.score) for p in points), key=lambda hit: (-hit[1], hit[0]))
    # Only what a hit shows: never a document's content, and of a chunk's text its head for the preview.
    chunks = {str(c.chunk_id): c for c in DocChunk.objects.filter(chunk_id__in=[cid for cid, _ in ranked])
              .defer("chunk_text").annotate(head=Substr("chunk_text", 1, LEVEL_BYTES["L0"]))}
    docs = {d.doc_id: d for d in readable_docs(ctx).filter(doc_id__in={c.doc_id for c in chunks.values()})
            .only("doc_id", "title", "scope", "content_hash", "updated_at")}
    hits = []
    for cid, score in ranked:
        chunk = chunks.get(cid)
        if chunk is None or chunk.doc_id not in docs:
            continue  # a stale point, or a document the caller may not read
        # The preview: the chunk's first ~256 bytes (a character cut short at the end is dropped).
        head = chunk.head.encode("utf-8")[:LEVEL_BYTES["L0"]]
        hits.append(L0Hit(docs[chunk.doc_id], chunk, score, head.decode("utf-8", errors="ignore")))
        if len(hits) == top_k:
            break
    return hits
