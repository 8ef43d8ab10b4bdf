"""The offline extractor (``provider_id = "local"``): deterministic English rules, no LLM.

An LLM endpoint (``provider_id = "http"``, spec section 18 prompt) gives clearly better extraction: it
understands paraphrase, context spread over several messages, implicit preferences and negation. These rules
only recognise explicit memory statements, one clause at a time, and prefer silence to guessing.

Which sentences are read: messages with role "user"; "assistant" messages only for decisions ("we decided
to ..."). Each sentence (bullets and lines count as sentences) is cut into clauses at ";" and at "and"/","
before a new "I"/"we"/"my"/"please" subject. A sentence is skipped whole when it is a question, a
hypothetical ("if I were", "suppose", "imagine"), uncertain or negated ("maybe", "might", "not sure",
"I don't know if", "thinking about"), or contains a secret or PII (``contains_secret``).

Rules (first match per clause wins; ``rule`` names appear in each note's ``reason``):

- remember_that: "remember / note / don't forget / keep in mind that X", "FYI, X" -> fact "Fact: X."
- my_name_is / i_work_at / i_live_in / i_am_a: "my name is X", "I work at/for X", "I live in / I'm based in
  X", "I am a / I'm a / I work as a X" -> profile, keys ``user_name`` / ``employer`` / ``home_city`` /
  ``role`` ("Profile: the user lives in Berlin."). A home with digits (a street address) is skipped.
- i_prefer / my_favourite / please_always: "I prefer / like / love / enjoy X", "I'd rather X", "my
  favorite/preferred X is Y", "please always X", "I want you to always X" -> preference
  ("Preference: the user prefers X."). Key ``preferred_language`` when X starts with a programming language
  (or the favourite is a language), ``preferred_editor_theme`` for dark/light mode, else
  ``preference_<slug>`` of the first four content words (key <= 48 characters).
- never / must_not / avoid: "never X", "do not X", "don't ever X", "you/we must never X", "you/we/the X
  must not X", "avoid X" -> constraint ("Constraint: never X."), key null.
- we_decided: "we decided / agreed / chose / settled on X", "let's go with / use X", "we will use X", "we're
  going with X" -> decision ("Decision: use X."), key null.
  Not when the lead-in doubts it ("I don't think we'll use Kafka").
- i_will / dated_plan: "I will / I'll / I'm going to / I plan to / I intend to X" (not "I'll check",
  "I'll try", ...), or a first-person sentence with "tomorrow" / "next week|month|..." -> plan, key null.
- i_lead / x_leads: "I (now) lead/head/manage/own/maintain/report to X", "I'm the lead/manager/owner/... of
  X" -> profile ("Profile: the user leads the data team."); "Alice (now) leads/... X", "Alice is the
  lead/... of X" -> fact ("Fact: Alice now leads the platform team."), key null. Only when the clause
  gives a safe triple (see below): the triple is the memory.

Broader shapes (issue 32; ``local_extractor_broad`` and ``local_extractor_people``), tried when no rule above
matches a clause, also after a lead-in is stripped ("Actually,", "Heads up -", "Meeting notes:"): obligations
("The API has to respond in under 200 ms", "Don't touch X") -> constraint; past decision verbs with any subject
("The team picked gRPC", "I went with Hetzner", "we're staying on AWS") -> decision; first-person statements
with a time phrase or "my goal is to" -> plan; habits and standing requests to the assistant ("I usually use
yarn", "Use metric units with me") -> preference; "Call me Jo", "I joined Atlassian as a PM", "I moved to
Hamburg", traits and family -> profile; a named person or "my manager"/"our CTO" with a present-tense verb, and
corrections ("X, not Y") -> fact. A sentence naming a credential next to a value-like token is skipped whole.
Measured on tests/data/extractor_set_v2.json, split before any of these were written (docs/benchmarks.md).

Note text rewrites the speaker's first person as "the user" ("you" as "the assistant"), is one sentence and
is at most ``min(240, max_note_chars)`` characters; longer notes are dropped, never truncated. The evidence
is the whole matched sentence, an exact substring of ``messages[message_index]["content"]``. Notes with the
same type, key and text are emitted once; at most ``max_notes`` notes, the first ones in message order.
``ttl_days`` and ``scope_suggestion`` are null. ``structured`` is ``{"relations": [...]}`` when the clause
states a subject-predicate-object triple explicitly (name, works at, lives in, role, leads/manages/owns/
maintains/reports to, the project uses a named technology; ``local_extractor_relations``), else null.

Defaults per type (importance, confidence): an explicit rule match is reliable about *what* was said, less
about whether it is durable. profile (0.7, 0.8) and constraint (0.8, 0.75) are stated rules about the user
and the work; preference (0.6, 0.75); decision (0.7, 0.7); fact (0.5, 0.7); plan (0.4, 0.6), being
time-bound and the most often abandoned.

Measured on tests/data/local_extractor_labelled.json (see tests/memory/test_local_extractor_labelled.py); the
relations also on tests/data/local_extractor_relations.json (tests/memory/test_local_extractor_relations.py).
"""

