"""WriteGate (spec v2 section 9), pure: the checks every note passes before the update resolver sees it.

Checks run in the reference order (supplement section 4): empty, non-English, too long, invalid type, scope
denied, secret. The first failing check decides the verdict, so a note that is both too long and holds a
secret is REJECT_TOO_LONG.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from elf_domain.english_gate import check_identifier, check_natural_language, normalize
from elf_domain.secrets import contains_secret
from elf_domain.spaces import scope_writable
from elf_domain.vocabulary import MEMORY_TYPES

from .note_context import MAX_CONTEXT_CHARS

__all__ = [
    "MEMORY_TYPES",
    "REJECT_EMPTY",
    "REJECT_INVALID_TYPE",
    "REJECT_NON_ENGLISH",
    "REJECT_SCOPE_DENIED",
    "REJECT_SECRET",
    "REJECT_TOO_LONG",
    "GateVerdict",
    "evaluate_note",
]

REJECT_EMPTY = "REJECT_EMPTY"
REJECT_NON_ENGLISH = "REJECT_NON_ENGLISH"
REJECT_TOO_LONG = "REJECT_TOO_LONG"
REJECT_INVALID_TYPE = "REJECT_INVALID_TYPE"
REJECT_SCOPE_DENIED = "REJECT_SCOPE_DENIED"
REJECT_SECRET = "REJECT_SECRET"


@dataclass(frozen=True)
class GateVerdict:
    """A rejection: the reason code and the note field that caused it (``text``, ``key``, ``type``,
    ``scope``, ``context``), for the caller to turn into a JSONPath such as ``$.notes[0].text``."""

    reason_code: str
    field: str


def evaluate_note(
    *,
    text: str,
    note_type: str,
    scope: str,
    max_note_chars: int,
    allowed_types: Collection[str],
    allowed_scopes: Collection[str],
    write_allowed: Mapping[str, bool],
    key: str | None = None,
    context: str = "",
) -> GateVerdict | None:
    """The WriteGate verdict for one note, None when it passes.

    ``text`` is the note text as received (length, language and secrets are judged on its NFKC form),
    ``allowed_types`` normally MEMORY_TYPES, ``allowed_scopes`` and ``write_allowed`` come from
    ``scopes.allowed`` / ``scopes.write_allowed`` and ``max_note_chars`` from ``memory.max_note_chars``.
    A scope missing from ``write_allowed`` is not writable. ``key``, when given, must pass the identifier
    gate and hold no secret. ``context`` (memory.domain.note_context), when not empty, must be English, at most
    ``MAX_CONTEXT_CHARS`` and hold no secret.
    """
    if not text.strip():
        return GateVerdict(REJECT_EMPTY, "text")
    if check_natural_language(text) is not None:
        return GateVerdict(REJECT_NON_ENGLISH, "text")
    if key is not None and check_identifier(key) is not None:
        return GateVerdict(REJECT_NON_ENGLISH, "key")
    normalized = normalize(text)
    if len(normalized) > max_note_chars:
        return GateVerdict(REJECT_TOO_LONG, "text")
    if note_type not in allowed_types:
        return GateVerdict(REJECT_INVALID_TYPE, "type")
    if not scope_writable(scope, allowed_scopes, write_allowed):
        return GateVerdict(REJECT_SCOPE_DENIED, "scope")
    if contains_secret(normalized):
        return GateVerdict(REJECT_SECRET, "text")
    if key is not None and contains_secret(normalize(key)):
        return GateVerdict(REJECT_SECRET, "key")
    return _context_verdict(context) if context else None


def _context_verdict(context: str) -> GateVerdict | None:
    if check_natural_language(context) is not None:
        return GateVerdict(REJECT_NON_ENGLISH, "context")
    normalized = normalize(context)
    if len(normalized) > MAX_CONTEXT_CHARS:
        return GateVerdict(REJECT_TOO_LONG, "context")
    if contains_secret(normalized):
        return GateVerdict(REJECT_SECRET, "context")
    return None
