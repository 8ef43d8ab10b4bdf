"""add_note's step for one note that passed the WriteGate, in the request's transaction (its group locked):
the UpdateResolver's answer (ADD, UPDATE or NONE), the policy stage, then the note's writes."""

from __future__ import annotations

from django.utils import timezone

from ...domain import policy, update_resolver
from ...indexing.chunks import drop_chunk_vectors, store_chunks
from ...models import Decision, MemoryNote, NoteOp, NoteStatus, VersionOp
from ..versions import note_snapshot, version_row
from .decision_rows import RequestRows, decision_row, details, graph_present, structured_present
from .embed_before_writing import Embedded
from .note_input import NoteInput, NoteResult
from .note_write_hooks import NoteWritten, run_note_write_hooks
from .resolver_reads import expiry
from .resolver_reads_batched import RequestLookups
from .structured_fields import replace_fields
from .write_new_notes_together import PendingNotes


def write_one(cfg, ctx, scope, pipeline, note: NoteInput, embedded: Embedded, actor, rows: RequestRows,
              lookups: RequestLookups, pending: PendingNotes, index: int) -> NoteResult:
    """Resolve and write one note in the request's transaction (its group is locked), and tell ``lookups``
    (the request's resolver reads), so the notes after it resolve against it. A new note with no structured
    fields goes to ``pending`` (its row, chunk rows and hooks are written with the other new notes); any
    other note flushes ``pending``, then writes its row, structured fields, hooks' rows and a single chunk's
    rows now. Its version, outbox and decision rows go to ``rows``."""
    res = lookups.resolve(index, note, embedded.vector)
    base = policy.base_decision(res.op, structured_present(note.structured), graph_present(note.structured))
    outcome = policy.apply_policy(
        base, confidence=note.confidence, importance=note.importance, matched_dup=res.matched_dup,
        min_confidence=cfg.memory.policy.min_confidence, min_importance=cfg.memory.policy.min_importance,
    )
    audit = details(cfg, note, res, outcome)
    if outcome.decision == Decision.IGNORE:
        rows.decisions.append(decision_row(ctx, scope, pipeline, note, note_id=res.target_note_id, base=base,
                                           decision=outcome.decision, op=NoteOp.NONE, reason=outcome.reason_code,
                                           details=audit))
        return NoteResult(res.target_note_id, NoteOp.NONE, outcome.decision, outcome.reason_code, None)
    now = timezone.now()
    deferred = res.op == update_resolver.ADD and not structured_present(note.structured)
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
        if structured_present(note.structured):
            replace_fields(target, note.structured)
        warnings = run_note_write_hooks(event)
        if op != NoteOp.NONE and stored is not None:
            store_chunks(target.note_id, cfg.embedding_version, embedded.chunks, {0: stored}, {0},
                         new_note=op == NoteOp.ADD)
    if op != NoteOp.NONE:
        lookups.wrote(target, added=op == NoteOp.ADD, stored_vector=stored)
        rows.indexed.append(target.note_id)
    rows.decisions.append(decision_row(ctx, scope, pipeline, note, note_id=target.note_id, base=base,
                                       decision=outcome.decision, op=op, reason=outcome.reason_code, details=audit))
    return NoteResult(target.note_id, op, outcome.decision, outcome.reason_code, None, warnings)
