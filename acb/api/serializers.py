"""Shapes of the event log and bundle endpoints (agent-memory-acb-prd section 7)."""

from __future__ import annotations

from rest_framework import serializers

from elf_config.identifiers import MAX_IDENTIFIER_CHARS
from elf_kernel.api.fast_output import FastOutput
from elf_kernel.api.strict import StrictSerializer

from ..domain.vocabulary import (
    ACTOR_TYPES,
    ANY_DECISION_STATUS,
    CHANNELS,
    DECISION_SCOPES,
    DECISION_STATUSES,
    KINDS,
    MAX_BUDGET,
    MIN_BUDGET,
    SENSITIVITIES,
    TASK_STATUSES,
    Channel,
    DecisionScope,
    DecisionStatus,
    EventKind,
    Sensitivity,
    TaskStatus,
)

MAX_TAGS, MAX_REFS, MAX_TEXT = 32, 64, 200_000
# POST /api/v1/decisions records no secret decision (POST /api/v1/events may: its content is then withheld).
DECISION_SENSITIVITIES = tuple(s for s in SENSITIVITIES if s != Sensitivity.SECRET)


def ident(**kw):
    return serializers.CharField(max_length=MAX_IDENTIFIER_CHARS, **kw)


def texts(max_items: int = 32, **kw):
    return serializers.ListField(child=serializers.CharField(max_length=4000), max_length=max_items, default=list, **kw)


class ActorBody(StrictSerializer):
    type = serializers.ChoiceField(choices=ACTOR_TYPES)
    id = ident()


CALLER_HELP = ("the caller's {}: with static API keys optional (the key's), and if given it must be the key's "
               "(403 FORBIDDEN otherwise); required without keys")


class ContextFields(StrictSerializer):
    """PRD 9.3: every call names tenant, session and agent; project is ELF's (for notes and core memory). With
    static API keys the key fixes tenant, project and agent (elf_kernel.identity)."""

    tenant_id = ident(required=False, help_text=CALLER_HELP.format("tenant"))
    session_id = ident(help_text="the conversation, named within the project")
    agent_id = ident(required=False, help_text=CALLER_HELP.format("agent"))
    project_id = ident(required=False, help_text="the ELF project (notes, core memory, the event log's reads): with "
                       "static API keys the key's; without keys the X-ELF-Project-Id header, else 'default'")


class ReadQuery(StrictSerializer):
    """The caller ids of a GET on the event log (as in a body), and the channel whose rules the read follows."""

    tenant_id = ident(required=False, help_text=CALLER_HELP.format("tenant"))
    project_id = ident(required=False, help_text="the caller's project (as in a body)")
    agent_id = ident(required=False, help_text="the caller's agent (as in a body)")
    channel = serializers.ChoiceField(
        choices=CHANNELS,
        default=Channel.PRIVATE.value,
        help_text="read as a bundle of this "
        "channel would (PRD 9.1): only its visible channels and allowed sensitivities",
    )


class EventBody(ContextFields):
    channel = serializers.ChoiceField(choices=CHANNELS)
    actor = ActorBody()
    kind = serializers.ChoiceField(choices=KINDS)
    sensitivity = serializers.ChoiceField(choices=SENSITIVITIES, default=Sensitivity.NONE.value)
    tags = serializers.ListField(child=ident(), max_length=MAX_TAGS, default=list)
    content = serializers.DictField(
        help_text="by kind: message {text}; tool_call {tool, args}; tool_result {tool, "
        "output, path?, line_range?}; decision {decision, rationale[], constraints[], "
        "alternatives[], consequences[], scope?, supersedes?}; task_update {task_id?, "
        "title, status, details?}; artifact {text|description}"
    )
    refs = serializers.ListField(
        child=ident(),
        max_length=MAX_REFS,
        default=list,
        help_text="ids of events, chunks, decisions, tasks or artifacts of the caller's project",
    )


class MessageContent(StrictSerializer):
    text = serializers.CharField(max_length=MAX_TEXT, trim_whitespace=False)


class ToolCallContent(StrictSerializer):
    tool = ident()
    args = serializers.DictField(default=dict)


class ToolResultContent(StrictSerializer):
    tool = ident()
    output = serializers.CharField(allow_blank=True, trim_whitespace=False, help_text="the tool's output as text")
    path = serializers.CharField(required=False, max_length=1000)
    line_range = serializers.ListField(
        child=serializers.IntegerField(min_value=1), min_length=2, max_length=2, required=False
    )
    exit_code = serializers.IntegerField(required=False)


class DecisionContent(StrictSerializer):
    decision = serializers.CharField(max_length=4000)
    rationale = texts()
    constraints = texts()
    alternatives = texts()
    consequences = texts()
    scope = serializers.ChoiceField(choices=DECISION_SCOPES, default=DecisionScope.PROJECT.value)
    supersedes = ident(required=False, help_text="the decision_id this one replaces")


