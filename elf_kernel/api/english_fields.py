"""Which request fields the English gate checks, and how (spec v2 section 3): prose gets language
identification, identifiers (keys, types, names) the script gate only."""

from __future__ import annotations

from collections.abc import Iterator

from elf_domain.english_gate import FieldKind, collect_non_english, source_ref_fields, walk_strings
from elf_kernel.errors import NonEnglishInput

NATURAL, IDENTIFIER = FieldKind.NATURAL, FieldKind.IDENTIFIER


def structured_fields(structured: dict | None, path: str) -> Iterator[tuple[str, str, FieldKind]]:
    if not structured:
        return
    if structured.get("summary"):
        yield f"{path}.summary", structured["summary"], NATURAL
    for name in ("facts", "concepts"):
        for i, text in enumerate(structured.get(name) or []):
            yield f"{path}.{name}[{i}]", text, NATURAL
    for name in ("entities", "relations"):
        for p, value in walk_strings(structured.get(name) or [], f"{path}.{name}"):
            kind = NATURAL if p.endswith(".value") else IDENTIFIER
            yield p, value, kind


def note_fields(note: dict, path: str) -> Iterator[tuple[str, str, FieldKind]]:
    yield f"{path}.type", note["type"], IDENTIFIER
    if note.get("key"):
        yield f"{path}.key", note["key"], IDENTIFIER
    yield f"{path}.text", note["text"], NATURAL
    if note.get("context"):
        yield f"{path}.context", note["context"], NATURAL
    yield from source_ref_fields(note.get("source_ref") or {}, f"{path}.source_ref")
    yield from structured_fields(note.get("structured"), f"{path}.structured")


def require_english(fields) -> None:
    """Raise 422 NON_ENGLISH_INPUT naming every failing field."""
    failing = collect_non_english(fields)
    if failing:
        raise NonEnglishInput(failing)
