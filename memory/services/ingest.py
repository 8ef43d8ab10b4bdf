"""add_note (spec v2 sections 8.1, 8.3, 9-11): deterministic, never calls an LLM.

Per note: WriteGate -> UpdateResolver (key, identical text, pooled-vector similarity in pgvector) -> policy
stage -> one transaction holding the note row, its version snapshot, its structured fields, the ingest
decision row and the indexing outbox row. The incoming text is embedded once (embedding provider, not an
LLM), outside any transaction.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from pgvector.django import CosineDistance

from elf_config import ElfConfig
from elf_domain.vocabulary import MEMORY_TYPES
from elf_kernel.context import RequestContext

from ..domain import policy, ttl, update_resolver, write_gate
from elf_domain.spaces import home_project
from ..indexing.outbox import enqueue
from ..models import (
    Decision,
    MemoryIngestDecision,
    MemoryNote,
    NoteEmbedding,
    NoteOp,
    NoteStatus,
    OutboxOp,
    Pipeline,
    VersionOp,
)
from .note_fields import replace_fields
from .note_hooks import NoteWritten, run_note_write_hooks
from .versions import note_snapshot, record_version

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


def _group_lock(ctx: RequestContext, scope: str, note_type: str) -> None:
    """Serialise resolution within one (tenant, project, agent, scope, type) group until commit."""
    group = "\x1f".join((ctx.tenant_id, ctx.project_id, ctx.agent_id, scope, note_type))
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [group])


def _group_notes(ctx: RequestContext, scope: str, note_type: str):
    return MemoryNote.objects.filter(
        tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scope=scope, type=note_type,
        status=NoteStatus.ACTIVE,
    ).exclude(expires_at__lte=timezone.now())


def _holds_payload(cfg: ElfConfig, target: MemoryNote, note: NoteInput) -> bool:
    """Whether the keyed note already says what ``note`` says: the same text, importance, confidence and
    source_ref, and the expiry the payload's ttl_days would have given it when it was last written."""
    return (target.text == note.text and target.importance == note.importance
            and target.confidence == note.confidence and (target.source_ref or {}) == (note.source_ref or {})
            and target.expires_at == _expiry(cfg, note, target.updated_at))


def _lookup(cfg, ctx, scope, note: NoteInput, vector) -> update_resolver.Resolution:
    mcfg, embedding_version = cfg.memory, cfg.embedding_version
    group = _group_notes(ctx, scope, note.type)
    keyed = group.filter(key=note.key).first() if note.key else None
    key_match = keyed.note_id if keyed else None
    exact = None if note.key else group.filter(text=note.text).values_list("note_id", flat=True).first()
    best_id, best_sim = None, None
    if vector is not None:
        best = (
            NoteEmbedding.objects.filter(note__in=group, embedding_version=embedding_version)
            .annotate(distance=CosineDistance("vec", vector))
            .order_by("distance")
            .values_list("note_id", "distance")
            .first()
        )
        if best is not None:
            best_id, best_sim = best[0], 1.0 - float(best[1])
    return update_resolver.resolve(
        key_match_id=key_match, key_match_unchanged=bool(keyed and _holds_payload(cfg, keyed, note)),
        exact_text_id=exact, best_id=best_id, best_similarity=best_sim,
        dup_threshold=mcfg.dup_sim_threshold, update_threshold=mcfg.update_sim_threshold,
    )


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


def _record_decision(ctx, scope, pipeline, note: NoteInput, *, note_id, base, decision, op, reason, details):
    MemoryIngestDecision.objects.create(
        tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scope=scope, pipeline=pipeline,
        note_type=note.type, note_key=note.key, note_id=note_id, base_decision=base, policy_decision=decision,
        note_op=op, reason_code=reason, details=details, ts=timezone.now(),
    )


def _expiry(cfg: ElfConfig, note: NoteInput, now: datetime) -> datetime | None:
    return ttl.expires_at(
        now=now, note_type=note.type, request_ttl_days=note.ttl_days, ttl_days_by_type=cfg.lifecycle.ttl_days
    )


def _gate(cfg: ElfConfig, scope: str, note: NoteInput):
    return write_gate.evaluate_note(
        text=note.text, note_type=note.type, scope=scope, key=note.key,
        max_note_chars=cfg.memory.max_note_chars, allowed_types=MEMORY_TYPES,
        allowed_scopes=cfg.scopes.allowed, write_allowed=cfg.scopes.write_allowed,
    )


