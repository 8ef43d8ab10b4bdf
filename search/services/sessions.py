"""Search sessions (spec v2 section 15): POST /v2/searches stores a compact note index; the session is read,
grouped and hydrated later. Reads re-check each note in Postgres, so a note deleted or expired since the
search is not returned. Expired or foreign sessions do not exist for the caller (404)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from memory.models import NoteStatus

from ..models import SearchSession
from memory.selectors import not_expired, readable_notes
from memory.services.note_fields import fields_of

# Not in the spec: how long a session lives after its last touch.
SESSION_TTL = timedelta(minutes=30)


def index_entry(note, final_score: float, summary: str | None) -> dict:
    return {
        "note_id": str(note.note_id), "type": note.type, "key": note.key, "scope": note.scope,
        "importance": note.importance, "confidence": note.confidence, "updated_at": note.updated_at.isoformat(),
        "expires_at": note.expires_at.isoformat() if note.expires_at else None, "final_score": final_score,
        "summary": summary or note.text,
    }


def create_session(*, ctx: RequestContext, read_profile: str, query: str, trace_id, outcome_items) -> SearchSession:
    summaries = fields_of(i.note.note_id for i in outcome_items)
    items = [index_entry(i.note, i.ranked.final_score, (summaries.get(i.note.note_id) or {}).get("summary"))
             for i in outcome_items]
    return SearchSession.objects.create(
        tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, read_profile=read_profile,
        query=query, trace_id=trace_id, items=items, created_at=timezone.now(), expires_at=timezone.now() + SESSION_TTL,
    )


def get_session(ctx: RequestContext, search_id, *, touch: bool) -> SearchSession:
    now = timezone.now()
    session = SearchSession.objects.filter(
        search_id=search_id, tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id,
        expires_at__gt=now,
    ).first()
    if session is None:
        raise NotFound("Search session not found or expired.", ["$.search_id"])
    if touch:
        session.expires_at = now + SESSION_TTL
        SearchSession.objects.filter(search_id=session.search_id).update(expires_at=session.expires_at)
    return session


def live_items(ctx: RequestContext, session: SearchSession) -> list[dict]:
    """The session's items whose notes are still active, unexpired and readable by the caller."""
    ids = [i["note_id"] for i in session.items]
    alive = {str(n) for n in not_expired(readable_notes(ctx).filter(note_id__in=ids, status=NoteStatus.ACTIVE))
             .values_list("note_id", flat=True)}
    return [i for i in session.items if i["note_id"] in alive]


def timeline(items: list[dict], group_by: str) -> list[dict]:
    if group_by == "none":
        return [{"date": "all", "items": items}]
    groups: dict[str, list] = {}
    for item in sorted(items, key=lambda i: i["updated_at"], reverse=True):
        groups.setdefault(item["updated_at"][:10], []).append(item)
    return [{"date": day, "items": its} for day, its in groups.items()]
