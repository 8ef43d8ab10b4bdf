"""UpdateResolver decision (spec v2 section 10), pure: the database lookups live in memory.services."""

from __future__ import annotations

from dataclasses import dataclass

from elf_domain.vocabulary import NoteOp

# The resolver's three outcomes (a note result's op may also be DELETE or REJECTED, never from here).
ADD, UPDATE, NONE = NoteOp.ADD, NoteOp.UPDATE, NoteOp.NONE


@dataclass(frozen=True)
class Resolution:
    op: NoteOp  # ADD | UPDATE | NONE
    target_note_id: object | None  # the note updated in place, or the duplicate matched
    similarity_best: float | None
    key_match: bool
    matched_dup: bool


def resolve(
    *,
    key_match_id: object | None,
    key_match_unchanged: bool = False,
    exact_text_id: object | None,
    best_id: object | None,
    best_similarity: float | None,
    dup_threshold: float,
    update_threshold: float,
) -> Resolution:
    """Key match -> UPDATE in place, or NONE when the keyed note already holds what the payload says
    (``key_match_unchanged``: a replay, spec v2 section 19 F); an identical active text -> NONE (duplicate, even
    before it is indexed); otherwise the pooled-vector similarity: >= dup -> NONE, >= update -> UPDATE best match,
    else ADD."""
    if key_match_id is not None:
        if key_match_unchanged:
            return Resolution(NONE, key_match_id, 1.0, key_match=True, matched_dup=True)
        return Resolution(UPDATE, key_match_id, best_similarity, key_match=True, matched_dup=False)
    if exact_text_id is not None:
        return Resolution(NONE, exact_text_id, 1.0, key_match=False, matched_dup=True)
    if best_id is not None and best_similarity is not None:
        if best_similarity >= dup_threshold:
            return Resolution(NONE, best_id, best_similarity, key_match=False, matched_dup=True)
        if best_similarity >= update_threshold:
            return Resolution(UPDATE, best_id, best_similarity, key_match=False, matched_dup=False)
    return Resolution(ADD, None, best_similarity, key_match=False, matched_dup=False)
