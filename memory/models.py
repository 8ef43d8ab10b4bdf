"""Unmanaged models mirroring the memory tables of ``sql/tables``.

The SQL files are the schema's source of truth (see ``elf_project.db_init``); these models only map them.
Foreign keys use ``DO_NOTHING`` because the database itself cascades (``ON DELETE CASCADE``).
Columns that have no foreign key in SQL on purpose (audit and outbox rows outlive purged notes) are
plain ``UUIDField``s here.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Now

from elf_domain.time_ids import uuid7
from elf_domain.vocabulary import NoteOp, NoteType, OutboxOp, OutboxStatus, Scope
from elf_kernel.model_bases import StoredVector, choices_of

from .domain.policy import Decision


class NoteStatus(models.TextChoices):
    ACTIVE = "active"
    DEPRECATED = "deprecated"
    DELETED = "deleted"


class VersionOp(models.TextChoices):
    ADD = "ADD"
    UPDATE = "UPDATE"
    DEPRECATE = "DEPRECATE"
    DELETE = "DELETE"


class Pipeline(models.TextChoices):
    ADD_NOTE = "add_note"
    ADD_EVENT = "add_event"


class FieldKind(models.TextChoices):
    SUMMARY = "summary"
    FACT = "fact"
    CONCEPT = "concept"


class SharedScope(models.TextChoices):
    PROJECT_SHARED = "project_shared"
    ORG_SHARED = "org_shared"


class GranteeKind(models.TextChoices):
    AGENT = "agent"
    PROJECT = "project"


class MemoryNote(models.Model):
    note_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    agent_id = models.TextField()
    scope = models.TextField(choices=choices_of(Scope))
    type = models.TextField(choices=choices_of(NoteType))
    key = models.TextField(null=True, blank=True)
    text = models.TextField()
    importance = models.FloatField()
    confidence = models.FloatField()
    status = models.TextField(choices=NoteStatus.choices)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())
    expires_at = models.DateTimeField(null=True, blank=True)
    embedding_version = models.TextField()
    source_ref = models.JSONField(default=dict)
    context = models.TextField(default="", blank=True)  # embedded with the text, not part of it (0006)
    observed_at = models.DateTimeField(null=True, blank=True)  # when it was stated, given by the writer (0008)
    hit_count = models.BigIntegerField(db_default=0)
    last_hit_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        managed = False
        db_table = "memory_notes"

    def __str__(self) -> str:
        label = self.key or self.text[:60]
        return f"{self.type} [{self.scope}/{self.status}] {label}"


class MemoryNoteChunk(models.Model):
    chunk_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    note = models.ForeignKey(
        MemoryNote, on_delete=models.DO_NOTHING, db_column="note_id", related_name="chunks"
    )
    chunk_index = models.IntegerField()
    start_offset = models.IntegerField()
    end_offset = models.IntegerField()
    text = models.TextField()
    embedding_version = models.TextField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "memory_note_chunks"

    def __str__(self) -> str:
        return f"chunk {self.chunk_index} of note {self.note_id}"


class NoteChunkEmbedding(StoredVector):
    pk = models.CompositePrimaryKey("chunk_id", "embedding_version")
    chunk = models.ForeignKey(
        MemoryNoteChunk, on_delete=models.DO_NOTHING, db_column="chunk_id", related_name="embeddings"
    )

    class Meta:
        managed = False
        db_table = "note_chunk_embeddings"

    def __str__(self) -> str:
        return f"chunk {self.chunk_id} @ {self.embedding_version} ({self.embedding_dim} dims)"


class NoteEmbedding(StoredVector):
    pk = models.CompositePrimaryKey("note_id", "embedding_version")
    note = models.ForeignKey(
        MemoryNote, on_delete=models.DO_NOTHING, db_column="note_id", related_name="embeddings"
    )

    class Meta:
        managed = False
        db_table = "note_embeddings"

    def __str__(self) -> str:
        return f"note {self.note_id} @ {self.embedding_version} ({self.embedding_dim} dims)"


class MemoryNoteVersion(models.Model):
    version_id = models.UUIDField(primary_key=True, default=uuid7)
    note_id = models.UUIDField()
    op = models.TextField(choices=VersionOp.choices)
    prev_snapshot = models.JSONField(null=True, blank=True)
    new_snapshot = models.JSONField(null=True, blank=True)
    reason = models.TextField()
    actor = models.TextField()
    ts = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "memory_note_versions"

    def __str__(self) -> str:
        return f"{self.op} note {self.note_id} by {self.actor}"


class MemoryHit(models.Model):
    hit_id = models.UUIDField(primary_key=True, default=uuid7)
    note_id = models.UUIDField()
    chunk_id = models.UUIDField(null=True, blank=True)
    query_hash = models.TextField()
    rank = models.IntegerField()
    final_score = models.FloatField()
    ts = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "memory_hits"

    def __str__(self) -> str:
        return f"hit note {self.note_id} rank {self.rank}"


class IndexingOutbox(models.Model):
    outbox_id = models.UUIDField(primary_key=True, default=uuid7)
    note_id = models.UUIDField()
    op = models.TextField(choices=choices_of(OutboxOp))
    embedding_version = models.TextField()
    status = models.TextField(choices=choices_of(OutboxStatus))
    attempts = models.IntegerField(db_default=0)
    last_error = models.TextField(null=True, blank=True)
    available_at = models.DateTimeField(db_default=Now())
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "indexing_outbox"
        verbose_name_plural = "indexing outbox"

    def __str__(self) -> str:
        return f"{self.op} note {self.note_id} [{self.status}, attempts {self.attempts}]"


class MemoryIngestDecision(models.Model):
    decision_id = models.UUIDField(primary_key=True, default=uuid7)
    tenant_id = models.TextField()
    project_id = models.TextField()
    agent_id = models.TextField()
    scope = models.TextField()
    pipeline = models.TextField(choices=Pipeline.choices)
    note_type = models.TextField()
    note_key = models.TextField(null=True, blank=True)
    note_id = models.UUIDField(null=True, blank=True)
    base_decision = models.TextField(choices=choices_of(Decision))
    policy_decision = models.TextField(choices=choices_of(Decision))
    note_op = models.TextField(choices=choices_of(NoteOp))
    reason_code = models.TextField(null=True, blank=True)
    details = models.JSONField()
    ts = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "memory_ingest_decisions"

    def __str__(self) -> str:
        reason = f" ({self.reason_code})" if self.reason_code else ""
        return f"{self.pipeline}: {self.base_decision} -> {self.policy_decision} / {self.note_op}{reason}"


class MemoryNoteField(models.Model):
    field_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    note = models.ForeignKey(
        MemoryNote,
        on_delete=models.DO_NOTHING,
        db_column="note_id",
        related_name="structured_fields",
    )
    field_kind = models.TextField(choices=FieldKind.choices)
    item_index = models.IntegerField()
    text = models.TextField()
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "memory_note_fields"

    def __str__(self) -> str:
        return f"{self.field_kind}[{self.item_index}] of note {self.note_id}"


class MemorySpaceGrant(models.Model):
    grant_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    scope = models.TextField(choices=SharedScope.choices)
    space_owner_agent_id = models.TextField()
    grantee_kind = models.TextField(choices=GranteeKind.choices)
    grantee_agent_id = models.TextField(null=True, blank=True)
    granted_by_agent_id = models.TextField()
    granted_at = models.DateTimeField(db_default=Now())
    revoked_by_agent_id = models.TextField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        managed = False
        db_table = "memory_space_grants"

    def __str__(self) -> str:
        grantee = self.grantee_agent_id if self.grantee_kind == GranteeKind.AGENT else "project"
        state = "revoked" if self.revoked_at else "active"
        return f"{self.scope} of {self.space_owner_agent_id} -> {grantee} ({state})"


class MemoryIngestionProfile(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    pipeline = models.TextField()
    profile_id = models.TextField()
    version = models.IntegerField()
    profile = models.JSONField()
    created_at = models.DateTimeField(db_default=Now())
    created_by = models.TextField()

    class Meta:
        managed = False
        db_table = "memory_ingestion_profiles"

    def __str__(self) -> str:
        return f"{self.pipeline} profile {self.profile_id} v{self.version}"


class MemoryIngestionProfileDefault(models.Model):
    pk = models.CompositePrimaryKey("tenant_id", "project_id", "pipeline")
    tenant_id = models.TextField()
    project_id = models.TextField()
    pipeline = models.TextField()
    profile_id = models.TextField()
    version = models.IntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "memory_ingestion_profile_defaults"

    def __str__(self) -> str:
        version = "latest" if self.version is None else f"v{self.version}"
        return f"{self.tenant_id}/{self.project_id} {self.pipeline} default: {self.profile_id} {version}"
