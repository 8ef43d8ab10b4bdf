"""The shared words of the data model: scopes, note types, read profiles, search modes, ranking formulas and
the outbox states every outbox table uses. Plain string enums, so Django models, config rules and pure rules
all agree on one spelling (a member compares equal to its string)."""

from __future__ import annotations

from enum import StrEnum


class Scope(StrEnum):
    AGENT_PRIVATE = "agent_private"
    PROJECT_SHARED = "project_shared"
    ORG_SHARED = "org_shared"


class NoteType(StrEnum):
    PREFERENCE = "preference"
    CONSTRAINT = "constraint"
    DECISION = "decision"
    PROFILE = "profile"
    FACT = "fact"
    PLAN = "plan"


class OutboxOp(StrEnum):
    UPSERT = "UPSERT"
    DELETE = "DELETE"


class OutboxStatus(StrEnum):
    PENDING = "PENDING"
    DONE = "DONE"
    FAILED = "FAILED"


MEMORY_TYPES = tuple(t.value for t in NoteType)
KNOWN_SCOPES = tuple(s.value for s in Scope)
READ_PROFILES = ("private_only", "private_plus_project", "all_scopes")
SEARCH_MODES = ("quick_find", "planned_search")
# The op of a note result (the OpenAPI enum OpEnum is pinned to it in settings).
NOTE_OPS = ("ADD", "UPDATE", "NONE", "DELETE", "REJECTED")
# ranking.formula: the supplement's rank blend (the default) or the spec's additive score (v2 section 13 step 15).
RANK_BLEND, SPEC_ADDITIVE = RANKING_FORMULAS = ("rank_blend", "spec_additive")
