"""The identifier rule shared by the X-ELF-* context headers and the ids an API key binds (spec v2 section 15)."""

from __future__ import annotations

from elf_domain.english_gate import passes_identifier_gate
from elf_domain.spaces import ORG_PROJECT_ID  # noqa: F401  reserved: org_shared notes live there

MAX_IDENTIFIER_CHARS = 128


def identifier_problem(value: str | None) -> str | None:
    """Why a tenant/project/agent id (or read profile header) is unacceptable, or None when it is fine."""
    if value is None:
        return "is required"
    if not value.strip():
        return "must be non-empty"
    if len(value) > MAX_IDENTIFIER_CHARS:
        return f"must be at most {MAX_IDENTIFIER_CHARS} characters"
    if not passes_identifier_gate(value):
        return "must be an English identifier (Latin script, no control or zero-width characters)"
    return None
