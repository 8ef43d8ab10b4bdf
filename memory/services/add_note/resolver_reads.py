"""What the UpdateResolver reads for one incoming note (spec v2 section 9), inside the request's transaction
and under its group lock: the group is the active, unexpired notes of the same (tenant, project, agent,
scope, type).

A keyed note is resolved by its key alone: the group's note with that key (one query). A key-less note by
the first note of the group (by note_id) with the identical text and the note whose pooled vector (of the
configured embedding version) is nearest by cosine distance, in one statement.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.utils import timezone

from elf_config import ElfConfig
from elf_kernel.context import RequestContext

from ...domain import ttl, update_resolver
from ...indexing.chunks import vector_text
from ...models import MemoryNote, NoteStatus


def group_where(type_condition: str) -> str:
    """The group's condition on ``memory_notes n``: the active notes of the caller's tenant, project, agent and
    scope, unexpired at ``%(now)s``, whose type meets ``type_condition`` (one type here, a request's types in
    ``resolver_reads_batched``)."""
    return ("n.tenant_id = %(tenant)s AND n.project_id = %(project)s AND n.agent_id = %(agent)s "
            f"AND n.scope = %(scope)s AND {type_condition} AND n.status = %(active)s "
            "AND (n.expires_at IS NULL OR n.expires_at > %(now)s)")


_GROUP = group_where("n.type = %(type)s")
_KEYLESS = f"""
SELECT (SELECT n.note_id FROM memory_notes n WHERE {_GROUP} AND n.text = %(text)s ORDER BY n.note_id LIMIT 1),
       best.note_id, best.distance
  FROM (SELECT 1) AS one
  LEFT JOIN LATERAL (
       SELECT e.note_id, e.vec <=> %(vec)s::vector AS distance
         FROM note_embeddings e JOIN memory_notes n ON n.note_id = e.note_id
        WHERE {_GROUP} AND e.embedding_version = %(version)s
        ORDER BY distance
        LIMIT 1) AS best ON true
"""


def expiry(cfg: ElfConfig, note_type: str, ttl_days: int | None, now: datetime) -> datetime | None:
    """When a note written at ``now`` expires (the request's ttl_days, else its type's)."""
    return ttl.expires_at(now=now, note_type=note_type, request_ttl_days=ttl_days,
                          ttl_days_by_type=cfg.lifecycle.ttl_days)


def lookup(cfg: ElfConfig, ctx: RequestContext, scope: str, note, vector) -> update_resolver.Resolution:
    """The resolution of ``note`` (a NoteInput) against its group; ``vector`` is its text's (needed for a
    key-less note only)."""
    mcfg = cfg.memory
    keyed = exact = best_id = best_sim = None
    now = timezone.now()
    if note.key:
        keyed = MemoryNote.objects.filter(
            tenant_id=ctx.tenant_id, project_id=ctx.project_id, agent_id=ctx.agent_id, scope=scope, type=note.type,
            status=NoteStatus.ACTIVE, key=note.key,
        ).exclude(expires_at__lte=now).first()
    else:
        params = {"tenant": ctx.tenant_id, "project": ctx.project_id, "agent": ctx.agent_id, "scope": scope,
                  "type": note.type, "active": NoteStatus.ACTIVE, "now": now, "text": note.text,
                  "vec": vector_text(vector), "version": cfg.embedding_version}
        with connection.cursor() as cur:
            cur.execute(_KEYLESS, params)
            exact, best_id, distance = cur.fetchone()
        best_sim = None if best_id is None else 1.0 - float(distance)
    return update_resolver.resolve(
        key_match_id=keyed.note_id if keyed else None,
        key_match_unchanged=bool(keyed and _holds_payload(cfg, keyed, note)),
        exact_text_id=exact, best_id=best_id, best_similarity=best_sim,
        dup_threshold=mcfg.dup_sim_threshold, update_threshold=mcfg.update_sim_threshold,
    )


def _holds_payload(cfg: ElfConfig, target: MemoryNote, note) -> bool:
    """Whether the keyed note already says what ``note`` says: the same text, importance, confidence,
    source_ref, context and observed_at, and the expiry the payload's ttl_days would have given it when it was last
    written."""
    return (
        target.text == note.text
        and target.importance == note.importance
        and target.confidence == note.confidence
        and (target.source_ref or {}) == (note.source_ref or {})
        and target.context == note.context
        and target.observed_at == note.observed_at
        and target.expires_at == expiry(cfg, note.type, note.ttl_days, target.updated_at)
    )
