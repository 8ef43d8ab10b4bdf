"""add_note's ingest of gated notes (spec v2 sections 8.1, 8.3, 9-11): deterministic, never calls an LLM.

Per note: WriteGate -> UpdateResolver (key, identical text, pooled-vector similarity in pgvector) -> policy
stage -> the note row, its version snapshot, its structured fields, the ingest decision row and the indexing
outbox row. A request is one transaction (so one commit), its notes resolved one after the other in input
order, each seeing the ones before it. The round trips do not grow with the notes: the resolver reads of
all key-less notes are one statement (``resolver_reads_batched``), the request's own writes applied in Python, and
new notes without structured fields are inserted together (``write_new_notes_together``), with the same outcome.

Each note is embedded once, by the embedding provider (not an LLM), in one call for the whole request and
outside the transaction: every note that passed the gate and is a single chunk (``indexing.chunks``: the
worker's chunking; notes up to ``chunking.max_tokens`` tokens, which is every note of at most
``memory.max_note_chars`` with the shipped config), keyed or not, and every key-less note the resolver
needs a vector for. A single-chunk note that is written (ADD or UPDATE) is stored with its chunk row, chunk
vector and pooled vector in the note's transaction, so the worker only upserts its point. The chunks of a
longer note are embedded by the worker, and its pooled vector comes from them. An embedding outage fails the
request only when a key-less note needs its vector to be resolved; keyed notes are then written without one
and the worker embeds them once the provider answers.

Concurrency: resolution within one (tenant, project, agent, scope, type) group is serialised by a
transaction advisory lock. A request takes the locks of all its groups before its first note, in hash order,
so two concurrent batches always take shared locks in the same order and never deadlock on them; they are
held until commit. Later locks (graph facts of relations) are taken note by note; a deadlock there rolls
the request back and it runs again (the embeddings are kept), when the request owns its transaction.
"""

from __future__ import annotations

import psycopg.errors
from django.db import OperationalError, connection, transaction

from elf_config import ElfConfig
from elf_domain.vocabulary import MEMORY_TYPES
from elf_kernel.context import RequestContext

from ...domain import write_gate
from ...models import Decision, NoteOp, Pipeline
from .decision_rows import RequestRows, rejection_row
from .embed_before_writing import Embedded, embed_notes
from .note_input import NoteInput, NoteResult, home_context
from .resolve_and_write import write_one
from .resolver_reads_batched import RequestLookups
from .write_new_notes_together import PendingNotes


def _gate(cfg: ElfConfig, scope: str, note: NoteInput):
    return write_gate.evaluate_note(
        text=note.text, note_type=note.type, scope=scope, key=note.key,
        max_note_chars=cfg.memory.max_note_chars, allowed_types=MEMORY_TYPES,
        allowed_scopes=cfg.scopes.allowed, write_allowed=cfg.scopes.write_allowed, context=note.context,
    )


def _lock_groups(ctx: RequestContext, scope: str, note_types) -> None:
    """Serialise resolution within each (tenant, project, agent, scope, type) group of the request until
    commit; the locks are taken in hash order, so concurrent requests take shared ones in the same order."""
    groups = ["\x1f".join((ctx.tenant_id, ctx.project_id, ctx.agent_id, scope, t)) for t in sorted(set(note_types))]
    if groups:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(g, 0) AS h "
                        "FROM unnest(%s::text[]) AS g ORDER BY h) AS ordered", [groups])


# A request that deadlocks (graph fact locks taken note by note) runs again this many times in all.
DEADLOCK_ATTEMPTS = 3


def ingest_notes(
    *, cfg: ElfConfig, ctx: RequestContext, scope: str, notes: list[NoteInput], embedder,
    pipeline: str = Pipeline.ADD_NOTE, actor: str | None = None,
) -> list[NoteResult]:
    """Ingest the notes in one transaction, one after the other; results are in input order."""
    actor = actor or f"agent:{ctx.agent_id}"
    ctx = home_context(ctx, scope)
    verdicts = [_gate(cfg, scope, n) for n in notes]
    embedded = embed_notes(cfg, notes, verdicts, embedder)
    owns_transaction, attempt = not connection.in_atomic_block, 1
    while True:
        try:
            with transaction.atomic():
                return _ingest(cfg, ctx, scope, pipeline, notes, verdicts, embedded, actor)
        except OperationalError as exc:
            deadlock = isinstance(exc.__cause__, psycopg.errors.DeadlockDetected)
            if not (deadlock and owns_transaction and attempt < DEADLOCK_ATTEMPTS):
                raise
            attempt += 1


def _ingest(cfg, ctx, scope, pipeline, notes, verdicts, embedded: dict[int, Embedded], actor) -> list[NoteResult]:
    _lock_groups(ctx, scope, [n.type for i, n in enumerate(notes) if i in embedded])
    pending = PendingNotes(cfg.embedding_version)
    lookups = RequestLookups(cfg, ctx, scope, {i: notes[i] for i in embedded},
                             {i: e.vector for i, e in embedded.items() if not notes[i].key}, pending.flush)
    results, rows = [], RequestRows()
    for i, (note, verdict) in enumerate(zip(notes, verdicts, strict=False)):
        if verdict is not None:
            # scope is given once per request, every other field per note
            path = "$.scope" if verdict.field == "scope" else f"{note.field_path}.{verdict.field}"
            rows.decisions.append(rejection_row(cfg, ctx, scope, pipeline, note, verdict.reason_code, path))
            result = NoteResult(None, NoteOp.REJECTED, Decision.REJECT, verdict.reason_code, path)
        else:
            result = write_one(cfg, ctx, scope, pipeline, note, embedded[i], actor, rows, lookups, pending, i)
        result.write_policy_audits = note.decision_extra.get("write_policy_audits")
        results.append(result)
    rows.flush(cfg, pending)
    return results


@transaction.atomic
def reject_note(*, cfg, ctx, scope, pipeline, note: NoteInput, reason_code: str, field_path: str | None) -> NoteResult:
    """Audit a rejected note (WriteGate, evidence binding, limits) with a decision row; nothing else is written."""
    rejection_row(cfg, home_context(ctx, scope), scope, pipeline, note, reason_code, field_path).save(force_insert=True)
    return NoteResult(None, NoteOp.REJECTED, Decision.REJECT, reason_code, field_path)
