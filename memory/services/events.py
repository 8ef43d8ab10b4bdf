"""add_event (spec v2 sections 8.2, 8.3, 18; supplement sections 5 and 6): one extractor call per request,
verbatim evidence for every kept note, then the same WriteGate, UpdateResolver and policy stage as add_note.

write_policy is applied to each message before anything else sees it: the extractor receives the
transformed messages and evidence is checked against them, so excluded or redacted text is never stored.
Then, with ``security.redact_secrets_on_write`` (the loader accepts only true), every secret or PII the shared
detector finds becomes ``[REDACTED:<kind>]`` the same way: no extractor, quote, reason or field ever sees it.
The raw messages themselves are never stored as notes. dry_run runs the whole path inside a transaction
that is rolled back, so its results are the would-be ops and nothing persists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import transaction

from elf_config import ElfConfig
from elf_domain.evidence import check_evidence, validate_candidates
from elf_domain.secrets import redact_secrets
from elf_domain.spaces import scope_writable
from elf_infra.providers.errors import ProviderError
from elf_infra.providers.factory import build_embedding, build_profile_extractor
from elf_kernel.api.english_fields import IDENTIFIER, NATURAL
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError

from ..models import Pipeline, Scope
from .add_note import NoteInput, NoteResult, ingest_notes, reject_note
from .ingestion_profiles import resolve_profile
from .write_policy_then_gate import NO_POLICY, PolicyInput, apply_write_policies_then_gate

REJECT_INVALID_CANDIDATE = "REJECT_INVALID_CANDIDATE"
REJECT_MAX_NOTES = "REJECT_MAX_NOTES"
EVENT_RESOLVER = "elf_event/v1"


class ExtractorFailed(ElfError):
    status, error_code = 502, "EXTRACTOR_FAILED"


@dataclass(frozen=True)
class EventMessage:
    role: str
    original: str
    content: str  # after write_policy
    audit: dict | None
    ts: str | None = None
    msg_id: str | None = None


@dataclass
class EventOutcome:
    profile: dict  # the ingestion profile used: {id, version}
    extracted: dict
    results: list[dict] = field(default_factory=list)


class _DryRun(Exception):
    """Raised to roll the dry-run transaction back."""


def _note_scope(cfg: ElfConfig, request_scope: str | None, suggestion: str | None) -> str:
    """The request's scope wins; a suggestion is honoured when no scope was given (if writable), or when it
    narrows the request's scope to agent_private. Otherwise notes go to agent_private."""
    writable = lambda s: scope_writable(s, cfg.scopes.allowed, cfg.scopes.write_allowed)  # noqa: E731
    if request_scope is not None:
        return Scope.AGENT_PRIVATE if suggestion == Scope.AGENT_PRIVATE and writable(suggestion) else request_scope
    return suggestion if suggestion and writable(suggestion) else Scope.AGENT_PRIVATE


def _source_ref(candidate, messages: list[EventMessage]) -> dict[str, Any]:
    evidence = []
    for ev in candidate.evidence:
        m = messages[ev.message_index]
        evidence.append({"message_index": ev.message_index, "quote": ev.quote, "msg_id": m.msg_id, "ts": m.ts})
    return {"schema": "source_ref/v1", "resolver": EVENT_RESOLVER, "ref": {"pipeline": "add_event"},
            "locator": {"evidence": evidence}}


def add_event(*, cfg: ElfConfig, ctx: RequestContext, scope: str | None, messages: Sequence[Mapping[str, Any]],
              dry_run: bool, ingestion_profile: Mapping[str, Any] | None, embedder=None) -> EventOutcome:
    """add_event's entry point, the one every route calls (POST /v2/events/ingest, the deprecated
    POST /v1/memory/add_event, and elf-mcp's tools through them), from the request's validated messages (role,
    content, ts, msg_id, write_policy; the optional ones may be absent): each message's write_policy first, then
    the English gate over the contents as the policies left them, the msg_ids and the scope, then the ingestion
    profile (the requested one, else the project's default, else the built-in one) and the one extractor call
    (``ingest_event``). So an invalid request never reaches the extractor."""
    policed = apply_write_policies_then_gate(
        [PolicyInput(m["content"], m.get("write_policy", NO_POLICY), f"$.messages[{i}].write_policy")
         for i, m in enumerate(messages)],
        lambda texts: [(f"$.messages[{i}].content", text, NATURAL) for i, text in enumerate(texts)]
        + [(f"$.messages[{i}].msg_id", m["msg_id"], IDENTIFIER) for i, m in enumerate(messages) if m.get("msg_id")]
        + ([("$.scope", scope, IDENTIFIER)] if scope else []),
    )
    inputs = [EventMessage(role=m["role"], original=m["content"], content=p.text, audit=p.audit, ts=m.get("ts"),
                           msg_id=m.get("msg_id")) for m, p in zip(messages, policed, strict=False)]
    # a scope outside scopes.allowed is REJECT_SCOPE_DENIED per note, as in add_note
    profile = resolve_profile(ctx, ingestion_profile)
    return ingest_event(cfg=cfg, ctx=ctx, scope=scope, messages=inputs, dry_run=dry_run, resolved_profile=profile,
                        embedder=embedder if embedder is not None else build_embedding(cfg))


