"""Which facts a caller may see, under the notes' one read rule (memory.selectors): a fact is visible when at
least one of its evidence notes is active, unexpired and readable by the caller (grants included), and its
evidence lists hold only such notes. Temporal filters follow supplement section 2."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from elf_kernel.context import RequestContext
from memory.models import NoteStatus
from memory.selectors import not_expired, readable_notes

from ..domain.rules import EvidenceReach, FactState, normalize
from ..models import GraphEntity, GraphEntityAlias, GraphFact, GraphFactEvidence, GraphFactSupersession

FACT_RELATED = ("subject_entity", "object_entity")


def live_evidence(ctx: RequestContext, scopes: tuple[str, ...] | None = None) -> QuerySet[GraphFactEvidence]:
    """Evidence rows whose note the caller may read now (active, unexpired, readable; in ``scopes`` if given)."""
    notes = not_expired(readable_notes(ctx, scopes=scopes).filter(status=NoteStatus.ACTIVE))
    return GraphFactEvidence.objects.filter(note__in=notes.values("note_id"))


def visible_facts(ctx: RequestContext, scopes: tuple[str, ...] | None = None) -> QuerySet[GraphFact]:
    """Facts of the caller's tenant with a live evidence note (in ``scopes`` if given). Not filtered by the fact's
    own project: a note published to the org space after the fact was recorded carries the fact with it."""
    return (GraphFact.objects.filter(tenant_id=ctx.tenant_id)
            .filter(Exists(live_evidence(ctx, scopes).filter(fact_id=OuterRef("fact_id")))))


def evidence_reach(ctx: RequestContext, fact_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, EvidenceReach]:
    """Per fact, its evidence as the writer ``ctx`` (the note's home context) sees it: how many notes, how many
    of them readable under the read rule (any status: a deleted note of one's own is still one's own), how many
    the writer's own. What the writer may then supersede is graph.domain.rules.may_supersede's to say."""
    readable = readable_notes(ctx).values("note_id")
    rows = (GraphFactEvidence.objects.filter(fact_id__in=list(fact_ids)).values("fact_id")
            .annotate(total=Count("evidence_id"), readable=Count("evidence_id", filter=Q(note_id__in=readable)),
                      own=Count("evidence_id", filter=Q(note__agent_id=ctx.agent_id, note__tenant_id=ctx.tenant_id))))
    return {r["fact_id"]: EvidenceReach(r["total"], r["readable"], r["own"]) for r in rows}


def in_state(qs: QuerySet[GraphFact], state: str, at: datetime) -> QuerySet[GraphFact]:
    """current: valid_from <= at < valid_to (or open); historical: valid_to <= at; future: valid_from > at."""
    if state == FactState.CURRENT:
        return qs.filter(valid_from__lte=at).filter(Q(valid_to__isnull=True) | Q(valid_to__gt=at))
    if state == FactState.HISTORICAL:
        return qs.filter(valid_to__lte=at)
    if state == FactState.FUTURE:
        return qs.filter(valid_from__gt=at)
    return qs


def entity_ids_named(ctx: RequestContext, name: str) -> QuerySet[GraphEntity]:
    """Entities of the caller's tenant whose canonical name or an alias is ``name`` (which facts about them the
    caller sees is visible_facts' to decide)."""
    norm = normalize(name)
    return (GraphEntity.objects.filter(tenant_id=ctx.tenant_id)
            .filter(Q(canonical_norm=norm) | Q(aliases__alias_norm=norm)).values("entity_id"))


def find_facts(ctx: RequestContext, *, subject: str | None, predicate: str | None, state: str, at: datetime,
               limit: int) -> list[GraphFact]:
    qs = visible_facts(ctx)
    if subject:
        qs = qs.filter(subject_entity_id__in=entity_ids_named(ctx, subject))
    if predicate:
        norm = normalize(predicate)
        qs = qs.filter(Q(predicate_ref__canonical_norm=norm) | Q(predicate_ref__aliases__alias_norm=norm))
    qs = in_state(qs, state, at).select_related(*FACT_RELATED).distinct()
    return list(qs.order_by("-valid_from", "fact_id")[:limit])


def entity_facts(ctx: RequestContext, entity_id: uuid.UUID) -> tuple[GraphEntity, list[str], list[GraphFact]] | None:
    """The entity, its aliases and every visible fact naming it (as subject or object); None when it is not in
    the caller's tenant or no visible fact names it (an entity's name alone may be private)."""
    entity = GraphEntity.objects.filter(entity_id=entity_id, tenant_id=ctx.tenant_id).first()
    if entity is None:
        return None
    facts = list(visible_facts(ctx).filter(Q(subject_entity_id=entity_id) | Q(object_entity_id=entity_id))
                 .select_related(*FACT_RELATED).order_by("-valid_from", "fact_id"))
    if not facts:
        return None
    aliases = list(GraphEntityAlias.objects.filter(entity=entity).order_by("created_at", "alias_norm")
                   .values_list("alias", flat=True))
    return entity, aliases, facts


def evidence_note_ids(ctx: RequestContext, fact_ids: Iterable[uuid.UUID], *, per_fact: int | None = None
                      ) -> dict[uuid.UUID, list[str]]:
    """Per fact, the ids of its evidence notes the caller may read now, oldest evidence first."""
    out: dict[uuid.UUID, list[str]] = defaultdict(list)
    rows = (live_evidence(ctx).filter(fact_id__in=list(fact_ids)).order_by("fact_id", "created_at", "note_id")
            .values_list("fact_id", "note_id"))
    for fact_id, note_id in rows:
        if per_fact is None or len(out[fact_id]) < per_fact:
            out[fact_id].append(str(note_id))
    return out


def supersession_links(ctx: RequestContext, fact_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, dict[str, list[dict]]]:
    """Per fact, ``supersedes`` (facts it closed) and ``superseded_by`` (facts that closed it), each link
    {fact_id, note_id, effective_at}, listing only facts the caller may see."""
    ids = list(fact_ids)
    links = list(GraphFactSupersession.objects.filter(Q(from_fact_id__in=ids) | Q(to_fact_id__in=ids))
                 .order_by("effective_at", "supersession_id"))
    others = {link.from_fact_id for link in links} | {link.to_fact_id for link in links}
    seen = set(visible_facts(ctx).filter(fact_id__in=others).values_list("fact_id", flat=True))
    out: dict[uuid.UUID, dict[str, list[dict]]] = {i: {"supersedes": [], "superseded_by": []} for i in ids}
    for link in links:
        if link.to_fact_id in out and link.from_fact_id in seen:
            out[link.to_fact_id]["supersedes"].append(_link(link.from_fact_id, link))
        if link.from_fact_id in out and link.to_fact_id in seen:
            out[link.from_fact_id]["superseded_by"].append(_link(link.to_fact_id, link))
    return out


def _link(fact_id: uuid.UUID, link: GraphFactSupersession) -> dict:
    return {"fact_id": str(fact_id), "note_id": str(link.note_id), "effective_at": link.effective_at}
