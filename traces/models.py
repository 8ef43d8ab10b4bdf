"""Unmanaged models mirroring the search trace tables and the LLM cache of ``sql/tables``.

Traces are written by the trace outbox worker and deleted at ``expires_at``; items, stages, stage items
and candidates go with their trace through the database's ``ON DELETE CASCADE``.
"""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Now

from elf_domain.time_ids import uuid7
from elf_domain.vocabulary import ExpansionMode, OutboxStatus
from elf_kernel.model_bases import choices_of


class SearchTrace(models.Model):
    trace_id = models.UUIDField(primary_key=True, default=uuid7)
    tenant_id = models.TextField()
    project_id = models.TextField()
    agent_id = models.TextField()
    read_profile = models.TextField()
    query = models.TextField()
    expansion_mode = models.TextField(choices=choices_of(ExpansionMode))
    expanded_queries = models.JSONField()
    allowed_scopes = models.JSONField()
    candidate_count = models.IntegerField()
    top_k = models.IntegerField()
    config_snapshot = models.JSONField()
    trace_version = models.IntegerField()
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "search_traces"

    def __str__(self) -> str:
        return f"trace {self.trace_id}: {self.query[:60]}"


class SearchTraceItem(models.Model):
    item_id = models.UUIDField(primary_key=True, default=uuid7)
    trace = models.ForeignKey(
        SearchTrace, on_delete=models.DO_NOTHING, db_column="trace_id", related_name="items"
    )
    note_id = models.UUIDField()
    chunk_id = models.UUIDField(null=True, blank=True)
    rank = models.IntegerField()
    final_score = models.FloatField()
    explain = models.JSONField()

    class Meta:
        managed = False
        db_table = "search_trace_items"

    def __str__(self) -> str:
        return f"#{self.rank} note {self.note_id} ({self.final_score:.4f})"


class SearchTraceStage(models.Model):
    stage_id = models.UUIDField(primary_key=True, default=uuid7)
    trace = models.ForeignKey(
        SearchTrace, on_delete=models.DO_NOTHING, db_column="trace_id", related_name="stages"
    )
    stage_order = models.IntegerField()
    stage_name = models.TextField()
    stage_payload = models.JSONField()
    created_at = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "search_trace_stages"

    def __str__(self) -> str:
        return f"{self.stage_order}. {self.stage_name}"


class SearchTraceStageItem(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7)
    stage = models.ForeignKey(
        SearchTraceStage, on_delete=models.DO_NOTHING, db_column="stage_id", related_name="items"
    )
    item_id = models.UUIDField(null=True, blank=True)
    note_id = models.UUIDField(null=True, blank=True)
    chunk_id = models.UUIDField(null=True, blank=True)
    metrics = models.JSONField()

    class Meta:
        managed = False
        db_table = "search_trace_stage_items"

    def __str__(self) -> str:
        return f"stage {self.stage_id} item note {self.note_id} chunk {self.chunk_id}"


class SearchTraceOutbox(models.Model):
    outbox_id = models.UUIDField(primary_key=True, default=uuid7)
    trace_id = models.UUIDField()
    status = models.TextField(choices=choices_of(OutboxStatus))
    attempts = models.IntegerField(db_default=0)
    last_error = models.TextField(null=True, blank=True)
    available_at = models.DateTimeField(db_default=Now())
    payload = models.JSONField()
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "search_trace_outbox"
        verbose_name_plural = "search trace outbox"

    def __str__(self) -> str:
        return f"trace {self.trace_id} [{self.status}, attempts {self.attempts}]"


class SearchTraceCandidate(models.Model):
    candidate_id = models.UUIDField(primary_key=True, default=uuid7)
    trace = models.ForeignKey(
        SearchTrace, on_delete=models.DO_NOTHING, db_column="trace_id", related_name="candidates"
    )
    rank = models.IntegerField()
    candidate_snapshot = models.JSONField()
    created_at = models.DateTimeField(db_default=Now())
    expires_at = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "search_trace_candidates"

    def __str__(self) -> str:
        return f"candidate #{self.rank} of trace {self.trace_id}"
