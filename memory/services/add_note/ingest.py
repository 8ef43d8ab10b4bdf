"""add_note (spec v2 sections 8.1, 8.3, 9-11): deterministic, never calls an LLM.

Per note: WriteGate -> UpdateResolver (key, identical text, pooled-vector similarity in pgvector) -> policy
stage -> the note row, its version snapshot, its structured fields, the ingest decision row and the indexing
outbox row. A request is one transaction (so one commit), its notes resolved one after the other in input
order, each seeing the ones before it. The round trips do not grow with the notes: the resolver reads of
all key-less notes are one statement (``resolver_batch``), the request's own writes applied in Python, and
new notes without structured fields are inserted together (``pending_notes``), with the same outcome.

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

import uuid
from datetime import datetime
from dataclasses import dataclass, field, replace
from typing import Any

import psycopg.errors
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from elf_config import ElfConfig
from elf_domain.chunking import Chunk
from elf_domain.spaces import home_project
from elf_domain.vocabulary import MEMORY_TYPES
from elf_infra.providers.errors import ProviderError
from elf_kernel.context import RequestContext

from ..domain import policy, update_resolver, write_gate
from ..domain.note_context import embedding_text
from ..indexing.chunks import drop_chunk_vectors, note_chunks, store_chunks
from ..indexing.outbox import dispatch_rows, outbox_rows
from ..models import (
    Decision,
    IndexingOutbox,
    MemoryIngestDecision,
    MemoryNote,
    MemoryNoteVersion,
    NoteOp,
    NoteStatus,
    OutboxOp,
    Pipeline,
    VersionOp,
)
from .note_fields import replace_fields
from .note_hooks import NoteWritten, run_note_write_hooks
from .pending_notes import PendingNotes
from .resolver_batch import RequestLookups
from .resolver_lookup import expiry
from .versions import note_snapshot, version_row


@dataclass(frozen=True)
class NoteInput:
    type: str
    key: str | None
    text: str
    importance: float
    confidence: float
    ttl_days: int | None = None
    source_ref: dict = field(default_factory=dict)
    structured: dict | None = None
    context: str = ""  # memory.domain.note_context
    observed_at: datetime | None = None  # when the statement was made (elf_domain.time_phrases)
    field_path: str = "$.notes[0]"
    # Pipeline-specific audit merged into the decision row's details (add_event: evidence, policy audits).
    decision_extra: dict = field(default_factory=dict)


@dataclass
class NoteResult:
    note_id: uuid.UUID | None
    op: str
    policy_decision: str
    reason_code: str | None = None
    field_path: str | None = None
    warnings: list[str] = field(default_factory=list)
    write_policy_audits: Any = None  # add_note: the audit of the note's write_policy, when one was applied

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "note_id": str(self.note_id) if self.note_id else None,
            "op": self.op,
            "policy_decision": self.policy_decision,
            "reason_code": self.reason_code,
            "field_path": self.field_path,
        }
        if self.warnings:
            out["warnings"] = self.warnings
        if self.write_policy_audits is not None:
            out["write_policy_audits"] = self.write_policy_audits
        return out


def home_context(ctx: RequestContext, scope: str) -> RequestContext:
    """The context notes of ``scope`` are written under: org_shared notes live in the org space."""
    return replace(ctx, project_id=home_project(ctx.project_id, scope))


def _graph_present(structured: dict | None) -> bool:
    return bool(structured and (structured.get("relations") or structured.get("entities")))


def _structured_present(structured: dict | None) -> bool:
    return bool(structured and (structured.get("summary") or structured.get("facts") or structured.get("concepts")))


def _lock_groups(ctx: RequestContext, scope: str, note_types) -> None:
    """Serialise resolution within each (tenant, project, agent, scope, type) group of the request until
    commit; the locks are taken in hash order, so concurrent requests take shared ones in the same order."""
    groups = ["\x1f".join((ctx.tenant_id, ctx.project_id, ctx.agent_id, scope, t)) for t in sorted(set(note_types))]
    if groups:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(g, 0) AS h "
                        "FROM unnest(%s::text[]) AS g ORDER BY h) AS ordered", [groups])


def _details(cfg: ElfConfig, note: NoteInput, res, outcome, *, extra: dict | None = None) -> dict[str, Any]:
    pol = cfg.memory.policy
    details = {
        "similarity_best": res.similarity_best if res else None,
        "key_match": res.key_match if res else False,
        "matched_dup": res.matched_dup if res else False,
        "dup_sim_threshold": cfg.memory.dup_sim_threshold,
        "update_sim_threshold": cfg.memory.update_sim_threshold,
        "confidence": note.confidence,
        "importance": note.importance,
        "structured_present": _structured_present(note.structured),
        "graph_present": _graph_present(note.structured),
        "policy_rule": outcome.policy_rule if outcome else None,
        "min_confidence": pol.min_confidence,
        "min_importance": pol.min_importance,
    }
    details.update(note.decision_extra)
    details.update(extra or {})
    return details


def _decision(ctx, scope, pipeline, note: NoteInput, *, note_id, base, decision, op, reason,
              details) -> MemoryIngestDecision:
    """The note's (unsaved) ingest decision row, stamped now."""
    return MemoryIngestDecision(
        tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scope=scope, pipeline=pipeline,
        note_type=note.type, note_key=note.key, note_id=note_id, base_decision=base, policy_decision=decision,
        note_op=op, reason_code=reason, details=details, ts=timezone.now(),
    )