from __future__ import annotations

from typing import Any

from elf_domain.secrets import contains_secret

from .local_extractor_broad import match_statements
from .local_extractor_text import clauses, names_credential, sentence_spans, skippable

MAX_CANONICAL_CHARS = 240
DEFAULTS = {  # type -> (importance, confidence); see the module docstring
    "profile": (0.7, 0.8),
    "constraint": (0.8, 0.75),
    "preference": (0.6, 0.75),
    "decision": (0.7, 0.7),
    "fact": (0.5, 0.7),
    "plan": (0.4, 0.6),
}


class LocalExtractorProvider:
    """``ExtractorProvider`` (``provider_id = "local"``) over the rule set above."""

    provider_id = "local"

    def __init__(self, model: str, *, max_notes: int, max_note_chars: int):
        self.model = model
        self.max_notes = max_notes
        self.max_note_chars = max_note_chars

    def extract(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """At most ``max_notes`` notes, in message and sentence order (see the module docstring)."""
        notes: list[dict[str, Any]] = []
        seen: set[tuple[str, str | None, str]] = set()
        for index, message in enumerate(messages):
            content, role = message.get("content"), message.get("role")
            if role not in ("user", "assistant") or not isinstance(content, str):
                continue
            for start, end in sentence_spans(content):
                for note in self._notes_for(content[start:end], index, role):
                    identity = (note["type"], note["key"], note["text"].casefold())
                    if identity in seen:
                        continue
                    seen.add(identity)
                    notes.append(note)
                    if len(notes) >= self.max_notes:
                        return {"notes": notes}
        return {"notes": notes}

    def _notes_for(self, sentence: str, message_index: int, role: str) -> list[dict[str, Any]]:
        if skippable(sentence) or contains_secret(sentence) or names_credential(sentence):
            return []
        limit = min(MAX_CANONICAL_CHARS, self.max_note_chars)
        notes = []
        statements = [s for clause in clauses(sentence) for s in match_statements(clause, role=role)]
        for statement in statements:
            if len(statement.text) > limit:
                continue
            importance, confidence = DEFAULTS[statement.note_type]
            notes.append(
                {
                    "type": statement.note_type,
                    "key": statement.key,
                    "text": statement.text,
                    "importance": importance,
                    "confidence": confidence,
                    "ttl_days": None,
                    # Only the triples the clause states (local_extractor_relations); no summary or entities.
                    "structured": (
                        {"relations": [r.as_dict() for r in statement.relations]} if statement.relations else None
                    ),
                    "scope_suggestion": None,
                    "evidence": [{"message_index": message_index, "quote": sentence}],
                    "reason": f"local rule {statement.rule}: explicit {statement.note_type} statement",
                }
            )
        return notes