class TaskContent(StrictSerializer):
    task_id = ident(
        required=False,
        help_text="a task of the caller's project to update (400 at task_id if it names "
        "none); omit it to create a new task, whose id the answer gives",
    )
    title = serializers.CharField(required=False, max_length=500)
    status = serializers.ChoiceField(choices=TASK_STATUSES, default=TaskStatus.OPEN.value)
    details = serializers.CharField(required=False, allow_blank=True, max_length=8000)


class ArtifactContent(StrictSerializer):
    text = serializers.CharField(required=False, max_length=MAX_TEXT)
    description = serializers.CharField(required=False, max_length=4000)


CONTENT_SHAPES = {
    EventKind.MESSAGE: MessageContent,
    EventKind.TOOL_CALL: ToolCallContent,
    EventKind.TOOL_RESULT: ToolResultContent,
    EventKind.DECISION: DecisionContent,
    EventKind.TASK_UPDATE: TaskContent,
    EventKind.ARTIFACT: ArtifactContent,
}


class EventOut(serializers.Serializer):
    event_id = serializers.CharField()
    chunk_ids = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    redactions = serializers.IntegerField(help_text="secrets replaced by [REDACTED:<kind>] before storage")
    withheld = serializers.BooleanField(help_text="sensitivity secret: the content was not stored")
    artifact_id = serializers.CharField(allow_null=True)
    decision_id = serializers.CharField(allow_null=True)
    task_id = serializers.CharField(allow_null=True)


class BuildBody(ContextFields):
    channel = serializers.ChoiceField(choices=CHANNELS, default=Channel.PRIVATE.value)
    intent = serializers.CharField(required=False, allow_null=True, max_length=200)
    query_text = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=4000)
    max_tokens = serializers.IntegerField(min_value=MIN_BUDGET, max_value=MAX_BUDGET, default=MAX_BUDGET)


class BundleItemOut(serializers.Serializer):
    type = serializers.CharField()
    text = serializers.CharField()
    refs = serializers.ListField(child=serializers.CharField())
    token_est = serializers.IntegerField()


class SectionOut(FastOutput):
    name = serializers.CharField()
    cap = serializers.IntegerField()
    token_est = serializers.IntegerField()
    # JSONField renders the items as built (a bundle holds hundreds); their shape is the help text's.
    items = serializers.JSONField(
        help_text="[{type, text, refs, token_est, ...}]: decision_id, task_id, score and scope where they apply"
    )


class BundleOut(FastOutput):
    acb_id = serializers.CharField()
    budget_tokens = serializers.IntegerField()
    token_used_est = serializers.IntegerField()
    reserve_tokens = serializers.IntegerField()
    bundle_hash = serializers.CharField(help_text="the same log and memory give the same hash")
    sections = SectionOut(many=True)
    omissions = serializers.JSONField(help_text="[{reason, count, candidates, ...}]")
    provenance = serializers.DictField()


class ArtifactQuery(ReadQuery):
    """GET /api/v1/artifacts/{id}: an artifact follows the channel and sensitivity of the event it came from."""


class ArtifactOut(serializers.Serializer):
    artifact_id = serializers.CharField()
    kind = serializers.CharField()
    session_id = serializers.CharField()
    ts = serializers.DateTimeField()
    meta = serializers.DictField()
    refs = serializers.ListField(child=serializers.CharField())
    text = serializers.CharField(help_text="the full output (UTF-8)")


class DecisionBody(ContextFields, DecisionContent):
    channel = serializers.ChoiceField(choices=CHANNELS, default=Channel.PRIVATE.value)
    sensitivity = serializers.ChoiceField(choices=DECISION_SENSITIVITIES, default=Sensitivity.NONE.value)
    refs = serializers.ListField(child=ident(), max_length=MAX_REFS, default=list)


class TaskBody(ContextFields, TaskContent):
    channel = serializers.ChoiceField(choices=CHANNELS, default=Channel.PRIVATE.value)
    refs = serializers.ListField(child=ident(), max_length=MAX_REFS, default=list)


class DecisionsQuery(ReadQuery):
    q = serializers.CharField(required=False, max_length=1000, help_text="full-text query")
    status = serializers.ChoiceField(
        choices=(*DECISION_STATUSES, ANY_DECISION_STATUS), default=DecisionStatus.ACTIVE.value
    )
    session_id = ident(required=False)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)


class LedgerDecisionOut(serializers.Serializer):
    decision_id = serializers.CharField()
    ts = serializers.DateTimeField()
    status = serializers.CharField()
    scope = serializers.CharField()
    decision = serializers.CharField()
    rationale = serializers.ListField(child=serializers.CharField())
    constraints = serializers.ListField(child=serializers.CharField())
    alternatives = serializers.ListField(child=serializers.CharField())
    consequences = serializers.ListField(child=serializers.CharField())
    refs = serializers.ListField(child=serializers.CharField())
    session_id = serializers.CharField()
    agent_id = serializers.CharField()
    event_id = serializers.CharField()
    supersedes = serializers.CharField(source="supersedes_id", allow_null=True)
    superseded_by = serializers.CharField(source="superseded_by_id", allow_null=True)


class DecisionsOut(serializers.Serializer):
    decisions = LedgerDecisionOut(many=True)
