"""Structured fields of a note (structured.summary/facts/concepts) in memory_note_fields."""

from __future__ import annotations

from ..models import FieldKind, MemoryNote, MemoryNoteField


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


def fields_of(note_ids) -> dict:
    """{note_id: {"summary": str|None, "facts": [...], "concepts": [...]}} for the given notes."""
    out: dict = {}
    for f in MemoryNoteField.objects.filter(note_id__in=list(note_ids)).order_by("field_kind", "item_index"):
        entry = out.setdefault(f.note_id, {"summary": None, "facts": [], "concepts": []})
        if f.field_kind == FieldKind.SUMMARY:
            entry["summary"] = f.text
        else:
            entry["facts" if f.field_kind == FieldKind.FACT else "concepts"].append(f.text)
    return out
