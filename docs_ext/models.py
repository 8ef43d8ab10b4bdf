"""Unmanaged models mirroring the Doc Extension v1 tables of ``sql/tables``.

Chunks and chunk embeddings go with their document through the database's ``ON DELETE CASCADE``; outbox
rows have no foreign key so that DELETE jobs survive the rows they remove.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Now

from elf_domain.vocabulary import OutboxOp, OutboxStatus, Scope
from elf_kernel.model_bases import StoredVector, choices_of


class DocStatus(models.TextChoices):
    ACTIVE = "active"
    DELETED = "deleted"


class DocDocument(models.Model):
    doc_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    agent_id = models.TextField()
    scope = models.TextField(choices=choices_of(Scope))
    title = models.TextField(null=True, blank=True)
    source_ref = models.JSONField(null=True, blank=True)
    content = models.TextField()
    content_hash = models.TextField()
    content_bytes = models.IntegerField()
    status = models.TextField(choices=DocStatus.choices)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "doc_documents"
        verbose_name = "document"

    def __str__(self) -> str:
        return self.title or f"document {self.doc_id}"


class DocChunk(models.Model):
    chunk_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    doc = models.ForeignKey(
        DocDocument, on_delete=models.DO_NOTHING, db_column="doc_id", related_name="chunks"
    )
    chunk_index = models.IntegerField()
    start_offset = models.IntegerField()
    end_offset = models.IntegerField()
    chunk_text = models.TextField()
    chunk_hash = models.TextField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "doc_chunks"

    def __str__(self) -> str:
        return f"chunk {self.chunk_index} of document {self.doc_id}"


class DocChunkEmbedding(StoredVector):
    pk = models.CompositePrimaryKey("chunk_id", "embedding_version")
    chunk = models.ForeignKey(
        DocChunk, on_delete=models.DO_NOTHING, db_column="chunk_id", related_name="embeddings"
    )

    class Meta:
        managed = False
        db_table = "doc_chunk_embeddings"

    def __str__(self) -> str:
        return f"doc chunk {self.chunk_id} @ {self.embedding_version} ({self.embedding_dim} dims)"


class DocIndexingOutbox(models.Model):
    outbox_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    doc_id = models.UUIDField()
    chunk_id = models.UUIDField(null=True, blank=True)
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
        db_table = "doc_indexing_outbox"
        verbose_name_plural = "doc indexing outbox"

    def __str__(self) -> str:
        target = f"chunk {self.chunk_id}" if self.chunk_id else f"document {self.doc_id}"
        return f"{self.op} {target} [{self.status}, attempts {self.attempts}]"
