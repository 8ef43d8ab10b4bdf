"""planned_search's local rerank from stored vectors (issue 18): the local reranker's formula
(elf_infra.providers.local_rerank.embed_overlap_scores: embedding cosine plus stemmed lexical overlap) fed
with what the search already has, instead of embedding the query and every snippet again:

- the query's vector is the one recall searched with (search.services.recall.query_vector: the query vector
  cache, so no embedding call; with ``context.project_descriptions`` it is the query with its project context,
  as recall embedded it);
- each candidate's vector is its note's pooled vector (``note_embeddings``, the mean of the note's chunk
  vectors) of ``cfg.embedding_version``, all read in one Postgres query. Pooled rather than the chunk's own
  vector: the snippet scored is the chunk stitched with its neighbours, and with notes of several chunks the
  pooled vector ranked better (eval_small with 24-token chunks: recall@10 0.802 pooled, 0.766 chunk, 0.781
  embedding the snippets; MRR@10 0.580 / 0.575 / 0.580). With the default configuration (256-token chunks,
  ``memory.max_note_chars`` 240) every note is one chunk, whose vector is the pooled one;
- when the query asks about someone (elf_domain.speakers: "What did Caroline paint?"), the notes that person
  said are scored against the query in their words ("What did I paint?"), the vector recall's speaker leg
  searched with (from the query vector cache); the other notes against the query itself. On LoCoMo's dev split
  this lifted planned_search from recall@10 0.775 / MRR@10 0.606 (the speaker leg alone) to 0.781 / 0.614;
- the lexical overlap is computed on the snippet text, as the provider does, followed by the day the note was
  observed (``observed_at``, written as "25 May 2022"), so a query naming that day finds its words: the
  reranker agrees with recall's search among the notes observed on a date the query names
  (elf_domain.time_phrases) instead of undoing it.

Cosine is taken in the space of ``providers.embedding`` (the model of the stored vectors and of recall), where
the provider embeds with the in-process MiniLM whatever ``providers.embedding`` is.

A candidate whose note has no stored vector of the current version (it should not happen: a note is stored
with its vectors; it can during a change of embedding_version before the worker has re-embedded it) has its
snippet embedded, in one embedding call for all such candidates, so every candidate gets the same formula. If
that call (or the query's, on a cache miss) fails, the result has no scores and says why, like a failed
provider call: the caller keeps the retrieval order. No cache: the stored vectors are one indexed read, as a
cache lookup would be.
"""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime

import numpy as np
from django.db.models import BinaryField, F, Func
from pgvector import Vector

from elf_config import ElfConfig
from elf_domain.speakers import first_person, query_subjects
from elf_infra.providers.errors import ProviderError
from elf_infra.providers.factory import build_embedding
from elf_infra.providers.local_rerank import embed_overlap_scores
from memory.models import NoteEmbedding

from . import recall
from .rerank import METHOD_STORED_VECTORS, RerankResult

log = logging.getLogger(__name__)


def stored_vector_rerank(cfg: ElfConfig, *, query: str, context_description: str | None,
                         note_ids: list[uuid.UUID], docs: list[str], observed: list[datetime | None],
                         speakers: list[str | None] | None = None) -> RerankResult:
    """Scores of ``docs`` (snippets; ``note_ids[i]`` is the note of ``docs[i]``, ``observed[i]`` its observed_at,
    ``speakers[i]`` its speaker label, all as the search's re-validation read them) for ``query``; see the module
    docstring. ``embedded_docs`` counts the docs whose note had no stored vector and that were embedded."""
    if len(note_ids) != len(docs):
        raise ValueError(f"{len(note_ids)} note ids for {len(docs)} docs")
    if not docs:
        return RerankResult(scores=[], cache_hit=False, called=False, method=METHOD_STORED_VECTORS)
    stored = pooled_vectors(note_ids, cfg.embedding_version)
    missing = [i for i, note_id in enumerate(note_ids) if note_id not in stored]
    embedder = build_embedding(cfg)
    try:
        query_vec = recall.query_vector(
            embedder=embedder,
            embedding_version=cfg.embedding_version,
            query=query,
            context_description=context_description,
        )
        fresh = dict(zip(missing, embedder.embed([docs[i] for i in missing]), strict=False)) if missing else {}
        # The notes of whom the query asks about are scored against the query in their words
        # (elf_domain.speakers), as recall's speaker leg searched them: recall's vector, from the query vector cache.
        subjects = query_subjects(query)
        their_vec = (recall.query_vector(embedder=embedder, embedding_version=cfg.embedding_version,
                                         query=first_person(query, subjects), context_description=context_description)
                     if subjects and speakers and any(s in subjects for s in speakers) else None)
    except ProviderError as exc:
        log.warning("search rerank (stored vectors) failed; keeping the retrieval order: %s", exc)
        return RerankResult(
            scores=None,
            cache_hit=False,
            called=True,
            error=str(exc),
            method=METHOD_STORED_VECTORS,
            embedded_docs=len(missing),
        )
    vectors = [fresh[i] if i in fresh else stored[note_id] for i, note_id in enumerate(note_ids)]
    dated = [f"{doc} {observed_day(at)}" if at is not None else doc for doc, at in zip(docs, observed, strict=True)]
    scores = embed_overlap_scores(query, query_vec, dated, vectors)
    if their_vec is not None:
        theirs = embed_overlap_scores(query, their_vec, dated, vectors)
        scores = [t if s in subjects else o for o, t, s in zip(scores, theirs, speakers or [], strict=True)]
    return RerankResult(
        scores=scores,
        cache_hit=False,
        called=bool(missing),
        method=METHOD_STORED_VECTORS,
        embedded_docs=len(missing),
    )


def observed_day(at: datetime) -> str:
    """The UTC day of ``at`` in words, as a query names it: "25 May 2022"."""
    day = at.astimezone(UTC)
    return f"{day.day} {day:%B %Y}"


def pooled_vectors(note_ids: list[uuid.UUID], embedding_version: str) -> dict[uuid.UUID, np.ndarray]:
    """note id -> its stored pooled vector of ``embedding_version``, in one query (notes without one are absent).
    Read in pgvector's binary form (``vector_send``): parsing 60 vectors from their text took about 10 ms."""
    rows = NoteEmbedding.objects.filter(note_id__in=set(note_ids), embedding_version=embedding_version)
    binary = Func(F("vec"), function="vector_send", output_field=BinaryField())
    return {
        note_id: Vector.from_binary(data).to_numpy()
        for note_id, data in rows.annotate(binary=binary).values_list("note_id", "binary")
    }
