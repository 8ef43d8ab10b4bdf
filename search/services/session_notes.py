"""POST /v2/searches/{search_id}/notes (spec v2 section 15): the full notes of chosen ids of a search session,
re-read through the one read rule, optionally with each note's document excerpt, recording hits by default."""

from __future__ import annotations

from collections.abc import Sequence

from docs_ext.services.excerpts import hydrate_pointer
from elf_config import ElfConfig
from elf_kernel.context import RequestContext
from memory.selectors import readable_notes
from memory.selectors.notes import fields_of, note_to_dict
from memory.services.hits import record_hits as record_note_hits

from . import sessions


def session_notes(*, cfg: ElfConfig, ctx: RequestContext, search_id, note_ids: Sequence, record_hits: bool,
                  include_source_excerpts: bool) -> dict:
    """The session's body with one result per wanted id, in order: the note (still live in the session and
    readable by ``ctx``), or an error code: NOT_IN_SESSION for an id the session never held, NOTE_UNAVAILABLE for
    one deleted, expired or no longer readable since. Touches the session (404 when it is gone or another's)."""
    session = sessions.get_session(ctx, search_id, touch=True)
    live = {i["note_id"] for i in sessions.live_items(ctx, session)}
    in_session = {i["note_id"] for i in session.items}
    wanted = [str(n) for n in note_ids]
    notes = {str(n.note_id): n for n in readable_notes(ctx).filter(note_id__in=[w for w in wanted if w in live])}
    structured = fields_of(n.note_id for n in notes.values())
    results = []
    for nid in wanted:
        if nid in notes:
            results.append({"note_id": nid, "note": note_to_dict(notes[nid], structured.get(notes[nid].note_id)),
                            "error": None})
        else:
            code = "NOT_IN_SESSION" if nid not in in_session else "NOTE_UNAVAILABLE"
            results.append({"note_id": nid, "note": None, "error": {"error_code": code}})
    if include_source_excerpts:
        for item in results:
            if item["note"] is not None:
                item["source_excerpt"] = hydrate_pointer(docs_enabled=cfg.docs_enabled, ctx=ctx,
                                                         pointer=notes[item["note_id"]].source_ref)
    if record_hits and notes:
        scores = {i["note_id"]: i["final_score"] for i in session.items}
        record_note_hits(session.query, [(notes[n].note_id, None, scores[n]) for n in wanted if n in notes])
    return {"search_id": str(session.search_id), "expires_at": session.expires_at.isoformat(), "results": results}
