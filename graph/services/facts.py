"""Facts from a stored note's ``structured.entities`` and ``structured.relations``, in the note's transaction
(the hook memory's ingest runs for remembered and updated notes; add_note and add_event alike).

Per relation: the subject and an object entity are found or created, the predicate resolved (or registered
as pending/multi), and the fact is either the equivalent open fact already there (the note is added to its
evidence) or a new one, valid from the relation's ``valid_from`` or the time of the write. For an active,
single-valued predicate a new open fact closes the other open facts of the same (tenant, project, scope,
subject, predicate) and records who superseded whom, with the note that caused it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from elf_kernel.locks import advisory_xact_lock, lock_class
from memory.services.note_hooks import NoteWritten

from ..domain.rules import Cardinality, PredicateStatus
from ..models import GraphEntity, GraphFact, GraphFactEvidence, GraphFactSupersession, GraphPredicate
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
    warnings = []
    for i, relation in enumerate(structured.get("relations") or []):
        problem = record_relation(event, relation)
        if problem:
            warnings.append(f"{event.field_path}.structured.relations[{i}]: {problem}; no fact recorded")
    return warnings


def _when(value) -> datetime | None:
    """A relation's valid_from/valid_to: ISO 8601 (validated upstream); a time without an offset is UTC."""
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return when if when.tzinfo is not None else when.replace(tzinfo=dt_timezone.utc)


def record_relation(event: NoteWritten, relation: dict) -> str | None:
    """Record one relation as a fact with the note as evidence; a reason when it cannot be recorded."""
    note = event.note
    valid_from = _when(relation.get("valid_from")) or event.at
    valid_to = _when(relation.get("valid_to"))
    if valid_to is not None and valid_to <= valid_from:
        return "valid_to must be later than valid_from"
    subject = upsert_entity(tenant_id=note.tenant_id, project_id=note.project_id, entity=relation["subject"])
    if subject is None:
        return "the subject has no name"
    target = relation["object"]
    obj = None
    if target.get("entity") is not None:
        obj = upsert_entity(tenant_id=note.tenant_id, project_id=note.project_id, entity=target["entity"])
        if obj is None:
            return "the object entity has no name"
    elif not (target.get("value") or "").strip():
        return "the object value is empty"
    predicate = resolve_predicate(tenant_id=note.tenant_id, project_id=note.project_id, name=relation["predicate"])
    _lock_subject_predicate(note.tenant_id, note.project_id, subject, predicate)
    fact = _equivalent_fact(note, subject, predicate, obj, target.get("value"), valid_from, valid_to)
    if fact is None:
        fact = _insert_fact(note, subject, predicate, obj, target.get("value"), valid_from, valid_to)
        if valid_to is None and predicate.status == PredicateStatus.ACTIVE and predicate.cardinality == Cardinality.SINGLE:
            _supersede(fact, note.note_id)
    _add_evidence(fact, note.note_id)
    return None


def _lock_subject_predicate(tenant_id: str, project_id: str, subject: GraphEntity, predicate: GraphPredicate) -> None:
    """Serialise writers of one (subject, predicate) until commit, so two notes cannot both leave an open
    fact of a single-valued predicate."""
    advisory_xact_lock(FACT_LOCK_CLASS, f"{tenant_id}\x1f{project_id}\x1f{subject.entity_id}\x1f{predicate.predicate_id}")


def _same_object(obj: GraphEntity | None, value: str | None) -> Q:
    return Q(object_entity=obj) if obj is not None else Q(object_value=value, object_entity__isnull=True)


def _equivalent_fact(note, subject, predicate, obj, value, valid_from, valid_to) -> GraphFact | None:
    """An open relation is the open fact with the same object; a closed one, the fact with the same window."""
    same = GraphFact.objects.filter(
        _same_object(obj, value), tenant_id=note.tenant_id, project_id=note.project_id, scope=note.scope,
        subject_entity=subject, predicate_ref=predicate)
    if valid_to is None:
        return same.filter(valid_to__isnull=True).first()
    return same.filter(valid_from=valid_from, valid_to=valid_to).first()


def _insert_fact(note, subject, predicate, obj, value, valid_from, valid_to) -> GraphFact:
    try:
        with transaction.atomic():  # a savepoint: the open-fact unique index may say it exists already
            return GraphFact.objects.create(
                tenant_id=note.tenant_id, project_id=note.project_id, agent_id=note.agent_id, scope=note.scope,
                subject_entity=subject, predicate=predicate.canonical, predicate_ref=predicate, object_entity=obj,
                object_value=None if obj is not None else value, valid_from=valid_from, valid_to=valid_to)
    except IntegrityError:
        existing = _equivalent_fact(note, subject, predicate, obj, value, valid_from, valid_to)
        if existing is None:
            raise
        return existing


def _supersede(new: GraphFact, note_id) -> None:
    """Close every other open fact of the same (tenant, project, scope, subject, predicate). One that started
    before the new fact ends where the new one starts; one that starts later stays current and closes the
    new fact instead (the later statement wins in time, whatever order the notes arrived in)."""
    others = list(GraphFact.objects.select_for_update().filter(
        tenant_id=new.tenant_id, project_id=new.project_id, scope=new.scope, subject_entity_id=new.subject_entity_id,
        predicate_ref_id=new.predicate_ref_id, valid_to__isnull=True).exclude(fact_id=new.fact_id))
    now = timezone.now()
    for old in others:
        if old.valid_from <= new.valid_from:
            closed, by, at = old, new, max(new.valid_from, old.valid_from + SAME_INSTANT_STEP)
        else:
            closed, by, at = new, old, old.valid_from
        GraphFact.objects.filter(fact_id=closed.fact_id).update(valid_to=at, updated_at=now)
        closed.valid_to = at
        GraphFactSupersession.objects.create(tenant_id=new.tenant_id, project_id=new.project_id,
                                             from_fact_id=closed.fact_id, to_fact_id=by.fact_id, note_id=note_id,
                                             effective_at=at)
        if closed is new:
            break  # the new fact is closed: it supersedes nothing else


def _add_evidence(fact: GraphFact, note_id) -> None:
    try:
        with transaction.atomic():
            GraphFactEvidence.objects.create(fact=fact, note_id=note_id)
    except IntegrityError:
        pass  # this note is already evidence of the fact (a re-ingest)
