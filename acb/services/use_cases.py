"""The use cases of the event log's routes (agent-memory-acb-prd section 7), one entry point per route: the
caller's identity (elf_kernel.identity: the API key's, stated ids may only repeat it), then every rule of the use
case (English gate, refs, task and supersession checks, the event log's read rule), then the write or the read.
The views only validate shapes, call one of these and render.

A write's checks and the write run in one transaction; the ledger (services.ledger) repeats the supersession check
on the row it locks, so two writers racing for one decision cannot both supersede it."""

from __future__ import annotations

from django.db import transaction

from elf_config.identifiers import identifier_problem
from elf_domain.english_gate import FieldKind
from elf_kernel.api.english_fields import require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import InvalidRequest, NotFound
from elf_kernel.identity import Caller, StatedIds

from .. import selectors as sel
from ..domain.vocabulary import WRITTEN_KINDS, ActorType, DecisionStatus, EventKind, Sensitivity
from ..models import AcbArtifact, AcbDecision
from ..sealing import refuse_lookalikes
from .bundle import build
from .event_log import Recorded, Writer, record_event
from .ledger import AlreadySuperseded

DEFAULT_PROJECT = "default"
NATURAL = FieldKind.NATURAL
NOT_WRITTEN = ("task_id", "supersedes", "scope", "status")


def caller_context(caller: Caller, stated: StatedIds, session_id: str | None = None, *,
                   agent_required: bool = True) -> RequestContext:
    """The caller's context (the key's when keys are on), and a check of the session id it names."""
    ctx = caller.context(stated, default_project=DEFAULT_PROJECT, agent_required=agent_required)
    if session_id is not None and identifier_problem(session_id):
        raise InvalidRequest("session_id is an English identifier of at most 128 characters.",
                             [stated.path("session_id")])
    return ctx


def _written_fields(kind: str, content: dict, at: str) -> list[tuple[str, str, FieldKind]]:
    """What people and agents wrote (the English gate's business); tool calls and results are data."""
    fields = []
    for name, value in content.items():
        if kind in WRITTEN_KINDS and isinstance(value, str) and name not in NOT_WRITTEN:
            fields.append((f"{at}.{name}", value, NATURAL))
        elif isinstance(value, list) and kind == EventKind.DECISION:
            fields += [(f"{at}.{name}[{i}]", v, NATURAL) for i, v in enumerate(value)]
    return fields


def _check_refs(owner: sel.Owner, refs: list[str]) -> None:
    missing = sel.unknown_refs(owner, refs)
    if missing:
        raise InvalidRequest(f"Unknown refs in this project: {', '.join(missing[:5])}.",
                             [f"$.refs[{refs.index(m)}]" for m in missing])


def _check_task(owner: sel.Owner, content: dict, at: str) -> None:
    """task_id updates a task of the caller's project; without it a new task is made (and needs a title). A task
    id of another project or tenant gets the same answer as one that does not exist."""
    task_id = content.get("task_id")
    if task_id and not sel.task_exists(owner, task_id):
        raise InvalidRequest("No task of this task_id in this project: omit task_id to create a new task.",
                             [f"{at}.task_id"])
    if not task_id and not content.get("title"):
        raise InvalidRequest("A new task needs a title.", [f"{at}.title"])


def _check_supersedes(owner: sel.Owner, decision_id: str, at: str) -> None:
    status = sel.decision_status(owner, decision_id)
    if status is None:
        raise NotFound("No such decision to supersede in this project.", [f"{at}.supersedes"])
    if status != DecisionStatus.ACTIVE:
        raise AlreadySuperseded(f"{decision_id} was already superseded.", [f"{at}.supersedes"])


def record(*, caller: Caller, stated: StatedIds, session_id: str, channel: str, actor: dict | None, kind: str,
           sensitivity: str, tags: list[str], content: dict, refs: list[str]) -> Recorded:
    """record_event (PRD 7.1, POST /api/v1/events) as the caller; the content's fields sit at $.content."""
    return _record(caller=caller, stated=stated, session_id=session_id, channel=channel, actor=actor, kind=kind,
                   sensitivity=sensitivity, tags=tags, content=content, refs=refs, content_at="$.content")


