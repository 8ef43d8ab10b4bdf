"""record_event (agent-memory-acb-prd 7.1): the one write path of the event log. In one transaction: the event
(secrets redacted first; ``sensitivity: secret`` content withheld entirely), its chunks, a tool result's artifact
when its output passed 64 KB, the session row, and the decision ledger or task state for those kinds."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from elf_domain.secrets import find_secrets, redact_secrets
from elf_kernel.context import RequestContext

from ..domain.event_text import chunk_text, event_text
from ..domain.ids import new_id
from ..domain.normalize import normalize_tool_result
from ..domain.packing import content_key
from ..domain.tokens import estimate_tokens
from ..domain.vocabulary import IMPORTANCE, EventKind, Sensitivity
from ..models import AcbArtifact, AcbChunk, AcbEvent
from ..sealing import refuse_lookalikes, seal_chunks
from .ledger import apply_decision, apply_task

WITHHELD = {"withheld": True, "reason": "sensitivity secret: never stored"}


@dataclass(frozen=True)
class Writer:
    """Who writes: PRD 9.3's tenant, session and agent, and the ELF project the session belongs to."""

    tenant_id: str
    project_id: str
    session_id: str
    agent_id: str

    @classmethod
    def of(cls, ctx: RequestContext, session_id: str) -> Writer:
        """The caller's identity (already decided: elf_kernel.identity) and the session it writes to."""
        return cls(ctx.tenant_id, ctx.project_id, session_id, ctx.agent_id)


@dataclass
class Recorded:
    event: AcbEvent
    chunk_ids: list[str]
    redactions: int
    artifact_id: str | None = None
    decision_id: str | None = None
    task_id: str | None = None
    notes: list[str] = field(default_factory=list)
    withheld: bool = False  # sensitivity secret: only the fact of the event was stored


def _redact(value, counter: list[int]):
    """Every string in ``value`` with the shared detector's findings replaced by [REDACTED:<kind>]."""
    if isinstance(value, str):
        found = len(find_secrets(value))
        if found:
            counter[0] += found
            return redact_secrets(value)
        return value
    if isinstance(value, list):
        return [_redact(v, counter) for v in value]
    if isinstance(value, dict):
        return {k: _redact(v, counter) for k, v in value.items()}
    return value


def _touch_session(writer: Writer, ts: datetime) -> None:
    with connection.cursor() as cur:
        cur.execute(
            """INSERT INTO acb_sessions (tenant_id, session_id, project_id, agents, event_count, first_ts, last_ts)
               VALUES (%(t)s, %(s)s, %(p)s, ARRAY[%(a)s::text], 1, %(ts)s, %(ts)s)
               ON CONFLICT (tenant_id, project_id, session_id) DO UPDATE SET
                 event_count = acb_sessions.event_count + 1,
                 last_ts = GREATEST(acb_sessions.last_ts, EXCLUDED.last_ts),
                 agents = CASE WHEN %(a)s::text = ANY(acb_sessions.agents) THEN acb_sessions.agents
                               ELSE array_append(acb_sessions.agents, %(a)s::text) END""",
            {"t": writer.tenant_id, "s": writer.session_id, "p": writer.project_id, "a": writer.agent_id, "ts": ts})


def chunk_rows(event: AcbEvent) -> list[AcbChunk]:
    """The derived chunks of an event (also what a rebuild writes again)."""
    if event.sensitivity == Sensitivity.SECRET or event.content.get("withheld"):
        return []
    rows = []
    for i, text in enumerate(chunk_text(event_text(event.kind, event.content))):
        rows.append(AcbChunk(
            chunk_id=f"chk_{event.event_id.removeprefix('evt_')}_{i:04d}", tenant_id=event.tenant_id,
            project_id=event.project_id, session_id=event.session_id, event=event, ord=i, ts=event.ts,
            kind=event.kind, agent_id=event.agent_id, actor_type=event.actor_type, actor_id=event.actor_id,
            artifact_id=event.content.get("artifact_id") if event.content.get("truncated") else None,
            channel=event.channel, sensitivity=event.sensitivity, tags=event.tags,
            token_est=max(estimate_tokens(text), 1), importance=IMPORTANCE[event.kind], text=text,
            text_hash=content_key(text)))
    return seal_chunks(rows)  # a high event's chunks are encrypted at rest (PRD 9.2)


@transaction.atomic
def record_event(*, writer: Writer, channel: str, actor_type: str, actor_id: str, kind: str, sensitivity: str,
                 tags: list[str], content: dict, refs: list[str]) -> Recorded:
    ts = timezone.now()
    counter = [0]
    artifact_id = None
    full_text = None
    if sensitivity == Sensitivity.SECRET:
        stored = dict(WITHHELD)
    else:
        refuse_lookalikes(content)
        stored = _redact(content, counter)
        if kind == EventKind.TOOL_RESULT:
            normalized = normalize_tool_result(stored)
            stored, full_text = normalized.content, normalized.full_text
            if full_text is not None:
                artifact_id = new_id("art")
                stored["artifact_id"] = artifact_id
    event = AcbEvent.objects.create(
        event_id=new_id("evt"), ts=ts, tenant_id=writer.tenant_id, project_id=writer.project_id,
        session_id=writer.session_id, agent_id=writer.agent_id, channel=channel, actor_type=actor_type,
        actor_id=actor_id, kind=kind, sensitivity=sensitivity, tags=tags, content=stored, refs=refs)
    if artifact_id is not None:
        AcbArtifact.objects.create(
            artifact_id=artifact_id, tenant_id=writer.tenant_id, project_id=writer.project_id,
            session_id=writer.session_id, ts=ts,
            kind="tool_output", bytes=full_text.encode("utf-8"), refs=[event.event_id],
            meta={"tool": stored.get("tool"), "path": stored.get("path"), "bytes": len(full_text.encode("utf-8")),
                  "media_type": "text/plain; charset=utf-8"}, sealed=sensitivity == Sensitivity.HIGH)
    chunks = chunk_rows(event)
    AcbChunk.objects.bulk_create(chunks)
    _touch_session(writer, ts)
    out = Recorded(event, [c.chunk_id for c in chunks], counter[0], artifact_id,
                   withheld=sensitivity == Sensitivity.SECRET)
    if sensitivity != Sensitivity.SECRET and kind == EventKind.DECISION:
        out.decision_id = apply_decision(event, [c.chunk_id for c in chunks])
    elif sensitivity != Sensitivity.SECRET and kind == EventKind.TASK_UPDATE:
        out.task_id = apply_task(event)
    return out