def _gate(cfg: ElfConfig, scope: str, note: NoteInput):
    return write_gate.evaluate_note(
        text=note.text, note_type=note.type, scope=scope, key=note.key,
        max_note_chars=cfg.memory.max_note_chars, allowed_types=MEMORY_TYPES,
        allowed_scopes=cfg.scopes.allowed, write_allowed=cfg.scopes.write_allowed, context=note.context,
    )


@dataclass(frozen=True)
class _Embedded:
    """What the request computed for a note before its transaction."""

    chunks: list[Chunk]
    vector: list[float] | None  # the text's vector (the single chunk's, or the resolver's for a key-less note)

    def stored_chunk(self) -> bool:
        """The vector is the note's only chunk's, to be stored with the note."""
        return self.vector is not None and len(self.chunks) == 1


@dataclass
class _Rows:
    """Rows nothing in the request reads back, written at the end of it with its pending notes."""

    decisions: list[MemoryIngestDecision] = field(default_factory=list)
    versions: list[MemoryNoteVersion] = field(default_factory=list)
    indexed: list[uuid.UUID] = field(default_factory=list)  # notes to (re)index, in order

    def flush(self, cfg: ElfConfig, pending: PendingNotes) -> None:
        """Write these rows with the request's pending notes, in one statement."""
        outbox = outbox_rows(note_ids=self.indexed, op=OutboxOp.UPSERT, embedding_version=cfg.embedding_version)
        pending.flush(also=[(MemoryNoteVersion, self.versions), (IndexingOutbox, outbox),
                            (MemoryIngestDecision, self.decisions)])
        dispatch_rows(outbox)


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
    embedded = _embed(cfg, notes, verdicts, embedder)
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


def _embed(cfg: ElfConfig, notes: list[NoteInput], verdicts, embedder) -> dict[int, _Embedded]:
    """Chunk every note that passed the gate; embed, in one provider call, each one that is a single chunk and
    each key-less one (the resolver's vector). When the provider fails and no note needs a vector to be
    resolved (keyed notes only), the notes are written without one: the worker embeds them later."""
    embedded = {i: _Embedded(note_chunks(cfg, n.text), None) for i, (n, v) in enumerate(zip(notes, verdicts))
                if v is None}
    to_embed = [i for i, e in embedded.items() if len(e.chunks) == 1 or not notes[i].key]
    if not to_embed:
        return embedded
    try:
        vectors = embedder.embed([embedding_text(notes[i].text, notes[i].context) for i in to_embed])
    except ProviderError:
        if any(not notes[i].key for i in to_embed):
            raise
        return embedded
    for i, vec in zip(to_embed, vectors, strict=True):
        embedded[i] = replace(embedded[i], vector=vec)
    return embedded


def _ingest(cfg, ctx, scope, pipeline, notes, verdicts, embedded: dict[int, _Embedded], actor) -> list[NoteResult]:
    _lock_groups(ctx, scope, [n.type for i, n in enumerate(notes) if i in embedded])
    pending = PendingNotes(cfg.embedding_version)
    lookups = RequestLookups(cfg, ctx, scope, {i: notes[i] for i in embedded},
                             {i: e.vector for i, e in embedded.items() if not notes[i].key}, pending.flush)
    results, rows = [], _Rows()
    for i, (note, verdict) in enumerate(zip(notes, verdicts)):
        if verdict is not None:
            # scope is given once per request, every other field per note
            path = "$.scope" if verdict.field == "scope" else f"{note.field_path}.{verdict.field}"
            rows.decisions.append(_rejection(cfg, ctx, scope, pipeline, note, verdict.reason_code, path))
            result = NoteResult(None, NoteOp.REJECTED, Decision.REJECT, verdict.reason_code, path)
        else:
            result = _write_one(cfg, ctx, scope, pipeline, note, embedded[i], actor, rows, lookups, pending, i)
        result.write_policy_audits = note.decision_extra.get("write_policy_audits")
        results.append(result)
    rows.flush(cfg, pending)
    return results


@transaction.atomic
def reject_note(*, cfg, ctx, scope, pipeline, note: NoteInput, reason_code: str, field_path: str | None) -> NoteResult:
    """Audit a rejected note (WriteGate, evidence binding, limits) with a decision row; nothing else is written."""
    _rejection(cfg, home_context(ctx, scope), scope, pipeline, note, reason_code, field_path).save(force_insert=True)
    return NoteResult(None, NoteOp.REJECTED, Decision.REJECT, reason_code, field_path)


