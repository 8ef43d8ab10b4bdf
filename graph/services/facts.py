"""Facts from a stored note's ``structured.entities`` and ``structured.relations``, in the note's transaction
(the hook memory's ingest runs for remembered and updated notes; add_note and add_event alike).

Per relation: the subject and an object entity are found or created, the predicate resolved (or registered
as pending/multi), and the fact is either the equivalent open fact already there (the note is added to its
evidence; for an agent_private note, only a fact of the same agent: private facts are per agent) or a new one,
valid from the relation's ``valid_from`` or the time of the write. For an active, single-valued predicate a new
open fact closes the other open facts of the same (tenant, project, scope, subject, predicate) that are in its
writer's reach (graph.domain.rules.may_supersede: an agent_private fact only the same agent's, a shared one only
one whose evidence the writer may read) and records who superseded whom, with the note that caused it.

A note that already existed (an update, or a duplicate whose structured fields replace the stored ones) and
whose write carries ``structured.relations`` (even an empty list) re-derives its relations: it stays evidence of
the facts it states now and stops being evidence of every other. A fact left without evidence goes, as when its
last evidence note is purged (the ``graph_delete_unevidenced_fact`` trigger), so it is no longer current; one
with other evidence keeps it. A write without ``relations`` leaves the note's facts as they are, as it leaves
its other structured fields.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from elf_domain.vocabulary import Scope
from elf_kernel.locks import advisory_xact_lock, lock_class
from memory.models import NoteOp
from memory.services.add_note.note_write_hooks import NoteWritten

from ..domain.rules import Cardinality, PredicateStatus, may_supersede
from ..models import GraphEntity, GraphFact, GraphFactEvidence, GraphFactSupersession, GraphPredicate
from ..selectors.facts import evidence_reach
from .entities import upsert_entity
from .predicates import resolve_predicate

log = logging.getLogger("elf.graph")
# First key of the two-key advisory lock space for (subject, predicate) pairs: "ELFG" as a signed int4.
FACT_LOCK_CLASS = lock_class(b"ELFG")
# Two facts that start at the same instant: the older one is closed this much later (the window check
# wants valid_to > valid_from).
SAME_INSTANT_STEP = timedelta(microseconds=1)


def record_note_graph(event: NoteWritten) -> list[str]:
    """The note-write hook: entities and relations of ``event.structured``; returns warnings for the result."""
    structured = event.structured or {}
    tenant_id, project_id = event.note.tenant_id, event.note.project_id
    for entity in structured.get("entities") or []:
        upsert_entity(tenant_id=tenant_id, project_id=project_id, entity=entity)
    warnings, stated = [], set()
    for i, relation in enumerate(structured.get("relations") or []):
        fact, problem = record_relation(event, relation)
        if problem:
            warnings.append(f"{event.field_path}.structured.relations[{i}]: {problem}; no fact recorded")
        else:
            stated.add(fact.fact_id)
    if event.op != NoteOp.ADD and isinstance(structured.get("relations"), list):
        _drop_unstated_evidence(event.note, stated)
    return warnings


def _drop_unstated_evidence(note, stated: set) -> None:
    """The note stops being evidence of the facts it no longer states. A fact left without evidence is deleted
    by the purge path's trigger (graph_delete_unevidenced_fact); its (subject, predicate) is locked first, so a
    concurrent writer cannot add evidence to a fact that is going."""
    gone = GraphFactEvidence.objects.filter(note_id=note.note_id).exclude(fact_id__in=stated)
    facts = list(GraphFact.objects.filter(fact_id__in=gone.values("fact_id"))
                 .select_related("subject_entity", "predicate_ref").order_by("subject_entity_id", "predicate_ref_id"))
    if not facts:
        return
    for fact in facts:
        _lock_subject_predicate(fact.tenant_id, fact.project_id, fact.subject_entity, fact.predicate_ref)
    GraphFactEvidence.objects.filter(note_id=note.note_id, fact_id__in=[f.fact_id for f in facts]).delete()


def _when(value) -> datetime | None:
    """A relation's valid_from/valid_to: ISO 8601 (validated upstream); a time without an offset is UTC."""
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def record_relation(event: NoteWritten, relation: dict) -> tuple[GraphFact | None, str | None]:
    """Record one relation as a fact with the note as evidence: (the fact, None), or (None, the reason it
    cannot be recorded)."""
    note = event.note
    valid_from = _when(relation.get("valid_from")) or event.at
    valid_to = _when(relation.get("valid_to"))
    if valid_to is not None and valid_to <= valid_from:
        return None, "valid_to must be later than valid_from"
    subject = upsert_entity(tenant_id=note.tenant_id, project_id=note.project_id, entity=relation["subject"])
    if subject is None:
        return None, "the subject has no name"
    target = relation["object"]
    obj = None
    if target.get("entity") is not None:
        obj = upsert_entity(tenant_id=note.tenant_id, project_id=note.project_id, entity=target["entity"])
        if obj is None:
            return None, "the object entity has no name"
    elif not (target.get("value") or "").strip():
        return None, "the object value is empty"
    predicate = resolve_predicate(tenant_id=note.tenant_id, project_id=note.project_id, name=relation["predicate"])
    _lock_subject_predicate(note.tenant_id, note.project_id, subject, predicate)
    fact = _equivalent_fact(note, subject, predicate, obj, target.get("value"), valid_from, valid_to)
    if fact is None:
        fact = _insert_fact(note, subject, predicate, obj, target.get("value"), valid_from, valid_to)
        if (
            valid_to is None
            and predicate.status == PredicateStatus.ACTIVE
            and predicate.cardinality == Cardinality.SINGLE
        ):
            _supersede(fact, event)
    _add_evidence(fact, note.note_id)
    return fact, None


