"""The add_event extraction prompt (spec section 18), kept apart so ingestion profiles can replace parts.

An ingestion profile (supplement section 6) may override ``prompt_schema``, ``prompt_system_template`` and
``prompt_user_template``; build an ``ExtractorPrompt`` from those with ``dataclasses.replace`` on
``BUILTIN_EXTRACTOR_PROMPT``. Templates may use the placeholders ``<SCHEMA_JSON>``, ``<MAX_NOTES>``,
``<MAX_NOTE_CHARS>`` and ``<MESSAGES_JSON>``; they are substituted in one pass, so placeholder-like text
inside a message is never expanded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

SYSTEM_TEMPLATE = """You are a memory extraction engine for an agent memory system.
Output must be valid JSON only and must match the provided schema exactly.
Extract at most MAX_NOTES high-signal, cross-session reusable memory notes from the given messages.
Each note must be one English sentence and must not contain any non-English text.
Preserve numbers, dates, percentages, currency amounts, tickers, URLs, and code snippets exactly.
Never store secrets or PII: API keys, tokens, private keys, seed phrases, passwords, bank IDs, personal addresses.
For every note, provide 1 to 2 evidence quotes copied verbatim from the input messages and include the message_index.
If you cannot provide verbatim evidence, omit the note.
If content is ephemeral or not useful long-term, return an empty notes array."""

USER_TEMPLATE = """Return JSON matching this exact schema:
<SCHEMA_JSON>
Constraints:
- MAX_NOTES = <MAX_NOTES>
- MAX_NOTE_CHARS = <MAX_NOTE_CHARS>
Here are the messages as JSON:
<MESSAGES_JSON>"""

# Sent back as a user turn when a reply was not valid notes JSON, before the next attempt.
RETRY_TEMPLATE = (
    "Your previous reply was rejected: <REASON>. Reply again with only a JSON object that matches the schema "
    'exactly, with a top-level "notes" array, and nothing else.'
)

_ENTITY_TEMPLATE = {"canonical": "string|null", "kind": "string|null", "aliases": "string[]|null"}

# Section 18's schema as the model sees it: a filled-in example whose string values name the types.
PROMPT_SCHEMA: dict[str, Any] = {
    "notes": [
        {
            "type": "preference|constraint|decision|profile|fact|plan",
            "key": "string|null",
            "text": "English-only sentence <= MAX_NOTE_CHARS",
            "importance": 0.0,
            "confidence": 0.0,
            "ttl_days": "number|null",
            "structured": {
                "summary": "string|null",
                "facts": "string[]|null",
                "concepts": "string[]|null",
                "entities": [dict(_ENTITY_TEMPLATE)],
                "relations": [
                    {
                        "subject": dict(_ENTITY_TEMPLATE),
                        "predicate": "string",
                        "object": {"entity": dict(_ENTITY_TEMPLATE), "value": "string|null"},
                        "valid_from": "ISO8601 datetime|null",
                        "valid_to": "ISO8601 datetime|null",
                    }
                ],
            },
            "scope_suggestion": "agent_private|project_shared|org_shared|null",
            "evidence": [{"message_index": "number", "quote": "string"}],
            "reason": "string",
        }
    ]
}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    # Every key required and no extras: what OpenAI's strict structured outputs demand; nullable keys carry null.
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


_NULLABLE_STRING = {"type": ["string", "null"]}
_NULLABLE_STRINGS = _nullable({"type": "array", "items": {"type": "string"}})
_ENTITY = _object({"canonical": _NULLABLE_STRING, "kind": _NULLABLE_STRING, "aliases": _NULLABLE_STRINGS})
_RELATION_OBJECT = _object({"entity": _nullable(_ENTITY), "value": _NULLABLE_STRING})
NOTE_TYPES = ("preference", "constraint", "decision", "profile", "fact", "plan")
SCOPE_SUGGESTIONS = ("agent_private", "project_shared", "org_shared")

# The same schema as JSON Schema, for response_format. Count limits (MAX_NOTES, 1..2 quotes) are stated in
# the prompt rather than as minItems/maxItems, which several OpenAI-compatible servers reject; the server
# enforces them after extraction anyway.
RESPONSE_JSON_SCHEMA: dict[str, Any] = _object(
    {
        "notes": {
            "type": "array",
            "items": _object(
                {
                    "type": {"type": "string", "enum": list(NOTE_TYPES)},
                    "key": _NULLABLE_STRING,
                    "text": {"type": "string"},
                    "importance": {"type": "number"},
                    "confidence": {"type": "number"},
                    "ttl_days": {"type": ["number", "null"]},
                    "structured": _nullable(
                        _object(
                            {
                                "summary": _NULLABLE_STRING,
                                "facts": _NULLABLE_STRINGS,
                                "concepts": _NULLABLE_STRINGS,
                                "entities": _nullable({"type": "array", "items": _ENTITY}),
                                "relations": _nullable(
                                    {
                                        "type": "array",
                                        "items": _object(
                                            {
                                                "subject": _ENTITY,
                                                "predicate": {"type": "string"},
                                                "object": _RELATION_OBJECT,
                                                "valid_from": _NULLABLE_STRING,
                                                "valid_to": _NULLABLE_STRING,
                                            }
                                        ),
                                    }
                                ),
                            }
                        )
                    ),
                    "scope_suggestion": {
                        "type": ["string", "null"],
                        "enum": [*SCOPE_SUGGESTIONS, None],
                    },
                    "evidence": {
                        "type": "array",
                        "items": _object({"message_index": {"type": "integer"}, "quote": {"type": "string"}}),
                    },
                    "reason": {"type": "string"},
                }
            ),
        }
    }
)


@dataclass(frozen=True)
class ExtractorPrompt:
    """What the extractor sends. ``response_schema`` None means never send ``response_format``."""

    system_template: str
    user_template: str
    prompt_schema: dict[str, Any]
    response_schema: dict[str, Any] | None


BUILTIN_EXTRACTOR_PROMPT = ExtractorPrompt(
    system_template=SYSTEM_TEMPLATE,
    user_template=USER_TEMPLATE,
    prompt_schema=PROMPT_SCHEMA,
    response_schema=RESPONSE_JSON_SCHEMA,
)

_PLACEHOLDER = re.compile(r"<(SCHEMA_JSON|MAX_NOTES|MAX_NOTE_CHARS|MESSAGES_JSON)>")
_MESSAGE_KEYS = ("role", "content", "ts", "msg_id")


def render_extractor_messages(
    prompt: ExtractorPrompt, messages: list[dict[str, Any]], *, max_notes: int, max_note_chars: int
) -> list[dict[str, str]]:
    """The chat ``[system, user]`` pair for ``messages``.

    Each message is shown to the model with its ``message_index`` (the value evidence must cite) and only
    ``role``, ``content``, ``ts`` and ``msg_id``; write_policy has already been applied by the caller.
    """
    shown = [
        {"message_index": i, **{k: m[k] for k in _MESSAGE_KEYS if m.get(k) is not None}} for i, m in enumerate(messages)
    ]
    values = {
        "SCHEMA_JSON": json.dumps(prompt.prompt_schema, indent=2, ensure_ascii=False),
        "MAX_NOTES": str(max_notes),
        "MAX_NOTE_CHARS": str(max_note_chars),
        "MESSAGES_JSON": json.dumps(shown, indent=2, ensure_ascii=False),
    }

    def fill(template: str) -> str:
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)

    return [
        {"role": "system", "content": fill(prompt.system_template)},
        {"role": "user", "content": fill(prompt.user_template)},
    ]


def retry_message(reason: str) -> dict[str, str]:
    """The corrective user turn appended after a reply that was not valid notes JSON."""
    return {"role": "user", "content": RETRY_TEMPLATE.replace("<REASON>", reason)}