def ingest_event(*, cfg: ElfConfig, ctx: RequestContext, scope: str | None, messages: list[EventMessage],
                 dry_run: bool, resolved_profile, embedder) -> EventOutcome:
    if cfg.security.redact_secrets_on_write:  # both sides, so a quote of a secret is an evidence mismatch
        messages = [replace(m, original=redact_secrets(m.original), content=redact_secrets(m.content))
                    for m in messages]
    extractor = build_profile_extractor(
        cfg,
        prompt=resolved_profile.prompt,
        model=resolved_profile.model,
        temperature=resolved_profile.temperature,
        timeout_ms=resolved_profile.timeout_ms,
    )
    payload = [
        {
            "role": m.role,
            "content": m.content,
            **({"ts": m.ts} if m.ts else {}),
            **({"msg_id": m.msg_id} if m.msg_id else {}),
        }
        for m in messages
    ]
    try:
        extracted = extractor.extract(payload)  # exactly one extractor call per request
    except ProviderError as exc:
        raise ExtractorFailed(f"The extractor failed: {exc}", ["$.messages"]) from None
    profile = {"id": resolved_profile.profile_id, "version": resolved_profile.version}
    outcome = EventOutcome(profile=profile, extracted=extracted)
    try:
        with transaction.atomic():
            outcome.results = _bind_and_write(cfg, ctx, scope, messages, extracted, embedder)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    return outcome


def _bind_and_write(cfg, ctx, scope, messages: list[EventMessage], extracted: dict, embedder) -> list[dict]:
    sec = cfg.security
    audits = [m.audit for m in messages]
    raw_notes = extracted.get("notes") if isinstance(extracted, dict) else None
    candidates, invalid = validate_candidates(raw_notes if isinstance(raw_notes, list) else [], "$.extracted.notes")
    invalid_at = dict(invalid)
    results: list[tuple[int, dict]] = []
    to_write: list[tuple[int, NoteInput, str, list]] = []
    valid = iter(candidates)
    kept = 0
    for index in range(len(raw_notes) if isinstance(raw_notes, list) else 0):
        path = f"$.extracted.notes[{index}]"
        base = NoteInput(
            type="fact",
            key=None,
            text="",
            importance=0.0,
            confidence=0.0,
            field_path=path,
            decision_extra={"write_policy_audits": audits},
        )
        if index in invalid_at:
            res = reject_note(
                cfg=cfg,
                ctx=ctx,
                scope=scope or Scope.AGENT_PRIVATE,
                pipeline=Pipeline.ADD_EVENT,
                note=base,
                reason_code=REJECT_INVALID_CANDIDATE,
                field_path=path,
            )
            results.append((index, _result(res, invalid_at[index], [])))
            continue
        cand = next(valid)
        cited = sorted({e.message_index for e in cand.evidence if 0 <= e.message_index < len(messages)})
        cited_audits = [audits[i] for i in cited if audits[i]]
        note_scope = _note_scope(cfg, scope, cand.scope_suggestion)
        note = NoteInput(
            type=cand.type,
            key=cand.key,
            text=cand.text,
            importance=cand.importance,
            confidence=cand.confidence,
            ttl_days=cand.ttl_days,
            structured=cand.structured,
            field_path=path,
            # Until its evidence is bound, a candidate's quotes and reason may carry text a write_policy
            # excluded: the audit keeps only where each quote points and how long it is.
            decision_extra={
                "write_policy_audits": audits,
                "evidence": [{"message_index": e.message_index, "quote_chars": len(e.quote)} for e in cand.evidence],
            },
        )
        if kept >= cfg.memory.max_notes_per_add_event:
            res = reject_note(
                cfg=cfg,
                ctx=ctx,
                scope=note_scope,
                pipeline=Pipeline.ADD_EVENT,
                note=note,
                reason_code=REJECT_MAX_NOTES,
                field_path=path,
            )
            results.append((index, _result(res, cand.reason, cited_audits)))
            continue
        kept += 1
        reason = check_evidence(
            list(cand.evidence),
            transformed=[m.content for m in messages],
            originals=[m.original for m in messages],
            min_quotes=sec.evidence_min_quotes,
            max_quotes=sec.evidence_max_quotes,
            max_quote_chars=sec.evidence_max_quote_chars,
        )
        if reason is not None:
            res = reject_note(
                cfg=cfg,
                ctx=ctx,
                scope=note_scope,
                pipeline=Pipeline.ADD_EVENT,
                note=note,
                reason_code=reason,
                field_path=f"{path}.evidence",
            )
            results.append((index, _result(res, cand.reason, cited_audits)))
            continue
        # Evidence is bound: every quote is a substring of the transformed messages, so it is safe to keep, in
        # the note's source_ref and in the decision row.
        bound = {
            **note.decision_extra,
            "reason": cand.reason,
            "evidence": [{"message_index": e.message_index, "quote": e.quote} for e in cand.evidence],
        }
        to_write.append(
            (
                index,
                replace(note, source_ref=_source_ref(cand, messages), decision_extra=bound),
                note_scope,
                cited_audits,
            )
        )
    for note_scope in dict.fromkeys(s for _, _, s, _ in to_write):
        group = [(i, n, a) for i, n, s, a in to_write if s == note_scope]
        written = ingest_notes(
            cfg=cfg,
            ctx=ctx,
            scope=note_scope,
            notes=[n for _, n, _ in group],
            embedder=embedder,
            pipeline=Pipeline.ADD_EVENT,
        )
        results += [
            (i, _result(res, n.decision_extra["reason"], a)) for (i, n, a), res in zip(group, written, strict=False)
        ]
    return [r for _, r in sorted(results, key=lambda pair: pair[0])]


def _result(res: NoteResult, reason: str | None, audits: list) -> dict:
    out = res.as_dict()
    out["reason"] = reason
    out["write_policy_audits"] = audits
    return out