def record_decision(*, caller: Caller, stated: StatedIds, session_id: str, channel: str, sensitivity: str,
                    content: dict, refs: list[str]) -> Recorded:
    """POST /api/v1/decisions (PRD 7.3): an event of kind decision by the caller's agent, whose fields sit at the
    top of the body ($)."""
    return _record(caller=caller, stated=stated, session_id=session_id, channel=channel, actor=None,
                   kind=EventKind.DECISION, sensitivity=sensitivity, tags=[], content=content, refs=refs,
                   content_at="$")


def record_task(*, caller: Caller, stated: StatedIds, session_id: str, channel: str, content: dict,
                refs: list[str]) -> Recorded:
    """POST /api/v1/tasks (PRD 7.3): an event of kind task_update by the caller's agent, sensitivity none, whose
    fields sit at the top of the body ($)."""
    return _record(caller=caller, stated=stated, session_id=session_id, channel=channel, actor=None,
                   kind=EventKind.TASK_UPDATE, sensitivity=Sensitivity.NONE, tags=[], content=content, refs=refs,
                   content_at="$")


@transaction.atomic
def _record(*, caller: Caller, stated: StatedIds, session_id: str, channel: str, actor: dict | None, kind: str,
            sensitivity: str, tags: list[str], content: dict, refs: list[str], content_at: str) -> Recorded:
    """Every rule of a write, then the write: ``content_at`` is where the content's fields sit in the request (the
    paths of the errors)."""
    ctx = caller_context(caller, stated, session_id)
    actor = actor or {"type": ActorType.AGENT.value, "id": ctx.agent_id}
    caller.require_own_agent(ctx, actor["type"], actor["id"], "$.actor.id")
    if sensitivity != Sensitivity.SECRET:
        require_english(_written_fields(kind, content, content_at))
        refuse_lookalikes(content, content_at)  # before record_event's own check, with the request's paths
    owner = sel.Owner(ctx.tenant_id, ctx.project_id)
    _check_refs(owner, refs)
    if kind == EventKind.TASK_UPDATE:
        _check_task(owner, content, content_at)
    if kind == EventKind.DECISION and content.get("supersedes"):
        _check_supersedes(owner, content["supersedes"], content_at)
    return record_event(writer=Writer.of(ctx, session_id), channel=channel, actor_type=actor["type"],
                        actor_id=actor["id"], kind=kind, sensitivity=sensitivity, tags=tags, content=content,
                        refs=refs)


def build_bundle(*, caller: Caller, stated: StatedIds, session_id: str, channel: str, intent: str | None,
                 query_text: str | None, max_tokens: int) -> dict:
    """build_acb (PRD 7.2) as the caller: every section reads through the read rules (selectors.View)."""
    ctx = caller_context(caller, stated, session_id)
    if query_text:
        require_english([("$.query_text", query_text, NATURAL)])
    view = sel.View(ctx.tenant_id, ctx.project_id, session_id, ctx.agent_id, channel)
    return build(view=view, intent=intent, query_text=query_text, max_tokens=max_tokens)


def artifact(*, caller: Caller, stated: StatedIds, artifact_id: str, channel: str) -> AcbArtifact:
    """An artifact of the caller's project that a bundle of ``channel`` could load (404 otherwise)."""
    ctx = caller_context(caller, stated, agent_required=False)
    require_english([("$.path.artifact_id", artifact_id, FieldKind.IDENTIFIER)])  # ids are art_<ulid>
    found = sel.readable_artifact(sel.Reader(ctx.tenant_id, ctx.project_id, channel), artifact_id)
    if found is None:
        raise NotFound("No such artifact in this project.", ["$.path.artifact_id"])
    return found


def decisions(*, caller: Caller, stated: StatedIds, channel: str, text: str | None, status: str,
              session_id: str | None, limit: int) -> list[AcbDecision]:
    """The ledger of the caller's project as a bundle of ``channel`` reads it."""
    ctx = caller_context(caller, stated, agent_required=False)
    if text:
        require_english([("$.query.q", text, NATURAL)])
    return sel.query_decisions(sel.Reader(ctx.tenant_id, ctx.project_id, channel), text=text, status=status,
                               session_id=session_id, limit=limit)