def _rejection(cfg, ctx, scope, pipeline, note: NoteInput, reason_code: str, field_path: str | None):
    return _decision(ctx, scope, pipeline, note, note_id=None, base=Decision.REJECT, decision=Decision.REJECT,
                     op=NoteOp.REJECTED, reason=reason_code,
                     details=_details(cfg, note, None, None, extra={"field_path": field_path}))


def _write_one(cfg, ctx, scope, pipeline, note: NoteInput, embedded: _Embedded, actor, rows: _Rows,
               lookups: RequestLookups, pending: PendingNotes, index: int) -> NoteResult:
    """Resolve and write one note in the request's transaction (its group is locked), and tell ``lookups``
    (the request's resolver reads), so the notes after it resolve against it. A new note with no structured
    fields goes to ``pending`` (its row, chunk rows and hooks are written with the other new notes); any
    other note flushes ``pending``, then writes its row, structured fields, hooks' rows and a single chunk's
    rows now. Its version, outbox and decision rows go to ``rows``."""
    res = lookups.resolve(index, note, embedded.vector)
    base = policy.base_decision(res.op, _structured_present(note.structured), _graph_present(note.structured))
    outcome = policy.apply_policy(
        base, confidence=note.confidence, importance=note.importance, matched_dup=res.matched_dup,
        min_confidence=cfg.memory.policy.min_confidence, min_importance=cfg.memory.policy.min_importance,
    )
    details = _details(cfg, note, res, outcome)
    if outcome.decision == Decision.IGNORE:
        rows.decisions.append(_decision(ctx, scope, pipeline, note, note_id=res.target_note_id, base=base,
                                        decision=outcome.decision, op=NoteOp.NONE, reason=outcome.reason_code,
                                        details=details))
        return NoteResult(res.target_note_id, NoteOp.NONE, outcome.decision, outcome.reason_code, None)
    now = timezone.now()
    deferred = res.op == update_resolver.ADD and not _structured_present(note.structured)
    if not deferred:
        pending.flush()
    if res.op == update_resolver.ADD:
        target = MemoryNote(
            tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scope=scope, type=note.type,
            key=note.key, text=note.text, importance=note.importance, confidence=note.confidence,
            status=NoteStatus.ACTIVE, created_at=now, updated_at=now,
            expires_at=expiry(cfg, note.type, note.ttl_days, now), embedding_version=cfg.embedding_version,
            source_ref=note.source_ref, context=note.context, observed_at=note.observed_at,
        )
        if not deferred:
            target.save(force_insert=True)
        rows.versions.append(version_row(note_id=target.note_id, op=VersionOp.ADD, prev=None, new=note_snapshot(target),
                                         reason=pipeline, actor=actor, ts=now))
        op = NoteOp.ADD
    else:
        target = MemoryNote.objects.select_for_update().get(note_id=res.target_note_id)
        if res.op == update_resolver.UPDATE:
            prev = note_snapshot(target)
            target.text, target.importance, target.confidence = note.text, note.importance, note.confidence
            target.source_ref, target.updated_at = note.source_ref, now
            target.expires_at = expiry(cfg, note.type, note.ttl_days, now)
            target.embedding_version, target.observed_at = cfg.embedding_version, note.observed_at
            if target.context != note.context:  # the stored chunk vectors embedded the old context
                target.context = note.context
                drop_chunk_vectors(target.note_id)
            target.save(update_fields=["text", "importance", "confidence", "source_ref", "updated_at", "expires_at",
                                       "embedding_version", "context", "observed_at"])
            rows.versions.append(version_row(
                note_id=target.note_id, op=VersionOp.UPDATE, prev=prev, new=note_snapshot(target),
                reason=f"{pipeline}:{'key' if res.key_match else 'similarity'}", actor=actor, ts=now))
            op = NoteOp.UPDATE
        else:  # NONE whose structured side effects still update the existing note's fields
            op = NoteOp.NONE
    event = NoteWritten(ctx=ctx, note=target, structured=note.structured, op=op, at=now, field_path=note.field_path)
    stored = embedded.vector if embedded.stored_chunk() else None  # the worker then only upserts the point
    if deferred:
        warnings: list[str] = []
        pending.add(target, embedded.chunks[0] if stored is not None else None, stored, event, warnings)
    else:
        if _structured_present(note.structured):
            replace_fields(target, note.structured)
        warnings = run_note_write_hooks(event)
        if op != NoteOp.NONE and stored is not None:
            store_chunks(target.note_id, cfg.embedding_version, embedded.chunks, {0: stored}, {0},
                         new_note=op == NoteOp.ADD)
    if op != NoteOp.NONE:
        lookups.wrote(target, added=op == NoteOp.ADD, stored_vector=stored)
        rows.indexed.append(target.note_id)
    rows.decisions.append(_decision(ctx, scope, pipeline, note, note_id=target.note_id, base=base,
                                    decision=outcome.decision, op=op, reason=outcome.reason_code, details=details))
    return NoteResult(target.note_id, op, outcome.decision, outcome.reason_code, None, warnings)
