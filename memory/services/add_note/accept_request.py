"""add_note's entry point, the one every route calls (POST /v2/notes/ingest, the deprecated
POST /v1/memory/add_note, and elf-mcp's tools through them): the request's notes after their write_policy and
the English gate, then ``ingest``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from elf_config import ElfConfig
from elf_infra.providers.factory import build_embedding
from elf_kernel.api.english_fields import IDENTIFIER, note_fields
from elf_kernel.context import RequestContext

from ..write_policy_then_gate import NO_POLICY, PolicyInput, apply_write_policies_then_gate
from .ingest import ingest_notes
from .note_input import NoteInput, NoteResult


def add_note(*, cfg: ElfConfig, ctx: RequestContext, scope: str, notes: Sequence[Mapping[str, Any]],
             embedder=None) -> list[NoteResult]:
    """Ingest the request's validated notes (type, key, text, importance, confidence, ttl_days, source_ref,
    structured, context, observed_at, write_policy; the optional ones may be absent) as ``ctx``: each note's
    write_policy first, then the English gate over the scope and every note's fields as the policies left them,
    then one ingest (``embedder``: the configured provider unless given)."""
    policed = apply_write_policies_then_gate(
        [PolicyInput(n["text"], n.get("write_policy", NO_POLICY), f"$.notes[{i}].write_policy")
         for i, n in enumerate(notes)],
        lambda texts: [("$.scope", scope, IDENTIFIER)]
        + [f for i, (n, text) in enumerate(zip(notes, texts, strict=False))
           for f in note_fields({**n, "text": text}, f"$.notes[{i}]")],
    )
    inputs = []
    for i, (n, p) in enumerate(zip(notes, policed, strict=False)):
        extra = {"write_policy_audits": p.audit} if p.audit is not None else {}
        inputs.append(NoteInput(
            type=n["type"], key=n.get("key"), text=p.text, importance=n["importance"],
            confidence=n["confidence"], ttl_days=n.get("ttl_days"), source_ref=n.get("source_ref") or {},
            structured=n.get("structured"), context=n.get("context") or "", observed_at=n.get("observed_at"),
            field_path=f"$.notes[{i}]",
            decision_extra=extra,
        ))
    return ingest_notes(cfg=cfg, ctx=ctx, scope=scope, notes=inputs,
                        embedder=embedder if embedder is not None else build_embedding(cfg))
