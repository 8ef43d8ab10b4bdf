"""The event log's words and the bundle's numbers (agent-memory-acb-prd sections 6, 8 and 9)."""

from __future__ import annotations

from enum import StrEnum


class Channel(StrEnum):
    PRIVATE = "private"
    PUBLIC = "public"
    TEAM = "team"
    AGENT = "agent"


class ActorType(StrEnum):
    HUMAN = "human"
    AGENT = "agent"
    TOOL = "tool"


class EventKind(StrEnum):
    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    DECISION = "decision"
    TASK_UPDATE = "task_update"
    ARTIFACT = "artifact"


class Sensitivity(StrEnum):
    NONE = "none"
    LOW = "low"
    HIGH = "high"  # encrypted at rest (PRD 9.2)
    SECRET = "secret"  # never stored: the event keeps only that it was withheld


class DecisionScope(StrEnum):
    PROJECT = "project"
    USER = "user"
    GLOBAL = "global"


class DecisionStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"


class TaskStatus(StrEnum):
    OPEN = "open"
    DOING = "doing"
    DONE = "done"


class SectionName(StrEnum):
    """A bundle's sections (PRD 8.1), each with its cap; the reserve is never filled."""

    IDENTITY = "identity"
    RULES = "rules"
    TASK_STATE = "task_state"
    DECISION_LEDGER = "decision_ledger"
    RETRIEVED_EVIDENCE = "retrieved_evidence"
    RECENT_WINDOW = "recent_window"
    HANDOFF_PACKET = "handoff_packet"
    RESERVE = "reserve"


# The allowed values as plain strings, in the enums' order (serializer choices: the OpenAPI enums).
CHANNELS = tuple(c.value for c in Channel)
ACTOR_TYPES = tuple(a.value for a in ActorType)
KINDS = tuple(k.value for k in EventKind)
SENSITIVITIES = tuple(s.value for s in Sensitivity)
DECISION_SCOPES = tuple(s.value for s in DecisionScope)
DECISION_STATUSES = tuple(s.value for s in DecisionStatus)
TASK_STATUSES = tuple(s.value for s in TaskStatus)
# A ledger query's status that reads active and superseded decisions alike.
ANY_DECISION_STATUS = "all"
# Kinds whose text people or agents write: the English gate applies. Tool calls and results are data (below).
WRITTEN_KINDS = (EventKind.MESSAGE, EventKind.DECISION, EventKind.TASK_UPDATE, EventKind.ARTIFACT)
# Tasks a bundle's task_state shows.
OPEN_TASK_STATUSES = (TaskStatus.OPEN, TaskStatus.DOING)

# PRD 9.1: what each channel may load. "secret" loads nowhere (PRD 9.2).
_OPEN = (Sensitivity.NONE, Sensitivity.LOW)
ALLOWED_SENSITIVITIES = {
    Channel.PUBLIC: _OPEN,
    Channel.PRIVATE: (*_OPEN, Sensitivity.HIGH),
    Channel.TEAM: (*_OPEN, Sensitivity.HIGH),
    Channel.AGENT: _OPEN,
}
# Which channels' events a bundle for a channel may quote: a public or agent bundle never quotes a private or team
# conversation (PRD 9.1 "excludes preferences, private decisions"); a private one sees everything of the tenant.
VISIBLE_CHANNELS = {
    Channel.PUBLIC: (Channel.PUBLIC,),
    Channel.AGENT: (Channel.AGENT, Channel.PUBLIC),
    Channel.TEAM: (Channel.TEAM, Channel.AGENT, Channel.PUBLIC),
    Channel.PRIVATE: (Channel.PRIVATE, Channel.TEAM, Channel.AGENT, Channel.PUBLIC),
}
# Channels whose bundles see only shared notes and no preferences (PRD 9.1).
SHARED_ONLY_CHANNELS = (Channel.PUBLIC, Channel.AGENT)

# PRD 8.2 gamma term: decisions > tasks > messages.
IMPORTANCE = {EventKind.DECISION: 1.0, EventKind.TASK_UPDATE: 0.7, EventKind.MESSAGE: 0.5, EventKind.ARTIFACT: 0.4,
              EventKind.TOOL_RESULT: 0.4, EventKind.TOOL_CALL: 0.2}

# PRD 8.1 caps at the default budget of 65,000 tokens; a smaller max_tokens scales every cap by the same factor.
DEFAULT_BUDGET = 65_000
MIN_BUDGET, MAX_BUDGET = 500, 65_000
SECTION_CAPS = {
    SectionName.IDENTITY: 1_200,
    SectionName.RULES: 6_000,
    SectionName.TASK_STATE: 3_000,
    SectionName.DECISION_LEDGER: 4_000,
    SectionName.RETRIEVED_EVIDENCE: 28_000,
    SectionName.RECENT_WINDOW: 8_000,
    SectionName.HANDOFF_PACKET: 6_000,
    SectionName.RESERVE: 8_800,
}
# The order sections are filled: what is filled first keeps content that two sections share (each section has
# its own cap, so the order decides nothing else). The recent window is filled before retrieved evidence: a turn
# of the conversation stays in its place in the dialogue, and retrieval brings what the window does not hold.
FILL_ORDER = (
    SectionName.IDENTITY,
    SectionName.RULES,
    SectionName.TASK_STATE,
    SectionName.DECISION_LEDGER,
    SectionName.HANDOFF_PACKET,
    SectionName.RECENT_WINDOW,
    SectionName.RETRIEVED_EVIDENCE,
)

ALPHA, BETA, GAMMA = 0.6, 0.3, 0.1  # PRD 8.2
RECENCY_TAU_HOURS = 24.0
CANDIDATE_POOL_MAX = 2000
SCORED_MAX = 200
EXCERPT_MAX_BYTES = 64 * 1024
CHUNK_MAX_TOKENS = 300
MAX_CONTENT_BYTES = 1024 * 1024
