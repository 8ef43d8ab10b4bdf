"""add_note's audit: one ingest decision row per note (what the gate, the resolver and the policy stage decided,
with the thresholds they used), and the rows nothing in the request reads back (decisions, versions, the
indexing outbox), held until the end of the request and written with its pending new notes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from elf_config import ElfConfig

from ...indexing.outbox import dispatch_rows, outbox_rows
from ...models import Decision, IndexingOutbox, MemoryIngestDecision, MemoryNoteVersion, NoteOp, OutboxOp
from .note_input import NoteInput
from .write_new_notes_together import PendingNotes


def graph_present(structured: dict | None) -> bool:
    return bool(structured and (structured.get("relations") or structured.get("entities")))


def structured_present(structured: dict | None) -> bool:
    return bool(structured and (structured.get("summary") or structured.get("facts") or structured.get("concepts")))


def details(cfg: ElfConfig, note: NoteInput, res, outcome, *, extra: dict | None = None) -> dict[str, Any]:
    pol = cfg.memory.policy
    out = {
        "similarity_best": res.similarity_best if res else None,
        "key_match": res.key_match if res else False,
        "matched_dup": res.matched_dup if res else False,
        "dup_sim_threshold": cfg.memory.dup_sim_threshold,
        "update_sim_threshold": cfg.memory.update_sim_threshold,
        "confidence": note.confidence,
        "importance": note.importance,
        "structured_present": structured_present(note.structured),
        "graph_present": graph_present(note.structured),
        "policy_rule": outcome.policy_rule if outcome else None,
        "min_confidence": pol.min_confidence,
        "min_importance": pol.min_importance,
    }
    out.update(note.decision_extra)
    out.update(extra or {})
    return out


def decision_row(ctx, scope, pipeline, note: NoteInput, *, note_id, base, decision, op, reason,
                 details) -> MemoryIngestDecision:
    """The note's (unsaved) ingest decision row, stamped now."""
    return MemoryIngestDecision(
        tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scope=scope, pipeline=pipeline,
        note_type=note.type, note_key=note.key, note_id=note_id, base_decision=base, policy_decision=decision,
        note_op=op, reason_code=reason, details=details, ts=timezone.now(),
    )


def rejection_row(cfg, ctx, scope, pipeline, note: NoteInput, reason_code: str, field_path: str | None):
    return decision_row(ctx, scope, pipeline, note, note_id=None, base=Decision.REJECT, decision=Decision.REJECT,
                        op=NoteOp.REJECTED, reason=reason_code,
                        details=details(cfg, note, None, None, extra={"field_path": field_path}))


@dataclass
class RequestRows:
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