def _lock_subject_predicate(tenant_id: str, project_id: str, subject: GraphEntity, predicate: GraphPredicate) -> None:
    """Serialise writers of one (subject, predicate) until commit, so two notes cannot both leave an open
    fact of a single-valued predicate."""
    advisory_xact_lock(
        FACT_LOCK_CLASS, f"{tenant_id}\x1f{project_id}\x1f{subject.entity_id}\x1f{predicate.predicate_id}"
    )


def _same_object(obj: GraphEntity | None, value: str | None) -> Q:
    return Q(object_entity=obj) if obj is not None else Q(object_value=value, object_entity__isnull=True)


def _equivalent_fact(note, subject, predicate, obj, value, valid_from, valid_to) -> GraphFact | None:
    """An open relation is the open fact with the same object; a closed one, the fact with the same window.
    An agent_private fact is its agent's: another agent's private note stating the same is another fact."""
    same = GraphFact.objects.filter(
        _same_object(obj, value),
        tenant_id=note.tenant_id,
        project_id=note.project_id,
        scope=note.scope,
        subject_entity=subject,
        predicate_ref=predicate,
    )
    if note.scope == Scope.AGENT_PRIVATE:
        same = same.filter(agent_id=note.agent_id)
    if valid_to is None:
        return same.filter(valid_to__isnull=True).first()
    return same.filter(valid_from=valid_from, valid_to=valid_to).first()


def _insert_fact(note, subject, predicate, obj, value, valid_from, valid_to) -> GraphFact:
    try:
        with transaction.atomic():  # a savepoint: the open-fact unique index may say it exists already
            return GraphFact.objects.create(
                tenant_id=note.tenant_id,
                project_id=note.project_id,
                agent_id=note.agent_id,
                scope=note.scope,
                subject_entity=subject,
                predicate=predicate.canonical,
                predicate_ref=predicate,
                object_entity=obj,
                object_value=None if obj is not None else value,
                valid_from=valid_from,
                valid_to=valid_to,
            )
    except IntegrityError:
        existing = _equivalent_fact(note, subject, predicate, obj, value, valid_from, valid_to)
        if existing is None:
            raise
        return existing


def _supersede(new: GraphFact, event: NoteWritten) -> None:
    """Close every other open fact of the same (tenant, project, scope, subject, predicate) in the writer's
    reach (may_supersede; the others are left alone, whoever can read them). One that started before the new
    fact ends where the new one starts; one that starts later stays current and closes the new fact instead
    (the later statement wins in time, whatever order the notes arrived in)."""
    note_id = event.note.note_id
    candidates = list(
        GraphFact.objects.select_for_update()
        .filter(
            tenant_id=new.tenant_id,
            project_id=new.project_id,
            scope=new.scope,
            subject_entity_id=new.subject_entity_id,
            predicate_ref_id=new.predicate_ref_id,
            valid_to__isnull=True,
        )
        .exclude(fact_id=new.fact_id)
        .order_by("valid_from", "fact_id")
    )
    reach = evidence_reach(event.ctx, [f.fact_id for f in candidates])
    others = [f for f in candidates if f.fact_id in reach and may_supersede(scope=new.scope, older=reach[f.fact_id])]
    now = timezone.now()
    for old in others:
        if old.valid_from <= new.valid_from:
            closed, by, at = old, new, max(new.valid_from, old.valid_from + SAME_INSTANT_STEP)
        else:
            closed, by, at = new, old, old.valid_from
        GraphFact.objects.filter(fact_id=closed.fact_id).update(valid_to=at, updated_at=now)
        closed.valid_to = at
        GraphFactSupersession.objects.create(
            tenant_id=new.tenant_id,
            project_id=new.project_id,
            from_fact_id=closed.fact_id,
            to_fact_id=by.fact_id,
            note_id=note_id,
            effective_at=at,
        )
        if closed is new:
            break  # the new fact is closed: it supersedes nothing else


def _add_evidence(fact: GraphFact, note_id) -> None:
    try:
        with transaction.atomic():
            GraphFactEvidence.objects.create(fact=fact, note_id=note_id)
    except IntegrityError:
        pass  # this note is already evidence of the fact (a re-ingest)
