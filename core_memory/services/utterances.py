"""POST an English user utterance (``handle``, the entry point its route calls): the text meets the English gate,
then it is classified (domain.utterances) and what it asks is applied. An explicit, confident instruction is
written at once; one under ``core_memory.inferred_min_confidence`` is staged as pending. The answer carries
proof: the document version and audit id of the write, or, for "forget", that the key no longer resolves from
the profile or the run's session."""

from __future__ import annotations

from dataclasses import dataclass, field

from elf_config import ElfConfig
from elf_domain.english_gate import normalize
from elf_domain.secrets import contains_secret
from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.context import RequestContext

from ..domain.utterances import DELETE, NONE, classify
from ..domain.vocabulary import MemoryScope, Source, UtteranceOp
from .entries import EntryInput, delete_entry, has_key, upsert_entry
from .errors import RejectSecret
from .pending import stage
from .resolve import resolve

UTTERANCE_PRIORITY = 70  # an explicit instruction outranks a default-priority (50) line of its scope


@dataclass
class Outcome:
    op: UtteranceOp
    trigger: str | None
    confidence: float
    explanation: str
    scope: str | None = None
    kind: str | None = None
    key: str | None = None
    value: str | None = None
    ttl: str | None = None
    acknowledgement: str = ""
    doc_version: int | None = None
    audit_id: int | None = None
    pending_entry_id: str | None = None
    deleted: list[dict] = field(default_factory=list)
    verified: bool = False


def _concise(ctx: RequestContext, run_id: str) -> bool:
    got = resolve(ctx=ctx, keys=["response.verbosity"], run_id=run_id)
    return got[0].value == "concise"


def handle(*, cfg: ElfConfig, ctx: RequestContext, run_id: str, text: str) -> Outcome:
    require_english([("$.text", text, NATURAL)])
    min_confidence = cfg.core_memory.inferred_min_confidence
    intent = classify(text)
    out = Outcome(intent.op, intent.trigger, intent.confidence, intent.explanation, key=intent.key)
    if intent.op == NONE:
        out.acknowledgement = "No memory instruction recognised; nothing was stored."
        return out
    short = _concise(ctx, run_id)
    if intent.op == DELETE:
        return _forget(ctx, run_id, intent.key, out, short)
    if contains_secret(normalize(intent.value)):
        raise RejectSecret(["$.text"])
    scope = MemoryScope(intent.scope)
    out.scope, out.kind, out.value, out.ttl = intent.scope, intent.kind, intent.value, intent.ttl
    reason = f"user said: {text.strip()[:200]}"
    if intent.confidence < min_confidence:
        entry = EntryInput(intent.kind, intent.key, intent.value, UTTERANCE_PRIORITY, intent.ttl, Source.USER_INFERRED)
        row, audit_id = stage(ctx=ctx, scope=scope, entry=entry, run_id=run_id, confidence=intent.confidence,
                              reason=reason)
        out.op, out.pending_entry_id, out.audit_id = UtteranceOp.PENDING, str(row.entry_id), audit_id
        out.acknowledgement = "Pending your confirmation." if short else (
            f"I think you want {intent.key} = {intent.value!r}; it is pending until you confirm it.")
        return out
    entry = EntryInput(intent.kind, intent.key, intent.value, UTTERANCE_PRIORITY, intent.ttl, Source.USER_EXPLICIT)
    result = upsert_entry(ctx=ctx, scope=scope, entry=entry, run_id=run_id, reason=reason)
    out.doc_version, out.audit_id = result.doc.version, result.audit_ids[0]
    stored = resolve(ctx=ctx, keys=[intent.key], run_id=run_id)[0]
    out.verified = stored.provenance is not None and stored.provenance["scope"] in (intent.scope, "policy")
    where = "for this session" if scope is MemoryScope.SESSION else "from now on"
    out.acknowledgement = "Noted." if short else f"Noted {where}: {intent.key} = {intent.value!r}."
    return out


def _forget(ctx: RequestContext, run_id: str, key: str, out: Outcome, short: bool) -> Outcome:
    for scope in (MemoryScope.PROFILE, MemoryScope.SESSION):
        if has_key(ctx, scope, key, run_id):
            r = delete_entry(ctx=ctx, scope=scope, key=key, run_id=run_id, actor=Source.USER_EXPLICIT,
                             reason=f"user asked to forget {key}")
            out.deleted.append({"scope": str(scope), "doc_version": r.doc.version, "audit_id": r.audit_ids[0]})
    left = resolve(ctx=ctx, keys=[key], run_id=run_id)[0].provenance
    out.verified = left is None or left["scope"] == "policy"
    if not out.deleted:
        out.op = "none"
        out.acknowledgement = f"Nothing was stored under {key}."
    else:
        out.acknowledgement = "Forgotten." if short else f"Forgotten: {key} is no longer in your memory."
    return out
