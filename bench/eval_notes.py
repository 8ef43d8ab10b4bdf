"""Which notes elf-eval writes for a conversation's items. Pure functions, no I/O.

One note per item, keyed by the item id: a keyed note is resolved by its key only, so near-duplicate turns
("Thanks!") are never merged by the similarity resolver. An item longer than ``memory.max_note_chars`` is
split (bench.eval_split) into parts keyed ``<item_id>#<n>`` (n from 1); every part carries the item id in
its source_ref, and a search hit on any part counts as a hit on the item.
"""

from __future__ import annotations

from dataclasses import dataclass

from .eval_dataset import Conversation
from .eval_split import split_text

SOURCE_REF_SCHEMA = "eval_item/v1"
NOTE_TYPE = "fact"
IMPORTANCE = 0.5
CONFIDENCE = 1.0


@dataclass(frozen=True)
class PlannedNote:
    item_id: str
    key: str
    part: int  # 1-based
    parts: int
    text: str

    def body(self) -> dict:
        """The note as sent in POST /v2/notes/ingest."""
        return {
            "type": NOTE_TYPE, "key": self.key, "text": self.text, "importance": IMPORTANCE,
            "confidence": CONFIDENCE,
            "source_ref": {"schema": SOURCE_REF_SCHEMA, "item_id": self.item_id, "part": self.part,
                           "parts": self.parts},
        }


def plan_notes(conv: Conversation, max_note_chars: int) -> list[PlannedNote]:
    """The notes for ``conv``'s items, in item order (an item's parts in text order)."""
    planned = []
    for item in conv.items:
        label = f"{item.speaker}: " if item.speaker else ""
        parts = split_text(item.text, max_note_chars, label=label)
        for n, text in enumerate(parts, start=1):
            key = item.item_id if len(parts) == 1 else f"{item.item_id}#{n}"
            planned.append(PlannedNote(item_id=item.item_id, key=key, part=n, parts=len(parts), text=text))
    return planned
