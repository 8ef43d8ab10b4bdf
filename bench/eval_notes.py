"""Which notes elf-eval writes for a conversation's items. Pure functions, no I/O.

One note per item, keyed by the item id: a keyed note is resolved by its key only, so near-duplicate turns
("Thanks!") are never merged by the similarity resolver. An item longer than ``memory.max_note_chars`` is
split (bench.eval_split) into parts keyed ``<item_id>#<n>`` (n from 1); every part carries the item id in
its source_ref, and a search hit on any part counts as a hit on the item.

With the note context ``neighbours`` (the default), each note carries as its ``context`` (embedded with it, not
part of its text: memory.domain.note_context) the item before it and the item after it in its session, each
cut at a word to half of MAX_CONTEXT_CHARS; ``none`` writes no context. With the note time ``session`` (the
default), each note carries its item's session time as ``observed_at`` (read by searches that name a date:
elf_domain.time_phrases); ``none`` writes none. ``NoteShape`` holds both choices.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from elf_domain.limits import MAX_CONTEXT_CHARS

from .eval_dataset import Conversation, Item
from .eval_split import nfkc_len, split_text

NEIGHBOURS, SESSION, NONE = "neighbours", "session", "none"
NOTE_CONTEXTS = (NEIGHBOURS, NONE)
NOTE_TIMES = (SESSION, NONE)


@dataclass(frozen=True)
class NoteShape:
    """What each note carries beside its text: its ``context`` (NOTE_CONTEXTS) and its ``time`` (NOTE_TIMES)."""

    context: str = NEIGHBOURS
    time: str = SESSION

    def label(self) -> str:
        return f"context {self.context}, time {self.time}"

    def changed(self, change: str) -> NoteShape:
        """This shape with one choice changed by ``change``, ``context:<value>`` or ``time:<value>``
        (ValueError naming what is allowed otherwise)."""
        name, _, value = change.partition(":")
        allowed = {"context": NOTE_CONTEXTS, "time": NOTE_TIMES}.get(name)
        if allowed is None or value not in allowed:
            raise ValueError(f"{change}: expected context:{'|'.join(NOTE_CONTEXTS)} or time:{'|'.join(NOTE_TIMES)}")
        return replace(self, **{name: value})
NEIGHBOUR_CHARS = MAX_CONTEXT_CHARS // 2 - 1  # two neighbours and the newline between them fit

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
    context: str = ""
    observed_at: str | None = None

    def body(self) -> dict:
        """The note as sent in POST /v2/notes/ingest."""
        body = {
            "type": NOTE_TYPE, "key": self.key, "text": self.text, "importance": IMPORTANCE,
            "confidence": CONFIDENCE,
            "source_ref": {"schema": SOURCE_REF_SCHEMA, "item_id": self.item_id, "part": self.part,
                           "parts": self.parts},
        }
        if self.context:
            body["context"] = self.context
        if self.observed_at:
            body["observed_at"] = self.observed_at
        return body


def _cut(text: str, limit: int) -> str:
    """``text``, or its longest prefix ending at a word that fits ``limit`` (NFKC characters)."""
    if nfkc_len(text) <= limit:
        return text
    words, out = text.split(), ""
    for word in words:
        longer = f"{out} {word}" if out else word
        if nfkc_len(longer) > limit:
            break
        out = longer
    return out


def neighbour_context(items: tuple[Item, ...], index: int) -> str:
    """The items before and after ``items[index]`` in its session, one per line, each cut to NEIGHBOUR_CHARS."""
    session = items[index].session
    near = [items[j].text for j in (index - 1, index + 1) if 0 <= j < len(items) and items[j].session == session]
    return "\n".join(_cut(t, NEIGHBOUR_CHARS) for t in near)


def plan_notes(conv: Conversation, max_note_chars: int, shape: NoteShape = NoteShape()) -> list[PlannedNote]:
    """The notes for ``conv``'s items, in item order (an item's parts in text order)."""
    planned = []
    for index, item in enumerate(conv.items):
        label = f"{item.speaker}: " if item.speaker else ""
        parts = split_text(item.text, max_note_chars, label=label)
        context = neighbour_context(conv.items, index) if shape.context == NEIGHBOURS else ""
        observed_at = item.observed_at if shape.time == SESSION else None
        for n, text in enumerate(parts, start=1):
            key = item.item_id if len(parts) == 1 else f"{item.item_id}#{n}"
            planned.append(PlannedNote(item_id=item.item_id, key=key, part=n, parts=len(parts), text=text,
                                       context=context, observed_at=observed_at))
    return planned
