"""Unmanaged models of the graph tables (spec v2 section 5, supplement section 2): entities and their
aliases, the predicate registry, facts with validity windows, their evidence and supersessions.

The SQL files under ``sql/tables`` are the schema's source; these models only map them. Writes: graph.services.facts
(composed into note ingest by the root); reads: graph.selectors, under the notes' read rule.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Now

from elf_domain.vocabulary import Scope
from elf_kernel.model_bases import choices_of
from memory.models import MemoryNote

from .domain.rules import Cardinality, PredicateStatus


class GraphEntity(models.Model):
    entity_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    canonical = models.TextField()
    canonical_norm = models.TextField()
    kind = models.TextField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "graph_entities"
        verbose_name_plural = "graph entities"

    def __str__(self) -> str:
        return f"{self.canonical} ({self.kind})" if self.kind else self.canonical


class GraphEntityAlias(models.Model):
    alias_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    entity = models.ForeignKey(
        GraphEntity, on_delete=models.DO_NOTHING, db_column="entity_id", related_name="aliases"
    )
    alias = models.TextField()
    alias_norm = models.TextField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "graph_entity_aliases"
        verbose_name_plural = "graph entity aliases"

    def __str__(self) -> str:
        return self.alias


class GraphPredicate(models.Model):
    predicate_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    scope_key = models.TextField()
    tenant_id = models.TextField(null=True, blank=True)
    project_id = models.TextField(null=True, blank=True)
    canonical = models.TextField()
    canonical_norm = models.TextField()
    cardinality = models.TextField(choices=choices_of(Cardinality))
    status = models.TextField(choices=choices_of(PredicateStatus))
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "graph_predicates"

    def __str__(self) -> str:
        return f"{self.canonical} [{self.scope_key}, {self.cardinality}, {self.status}]"


class GraphPredicateAlias(models.Model):
    alias_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    predicate = models.ForeignKey(
        GraphPredicate, on_delete=models.DO_NOTHING, db_column="predicate_id", related_name="aliases"
    )
    scope_key = models.TextField()
    alias = models.TextField()
    alias_norm = models.TextField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "graph_predicate_aliases"
        verbose_name_plural = "graph predicate aliases"

    def __str__(self) -> str:
        return f"{self.alias} [{self.scope_key}]"


class GraphFact(models.Model):
    fact_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    agent_id = models.TextField()
    scope = models.TextField(choices=choices_of(Scope))
    subject_entity = models.ForeignKey(
        GraphEntity,
        on_delete=models.DO_NOTHING,
        db_column="subject_entity_id",
        related_name="facts_as_subject",
    )
    # The predicate as written; predicate_ref is the resolved registry entry (column predicate_id).
    predicate = models.TextField()
    predicate_ref = models.ForeignKey(
        GraphPredicate, on_delete=models.DO_NOTHING, db_column="predicate_id", related_name="facts"
    )
    object_entity = models.ForeignKey(
        GraphEntity,
        on_delete=models.DO_NOTHING,
        db_column="object_entity_id",
        related_name="facts_as_object",
        null=True,
        blank=True,
    )
    object_value = models.TextField(null=True, blank=True)
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "graph_facts"

    def __str__(self) -> str:
        obj = self.object_value if self.object_value is not None else f"entity {self.object_entity_id}"
        return f"{self.subject_entity_id} {self.predicate} {obj}"


class GraphFactEvidence(models.Model):
    evidence_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    fact = models.ForeignKey(
        GraphFact, on_delete=models.DO_NOTHING, db_column="fact_id", related_name="evidence"
    )
    note = models.ForeignKey(
        MemoryNote, on_delete=models.DO_NOTHING, db_column="note_id", related_name="fact_evidence"
    )
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "graph_fact_evidence"
        verbose_name_plural = "graph fact evidence"

    def __str__(self) -> str:
        return f"fact {self.fact_id} <- note {self.note_id}"


class GraphFactSupersession(models.Model):
    supersession_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    from_fact = models.ForeignKey(
        GraphFact, on_delete=models.DO_NOTHING, db_column="from_fact_id", related_name="superseded_by"
    )
    to_fact = models.ForeignKey(
        GraphFact, on_delete=models.DO_NOTHING, db_column="to_fact_id", related_name="supersedes"
    )
    note_id = models.UUIDField()
    effective_at = models.DateTimeField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "graph_fact_supersessions"

    def __str__(self) -> str:
        return f"fact {self.from_fact_id} -> {self.to_fact_id} at {self.effective_at}"
