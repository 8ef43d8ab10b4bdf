"""Core memory's words (core-memory-markdown section 4): scopes in precedence order, kinds, sources, and the
section a kind is filed under when the service writes a line."""

from __future__ import annotations

from enum import StrEnum


class MemoryScope(StrEnum):
    POLICY = "policy"
    PROFILE = "profile"
    SESSION = "session"


# Policy > Profile > Session: a lower rank wins.
SCOPE_RANK = {MemoryScope.POLICY: 0, MemoryScope.PROFILE: 1, MemoryScope.SESSION: 2}
TITLES = {MemoryScope.POLICY: "POLICY", MemoryScope.PROFILE: "PROFILE", MemoryScope.SESSION: "SESSION"}
FILE_NAMES = {MemoryScope.POLICY: "POLICY.md", MemoryScope.PROFILE: "PROFILE.md", MemoryScope.SESSION: "SESSION.md"}


class Kind(StrEnum):
    PREFERENCE = "preference"
    CONSTRAINT = "constraint"
    FACT = "fact"
    INSTRUCTION = "instruction"


class UtteranceOp(StrEnum):
    """What an utterance did (POST /v2/core-memory/utterances): wrote an entry, staged one as pending (a guess
    under core_memory.inferred_min_confidence), deleted one, or nothing (no memory trigger)."""

    UPSERT = "upsert"
    PENDING = "pending"
    DELETE = "delete"
    NONE = "none"


class Source(StrEnum):
    USER_EXPLICIT = "user_explicit"
    USER_INFERRED = "user_inferred"
    SYSTEM = "system"
    ADMIN = "admin"


# A line without a ``kind:`` field takes its section's kind. The spec's examples file session context under
# "Context" and policy under "Guardrails"; the four others are where the service files a kind it writes.
SECTION_KINDS = {
    "Preferences": Kind.PREFERENCE,
    "Constraints": Kind.CONSTRAINT,
    "Facts": Kind.FACT,
    "Instructions": Kind.INSTRUCTION,
    "Context": Kind.FACT,
    "Guardrails": Kind.CONSTRAINT,
}
# Where a written line goes when its document has no section of its kind yet.
HOME_SECTIONS = {
    Kind.PREFERENCE: "Preferences",
    Kind.CONSTRAINT: "Constraints",
    Kind.FACT: "Facts",
    Kind.INSTRUCTION: "Instructions",
}
# A document prefers these sections for a kind before the home section (the spec's own layout).
PREFERRED_SECTIONS = {
    MemoryScope.SESSION: {Kind.FACT: "Context"},
    MemoryScope.POLICY: {Kind.CONSTRAINT: "Guardrails"},
}

DEFAULT_PRIORITY = 50
MIN_PRIORITY, MAX_PRIORITY = 0, 1000
MAX_KEY_CHARS = 128
MAX_VALUE_CHARS = 2000
MAX_DOCUMENT_BYTES = 64 * 1024
MAX_ENTRIES = 1000
