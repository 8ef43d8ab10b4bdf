"""The event log's words and the bundle's numbers (agent-memory-acb-prd sections 6, 8 and 9)."""

from __future__ import annotations

CHANNELS = ("private", "public", "team", "agent")
ACTOR_TYPES = ("human", "agent", "tool")
KINDS = ("message", "tool_call", "tool_result", "decision", "task_update", "artifact")
SENSITIVITIES = ("none", "low", "high", "secret")
DECISION_SCOPES = ("project", "user", "global")
TASK_STATUSES = ("open", "doing", "done")
# Kinds whose text people or agents write: the English gate applies. Tool calls and results are data (below).
WRITTEN_KINDS = ("message", "decision", "task_update", "artifact")

# PRD 9.1: what each channel may load. "secret" loads nowhere (PRD 9.2).
ALLOWED_SENSITIVITIES = {
    "public": ("none", "low"),
    "private": ("none", "low", "high"),
    "team": ("none", "low", "high"),
    "agent": ("none", "low"),
}
# Which channels' events a bundle for a channel may quote: a public or agent bundle never quotes a private or team
# conversation (PRD 9.1 "excludes preferences, private decisions"); a private one sees everything of the tenant.
VISIBLE_CHANNELS = {
    "public": ("public",),
    "agent": ("agent", "public"),
    "team": ("team", "agent", "public"),
    "private": ("private", "team", "agent", "public"),
}

# PRD 8.2 gamma term: decisions > tasks > messages.
IMPORTANCE = {"decision": 1.0, "task_update": 0.7, "message": 0.5, "artifact": 0.4, "tool_result": 0.4,
              "tool_call": 0.2}

# PRD 8.1 caps at the default budget of 65,000 tokens; a smaller max_tokens scales every cap by the same factor.
DEFAULT_BUDGET = 65_000
MIN_BUDGET, MAX_BUDGET = 500, 65_000
SECTION_CAPS = {
    "identity": 1_200,
    "rules": 6_000,
    "task_state": 3_000,
    "decision_ledger": 4_000,
    "retrieved_evidence": 28_000,
    "recent_window": 8_000,
    "handoff_packet": 6_000,
    "reserve": 8_800,
}
# The order sections are filled: what is filled first keeps content that two sections share (each section has
# its own cap, so the order decides nothing else). The recent window is filled before retrieved evidence: a turn
# of the conversation stays in its place in the dialogue, and retrieval brings what the window does not hold.
FILL_ORDER = ("identity", "rules", "task_state", "decision_ledger", "handoff_packet", "recent_window",
              "retrieved_evidence")

ALPHA, BETA, GAMMA = 0.6, 0.3, 0.1  # PRD 8.2
RECENCY_TAU_HOURS = 24.0
CANDIDATE_POOL_MAX = 2000
SCORED_MAX = 200
EXCERPT_MAX_BYTES = 64 * 1024
CHUNK_MAX_TOKENS = 300
MAX_CONTENT_BYTES = 1024 * 1024
