"""The shared words of the data model: scopes, note types, note ops, read profiles, search modes, ranking
formulas, expansion and trace write modes, and the outbox states every outbox table uses. Plain string enums, so
Django models, config rules and pure rules all agree on one spelling (a member compares equal to its string)."""

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


class NoteOp(StrEnum):
    """The op of a note result: what add_note, add_event, an update or a delete did to a note."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    NONE = "NONE"
    DELETE = "DELETE"
    REJECTED = "REJECTED"


class ReadProfile(StrEnum):
    """Which scopes a search reads (scopes.read_profiles lists each one's scopes)."""

    PRIVATE_ONLY = "private_only"
    PRIVATE_PLUS_PROJECT = "private_plus_project"
    ALL_SCOPES = "all_scopes"


class SearchMode(StrEnum):
    QUICK_FIND = "quick_find"
    PLANNED_SEARCH = "planned_search"


class RankingFormula(StrEnum):
    """ranking.formula: the supplement's rank blend (the default) or the spec's additive score (v2 section 13
    step 15)."""

    RANK_BLEND = "rank_blend"
    SPEC_ADDITIVE = "spec_additive"


class ExpansionMode(StrEnum):
    """search.expansion.mode: never, always, or when the first recall looks weak (search.dynamic)."""

    OFF = "off"
    ALWAYS = "always"
    DYNAMIC = "dynamic"


class TraceWriteMode(StrEnum):
    """search.explain.write_mode: a search's trace goes through the trace outbox, or is written before it answers."""

    OUTBOX = "outbox"
    INLINE = "inline"


# Each vocabulary's values as plain strings, in its enum's order: serializer choices (and so the OpenAPI enums, such
# as OpEnum, which settings pins to NOTE_OPS), config messages and CLI choices.
MEMORY_TYPES = tuple(t.value for t in NoteType)
KNOWN_SCOPES = tuple(s.value for s in Scope)
NOTE_OPS = tuple(o.value for o in NoteOp)
READ_PROFILES = tuple(p.value for p in ReadProfile)
SEARCH_MODES = tuple(m.value for m in SearchMode)
RANKING_FORMULAS = tuple(f.value for f in RankingFormula)
EXPANSION_MODES = tuple(m.value for m in ExpansionMode)
TRACE_WRITE_MODES = tuple(m.value for m in TraceWriteMode)
