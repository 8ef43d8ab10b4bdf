"""v1's English-only boundary and its REJECT_CJK (elf-memory-service-v1.md sections 0 I4, 3 and 9), on the v1 routes
only: v2 stays as it is.

- **The boundary**: any CJK (elf_domain.cjk) in any string of a v1 request, body or query string, is refused
  before anything else reads it: 422 ``NON_ENGLISH_INPUT`` with v1's message ("CJK detected; ...") and the
  JSONPath of every such string. That includes the CJK punctuation the v2 gate admits (the ideographic full stop
  is Common script). Other non-English input then meets the v2 English gate, as on v2: 422
  ``NON_ENGLISH_INPUT`` with v2's message ("Non-English input detected; ..."); v1 names no other language, the
  service admits English only.
- **The WriteGate** (v1 section 9): a note the gate refused as non-English (v2's ``REJECT_NON_ENGLISH``) is
  ``REJECT_CJK`` in a v1 result when the refused field holds CJK. In practice that is add_event, whose notes are
  the extractor's words: the boundary has already refused CJK in everything the caller sent. A note refused
  for another language keeps ``REJECT_NON_ENGLISH``: v1's reason codes have no name for it, and v1 would have
  stored it (v1 rejects only CJK), which this service does not.
"""

from __future__ import annotations

import re
from typing import Any

from elf_domain.cjk import contains_cjk
from elf_domain.english_gate import walk_strings
from elf_kernel.errors import ElfError, NonEnglishInput
from memory.domain.write_gate import REJECT_NON_ENGLISH

REJECT_CJK = "REJECT_CJK"
CJK_MESSAGE = "CJK detected; upstream must canonicalize to English before calling ELF."
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


class CjkInput(NonEnglishInput):
    """v1's 422 NON_ENGLISH_INPUT for CJK, with v1's message."""

    def __init__(self, fields: list[str]):
        ElfError.__init__(self, CJK_MESSAGE, fields)


def reject_cjk(data: Any, prefix: str = "$") -> None:
    """Raise CjkInput naming every string of ``data`` (a parsed body, or a query string's dict) that holds CJK."""
    found = [path for path, value in walk_strings(data, prefix) if contains_cjk(value)]
    if found:
        raise CjkInput(found)


def _at(document: Any, path: str) -> Any:
    """The value at a simple JSONPath (``$.extracted.notes[0].text``) of ``document``, None when absent."""
    if not path.startswith("$"):
        return None
    value, rest = document, path[1:]
    while rest:
        step = _STEP.match(rest)
        if step is None:
            return None
        name, index = step.groups()
        try:
            value = value[name] if name is not None else value[int(index)]
        except (KeyError, IndexError, TypeError):
            return None
        rest = rest[step.end():]
    return value


def v1_reason_code(reason_code: str | None, field_path: str | None, document: Any) -> str | None:
    """A result's reason code as v1 names it: REJECT_NON_ENGLISH for a field (``field_path`` in ``document``,
    what the request or the extractor gave) holding CJK is REJECT_CJK; every other code is unchanged."""
    if reason_code != REJECT_NON_ENGLISH or not field_path:
        return reason_code
    value = _at(document, field_path)
    return REJECT_CJK if isinstance(value, str) and contains_cjk(value) else reason_code


def v1_result(result: dict, document: Any) -> dict:
    """``result`` (a note result with ``reason_code`` and ``field_path``) with v1's reason code."""
    return {**result, "reason_code": v1_reason_code(result.get("reason_code"), result.get("field_path"), document)}
