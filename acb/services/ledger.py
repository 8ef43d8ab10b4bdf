"""The decision ledger and task state kept from decision and task_update events (PRD 6.1, 7.3). Supersession is
explicit (the PRD's open question "manual vs auto-detection"): a decision names the one it replaces in
``supersedes``; the old row stays, marked superseded, with a link both ways."""

from __future__ import annotations

from elf_kernel.errors import ElfError, NotFound

from ..domain.ids import new_id
from ..domain.vocabulary import DecisionScope, DecisionStatus, Sensitivity, TaskStatus
from ..models import AcbDecision, AcbEvent, AcbTask


class AlreadySuperseded(ElfError):
    status, error_code = 409, "DECISION_SUPERSEDED"


def apply_decision(event: AcbEvent, chunk_ids: list[str]) -> str:
    """The decision row of a decision event. The use case (services.use_cases) has checked ``supersedes`` with the
    request's paths; it is checked again here on the locked row, so of two writes racing to supersede one decision
    the second gets 409 too."""
    c = event.content
    old = None
    if c.get("supersedes"):
        old = AcbDecision.objects.select_for_update().filter(tenant_id=event.tenant_id, project_id=event.project_id,
                                                             decision_id=c["supersedes"]).first()
        if old is None:
            raise NotFound("No such decision to supersede in this project.", ["$.content.supersedes"])
        if old.status != DecisionStatus.ACTIVE:
            raise AlreadySuperseded(f"{old.decision_id} was already superseded by {old.superseded_by_id}.",
                                    ["$.content.supersedes"])
    decision = AcbDecision.objects.create(
        decision_id=new_id("dec"), tenant_id=event.tenant_id, project_id=event.project_id,
        session_id=event.session_id, agent_id=event.agent_id, event=event, channel=event.channel,
        sensitivity=event.sensitivity, ts=event.ts, status=DecisionStatus.ACTIVE,
        scope=c.get("scope", DecisionScope.PROJECT),
        decision=c["decision"], rationale=c.get("rationale", []), constraints=c.get("constraints", []),
        alternatives=c.get("alternatives", []), consequences=c.get("consequences", []),
        refs=list(dict.fromkeys([*event.refs, event.event_id, *chunk_ids])), supersedes=old,
        search_text="\n".join([c["decision"], *c.get("rationale", []), *c.get("constraints", [])]))
    if old is not None:
        old.status, old.superseded_by = DecisionStatus.SUPERSEDED, decision
        old.save(update_fields=["status", "superseded_by"])
    return decision.decision_id


def apply_task(event: AcbEvent) -> str:
    c = event.content
    task = None
    if c.get("task_id"):
        task = AcbTask.objects.select_for_update().filter(tenant_id=event.tenant_id, project_id=event.project_id,
                                                          task_id=c["task_id"]).first()
    new = task is None
    if new:
        task = AcbTask(task_id=c.get("task_id") or new_id("tsk"), tenant_id=event.tenant_id,
                       project_id=event.project_id, session_id=event.session_id, agent_id=event.agent_id,
                       title=c["title"], refs=[])
    task.ts, task.status = event.ts, c.get("status", task.status if task.status else TaskStatus.OPEN)
    task.title = c.get("title") or task.title
    task.details = c.get("details", task.details or "")
    task.agent_id = event.agent_id
    task.refs = list(dict.fromkeys([*task.refs, event.event_id, *event.refs]))
    task.sealed = task.sealed or event.sensitivity == Sensitivity.HIGH  # once a high event wrote it, encrypted at rest
    # a new task is inserted, never saved over a row of the same id (another project's task: the use case refuses
    # it, services.use_cases._check_task)
    task.save(force_insert=new)
    return task.task_id
