"""What add_note takes per note (``NoteInput``, the request's note after its write_policy and the English gate)
and answers per note (``NoteResult``); add_event builds the same inputs from its extractor's candidates."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from elf_domain.spaces import home_project
from elf_kernel.context import RequestContext


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
