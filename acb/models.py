"""Unmanaged models mirroring the event log and bundle tables of ``sql/tables`` (037-044). Sensitivity-high
content is sealed on save and opened on load (``sealing``: PRD 9.2, encrypted at rest)."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from . import sealing


def generated_tsv():
    """The tsvector column Postgres generates (sql/ holds its expression); Django never writes it."""
    return models.GeneratedField(expression=models.Value(""), output_field=models.TextField(), db_persist=True)


def written_by_postgres():
    """A column Postgres sets (sql/migrations 0010: the writing transaction); Django never writes it."""
    return models.GeneratedField(expression=models.Value(""), output_field=models.TextField(), db_persist=True)


def _texts():
    return ArrayField(models.TextField(), default=list, blank=True)


class Sealed(models.Model):
    """Opens sealed values on load and seals them on save (``sealing``): ``_open(obj)`` and ``_seal(obj)``."""

    class Meta:
        abstract = True

    @classmethod
    def from_db(cls, db, field_names, values):
        return cls._open(super().from_db(db, field_names, values))

    def save(self, *args, **kwargs):
        with sealing.sealed_for_save(self, self._seal(self)):
            super().save(*args, **kwargs)

    @property
    def sealed(self) -> bool:
        """Set for a task a high event wrote and for a high event's artifact (rows with no sensitivity)."""
        return self.__dict__.get("_sealed", False)

    @sealed.setter
    def sealed(self, value: bool) -> None:
        self.__dict__["_sealed"] = value


class AcbEvent(Sealed):
    _open, _seal = staticmethod(sealing.open_event), staticmethod(sealing.seal_event_values)

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


class AcbChunk(Sealed):
    _open, _seal = staticmethod(sealing.open_chunk), staticmethod(lambda c: {})  # bulk_create: sealing.seal_chunks

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


class AcbChunkWrite(models.Model):
    """The transaction that wrote a chunk (sql/migrations 0010: a trigger fills it, so Django never writes it; never
    exported): which chunks a kept ranking pool has not seen (acb.ranking_pool)."""

    chunk_id = models.TextField(primary_key=True)
    tenant_id = models.TextField()
    written_xid = written_by_postgres()

    class Meta:
        managed = False
        db_table = "acb_chunk_writes"
        verbose_name = "chunk write"

    def __str__(self) -> str:
        return f"{self.chunk_id} written by {self.written_xid}"


class AcbChunkEpoch(models.Model):
    """Bumped when a tenant's chunks are deleted or changed (sql/migrations 0009, 0010): kept ranking pools rank
    again."""

    tenant_id = models.TextField(primary_key=True)  # '*': a TRUNCATE of every tenant's chunks
    epoch = models.BigIntegerField()

    class Meta:
        managed = False
        db_table = "acb_chunk_epochs"
        verbose_name = "chunk epoch"

    def __str__(self) -> str:
        return f"{self.tenant_id}: epoch {self.epoch}"


class AcbDecision(Sealed):
    _open, _seal = staticmethod(sealing.open_decision), staticmethod(sealing.seal_decision_values)

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


class AcbTask(Sealed):
    _open, _seal = staticmethod(sealing.open_task), staticmethod(sealing.seal_task_values)

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


class AcbArtifact(Sealed):
    _open, _seal = staticmethod(sealing.open_artifact), staticmethod(sealing.seal_artifact_values)

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


class AcbBundle(Sealed):
    _open, _seal = staticmethod(sealing.open_bundle), staticmethod(lambda b: {})  # written by build (raw SQL)

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
