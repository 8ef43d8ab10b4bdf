"""add_note's step for a note's structured fields (structured.summary/facts/concepts): they replace the ones in
memory_note_fields, in the note's transaction (reading them back is memory.selectors.notes.fields_of)."""

from __future__ import annotations

from ...models import FieldKind, MemoryNote, MemoryNoteField


def field_items(structured: dict | None) -> list[tuple[str, int, str]]:
    """(kind, index, text) rows for the stored kinds; entities and relations are kept elsewhere."""
    if not structured:
        return []
    rows: list[tuple[str, int, str]] = []
    if structured.get("summary"):
        rows.append((FieldKind.SUMMARY, 0, structured["summary"]))
    for kind, key in ((FieldKind.FACT, "facts"), (FieldKind.CONCEPT, "concepts")):
        for i, text in enumerate(structured.get(key) or []):
            rows.append((kind, i, text))
    return rows


def replace_fields(note: MemoryNote, structured: dict | None) -> int:
    """Replace the note's structured fields with those of ``structured``; returns how many were written."""
    rows = field_items(structured)
    MemoryNoteField.objects.filter(note=note).delete()
    MemoryNoteField.objects.bulk_create(
        [MemoryNoteField(note=note, field_kind=kind, item_index=i, text=text) for kind, i, text in rows]
    )
    return len(rows)