def ingest_notes(
    *, cfg: ElfConfig, ctx: RequestContext, scope: str, notes: list[NoteInput], embedder, pipeline: str = Pipeline.ADD_NOTE,
    actor: str | None = None,
) -> list[NoteResult]:
    """Ingest each note on its own (one transaction per note); results are in input order."""
    actor = actor or f"agent:{ctx.agent_id}"
    ctx = home_context(ctx, scope)
    verdicts = [_gate(cfg, scope, n) for n in notes]
    # Similarity needs a vector only for key-less notes that passed the gate: one embedding call for all.
    to_embed = [i for i, (n, v) in enumerate(zip(notes, verdicts)) if v is None and not n.key]
    vectors: dict[int, list[float]] = {}
    if to_embed:
        for i, vec in zip(to_embed, embedder.embed([notes[i].text for i in to_embed])):
            vectors[i] = vec
    results = []
    for i, (note, verdict) in enumerate(zip(notes, verdicts)):
        if verdict is not None:
            results.append(_reject(cfg, ctx, scope, pipeline, note, verdict))
        else:
            results.append(_write_one(cfg, ctx, scope, pipeline, note, vectors.get(i), actor))
        results[-1].write_policy_audits = note.decision_extra.get("write_policy_audits")
    return results


def _reject(cfg, ctx, scope, pipeline, note: NoteInput, verdict) -> NoteResult:
    # scope is given once per request, every other field per note
    path = "$.scope" if verdict.field == "scope" else f"{note.field_path}.{verdict.field}"
    return reject_note(cfg=cfg, ctx=ctx, scope=scope, pipeline=pipeline, note=note, reason_code=verdict.reason_code,
                       field_path=path)


@transaction.atomic
def reject_note(*, cfg, ctx, scope, pipeline, note: NoteInput, reason_code: str, field_path: str | None) -> NoteResult:
    """Audit a rejected note (WriteGate, evidence binding, limits) with a decision row; nothing else is written."""
    ctx = home_context(ctx, scope)
    _record_decision(
        ctx, scope, pipeline, note, note_id=None, base=Decision.REJECT, decision=Decision.REJECT, op=NoteOp.REJECTED,
        reason=reason_code, details=_details(cfg, note, None, None, extra={"field_path": field_path}),
    )
    return NoteResult(None, NoteOp.REJECTED, Decision.REJECT, reason_code, field_path)


@transaction.atomic
def _write_one(cfg, ctx, scope, pipeline, note: NoteInput, vector, actor) -> NoteResult:
    _group_lock(ctx, scope, note.type)
    res = _lookup(cfg, ctx, scope, note, vector)
    base = policy.base_decision(res.op, _structured_present(note.structured), _graph_present(note.structured))
    outcome = policy.apply_policy(
        base, confidence=note.confidence, importance=note.importance, matched_dup=res.matched_dup,
        min_confidence=cfg.memory.policy.min_confidence, min_importance=cfg.memory.policy.min_importance,
    )
    details = _details(cfg, note, res, outcome)
    if outcome.decision == Decision.IGNORE:
        _record_decision(ctx, scope, pipeline, note, note_id=res.target_note_id, base=base, decision=outcome.decision,
                         op=NoteOp.NONE, reason=outcome.reason_code, details=details)
        return NoteResult(res.target_note_id, NoteOp.NONE, outcome.decision, outcome.reason_code, None)
    now = timezone.now()
    if res.op == update_resolver.ADD:
        target = MemoryNote.objects.create(
            tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scope=scope, type=note.type,
            key=note.key, text=note.text, importance=note.importance, confidence=note.confidence,
            status=NoteStatus.ACTIVE, created_at=now, updated_at=now, expires_at=_expiry(cfg, note, now),
            embedding_version=cfg.embedding_version, source_ref=note.source_ref,
        )
        record_version(note_id=target.note_id, op=VersionOp.ADD, prev=None, new=note_snapshot(target),
                       reason=pipeline, actor=actor)
        op = NoteOp.ADD
    else:
        target = MemoryNote.objects.select_for_update().get(note_id=res.target_note_id)
        if res.op == update_resolver.UPDATE:
            prev = note_snapshot(target)
            target.text, target.importance, target.confidence = note.text, note.importance, note.confidence
            target.source_ref, target.updated_at, target.expires_at = note.source_ref, now, _expiry(cfg, note, now)
            target.embedding_version = cfg.embedding_version
            target.save(update_fields=["text", "importance", "confidence", "source_ref", "updated_at", "expires_at",
                                       "embedding_version"])
            record_version(note_id=target.note_id, op=VersionOp.UPDATE, prev=prev, new=note_snapshot(target),
                           reason=f"{pipeline}:{'key' if res.key_match else 'similarity'}", actor=actor)
            op = NoteOp.UPDATE
        else:  # NONE whose structured side effects still update the existing note's fields
            op = NoteOp.NONE
    if _structured_present(note.structured):
        replace_fields(target, note.structured)
    warnings = run_note_write_hooks(NoteWritten(ctx=ctx, note=target, structured=note.structured, op=op, at=now,
                                                field_path=note.field_path))
    if op != NoteOp.NONE:
        enqueue(note_id=target.note_id, op=OutboxOp.UPSERT, embedding_version=cfg.embedding_version)
    _record_decision(ctx, scope, pipeline, note, note_id=target.note_id, base=base, decision=outcome.decision, op=op,
                     reason=outcome.reason_code, details=details)
    return NoteResult(target.note_id, op, outcome.decision, outcome.reason_code, None, warnings)
