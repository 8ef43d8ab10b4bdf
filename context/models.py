"""Unmanaged models mirroring the event log and bundle tables of ``sql/tables`` (037-044)."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models


def generated_tsv():
    """The tsvector column Postgres generates (sql/ holds its expression); Django never writes it."""
    return models.GeneratedField(expression=models.Value(""), output_field=models.TextField(), db_persist=True)


def _texts():
    return ArrayField(models.TextField(), default=list, blank=True)


class AcbEvent(models.Model):
    event_id = models.TextField(primary_key=True)
    ts = models.DateTimeField()
    tenant_id = models.TextField()
    project_id = models.TextField()
    session_id = models.TextField()
    agent_id = models.TextField()
    channel = models.TextField()
    actor_type = models.TextField()
    actor_id = models.TextField()
    kind = models.TextField()
    sensitivity = models.TextField()
    tags = _texts()
    content = models.JSONField()
    refs = _texts()

    class Meta:
        managed = False
        db_table = "acb_events"
        verbose_name = "event"

    def __str__(self) -> str:
        return f"{self.event_id} {self.kind} by {self.actor_type}:{self.actor_id}"


class AcbChunk(models.Model):
    chunk_id = models.TextField(primary_key=True)
    tenant_id = models.TextField()
    project_id = models.TextField()
    session_id = models.TextField()
    event = models.ForeignKey(AcbEvent, on_delete=models.DO_NOTHING, db_column="event_id", related_name="chunks")
    ord = models.IntegerField()
    ts = models.DateTimeField()
    kind = models.TextField()
    agent_id = models.TextField()
    actor_type = models.TextField()
    actor_id = models.TextField()
    artifact_id = models.TextField(null=True)
    channel = models.TextField()
    sensitivity = models.TextField()
    tags = _texts()
    token_est = models.IntegerField()
    importance = models.FloatField()
    text = models.TextField()
    text_hash = models.TextField()
    tsv = generated_tsv()

    class Meta:
        managed = False
        db_table = "acb_chunks"
        verbose_name = "event chunk"

    def __str__(self) -> str:
        return f"{self.chunk_id} ({self.token_est} tokens)"


class AcbDecision(models.Model):
    decision_id = models.TextField(primary_key=True)
    tenant_id = models.TextField()
    project_id = models.TextField()
    session_id = models.TextField()
    agent_id = models.TextField()
    event = models.ForeignKey(AcbEvent, on_delete=models.DO_NOTHING, db_column="event_id", related_name="+")
    channel = models.TextField()
    sensitivity = models.TextField()
    ts = models.DateTimeField()
    status = models.TextField()
    scope = models.TextField()
    decision = models.TextField()
    rationale = _texts()
    constraints = _texts()
    alternatives = _texts()
    consequences = _texts()
    refs = _texts()
    supersedes = models.ForeignKey("self", null=True, on_delete=models.DO_NOTHING, db_column="supersedes",
                                   related_name="+")
    superseded_by = models.ForeignKey("self", null=True, on_delete=models.DO_NOTHING, db_column="superseded_by",
                                      related_name="+")
    search_text = models.TextField()
    tsv = generated_tsv()

    class Meta:
        managed = False
        db_table = "acb_decisions"
        verbose_name = "decision"

    def __str__(self) -> str:
        return f"{self.decision_id} [{self.status}] {self.decision[:60]}"


class AcbTask(models.Model):
    task_id = models.TextField(primary_key=True)
    tenant_id = models.TextField()
    project_id = models.TextField()
    session_id = models.TextField()
    agent_id = models.TextField()
    ts = models.DateTimeField()
    status = models.TextField()
    title = models.TextField()
    details = models.TextField(blank=True)
    refs = _texts()

    class Meta:
        managed = False
        db_table = "acb_tasks"
        verbose_name = "task"

    def __str__(self) -> str:
        return f"{self.task_id} [{self.status}] {self.title[:60]}"


class AcbArtifact(models.Model):
    artifact_id = models.TextField(primary_key=True)
    tenant_id = models.TextField()
    project_id = models.TextField()
    session_id = models.TextField()
    ts = models.DateTimeField()
    kind = models.TextField()
    bytes = models.BinaryField(null=True)
    meta = models.JSONField(default=dict)
    refs = _texts()

    class Meta:
        managed = False
        db_table = "acb_artifacts"
        verbose_name = "artifact"

    def __str__(self) -> str:
        return f"{self.artifact_id} ({self.kind})"


class AcbSession(models.Model):
    sid = models.UUIDField(primary_key=True)
    tenant_id = models.TextField()
    session_id = models.TextField()
    project_id = models.TextField()
    agents = _texts()
    event_count = models.IntegerField()
    first_ts = models.DateTimeField()
    last_ts = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "acb_sessions"
        verbose_name = "session"

    def __str__(self) -> str:
        return f"{self.tenant_id}/{self.session_id} ({self.event_count} events)"


class AcbBundle(models.Model):
    acb_id = models.TextField(primary_key=True)
    tenant_id = models.TextField()
    session_id = models.TextField()
    agent_id = models.TextField()
    channel = models.TextField()
    created_at = models.DateTimeField()
    budget_tokens = models.IntegerField()
    token_used_est = models.IntegerField()
    bundle_hash = models.TextField()
    body = models.JSONField()

    class Meta:
        managed = False
        db_table = "acb_bundles"
        verbose_name = "context bundle"

    def __str__(self) -> str:
        return f"{self.acb_id} ({self.token_used_est}/{self.budget_tokens} tokens)"
