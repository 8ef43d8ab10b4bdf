"""Unmanaged models mirroring the core memory tables of ``sql/tables`` (032-036)."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Now

from elf_kernel.model_bases import choices_of

from .domain.vocabulary import FILE_NAMES, Kind, MemoryScope, Source


class PendingStatus(models.TextChoices):
    PENDING = "pending"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class CoreMemoryDocument(models.Model):
    doc_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField(blank=True, help_text="empty for POLICY.md (the tenant's)")
    scope = models.TextField(choices=choices_of(MemoryScope))
    run_id = models.TextField(blank=True, help_text="empty unless SESSION.md")
    version = models.IntegerField()
    content = models.TextField(blank=True)
    run_ended_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "core_memory_documents"
        verbose_name = "core memory document"

    def __str__(self) -> str:
        name = FILE_NAMES[MemoryScope(self.scope)]
        where = self.tenant_id if self.scope == "policy" else f"{self.tenant_id}/{self.project_id}"
        return f"{name} of {where}" + (f" run {self.run_id}" if self.run_id else "") + f" (v{self.version})"


class CoreMemoryVersion(models.Model):
    version_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    doc = models.ForeignKey(CoreMemoryDocument, on_delete=models.DO_NOTHING, db_column="doc_id",
                            related_name="versions")
    version = models.IntegerField()
    content = models.TextField(blank=True)
    actor = models.TextField()
    reason = models.TextField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        managed = False
        db_table = "core_memory_versions"

    def __str__(self) -> str:
        return f"v{self.version} of {self.doc_id}"


class CoreMemoryEntry(models.Model):
    pk = models.CompositePrimaryKey("doc_id", "line_no")
    doc = models.ForeignKey(CoreMemoryDocument, on_delete=models.DO_NOTHING, db_column="doc_id",
                            related_name="entries")
    line_no = models.IntegerField()
    tenant_id = models.TextField()
    project_id = models.TextField()
    scope = models.TextField(choices=choices_of(MemoryScope))
    run_id = models.TextField()
    key = models.TextField()
    kind = models.TextField(choices=choices_of(Kind))
    value = models.TextField()
    priority = models.IntegerField()
    ttl = models.TextField()
    source = models.TextField(choices=choices_of(Source))
    updated_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True)
    until_session_end = models.BooleanField()

    class Meta:
        managed = False
        db_table = "core_memory_entries"
        verbose_name_plural = "core memory entries"

    def __str__(self) -> str:
        return f"{self.scope}:{self.key}"


class CoreMemoryAudit(models.Model):
    audit_id = models.BigAutoField(primary_key=True)
    ts = models.DateTimeField(db_default=Now())
    tenant_id = models.TextField()
    project_id = models.TextField()
    scope = models.TextField(choices=choices_of(MemoryScope))
    run_id = models.TextField(null=True)
    op = models.TextField()
    key = models.TextField(null=True)
    old_value = models.TextField(null=True)
    new_value = models.TextField(null=True)
    actor = models.TextField()
    reason = models.TextField()
    doc_version = models.IntegerField(null=True)

    class Meta:
        managed = False
        db_table = "core_memory_audit"
        verbose_name = "core memory audit row"

    def __str__(self) -> str:
        return f"#{self.audit_id} {self.op} {self.scope}:{self.key or '-'}"

    def as_line(self) -> dict:
        """The spec's audit line (core-memory-markdown section 9), plus its id, run and document version."""
        return {"ts": self.ts.isoformat().replace("+00:00", "Z"), "op": self.op, "scope": self.scope, "key": self.key,
                "old": self.old_value, "new": self.new_value, "actor": self.actor, "reason": self.reason,
                "run_id": self.run_id, "audit_id": self.audit_id, "doc_version": self.doc_version}


class CoreMemoryPending(models.Model):
    entry_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    tenant_id = models.TextField()
    project_id = models.TextField()
    run_id = models.TextField()
    scope = models.TextField(choices=choices_of(MemoryScope))
    kind = models.TextField(choices=choices_of(Kind))
    key = models.TextField()
    value = models.TextField()
    priority = models.IntegerField()
    ttl = models.TextField()
    source = models.TextField(choices=choices_of(Source))
    confidence = models.FloatField(null=True)
    reason = models.TextField()
    status = models.TextField(choices=PendingStatus.choices)
    created_at = models.DateTimeField(db_default=Now())
    decided_at = models.DateTimeField(null=True)

    class Meta:
        managed = False
        db_table = "core_memory_pending"
        verbose_name = "pending core memory entry"
        verbose_name_plural = "pending core memory entries"

    def __str__(self) -> str:
        return f"{self.status} {self.scope}:{self.key}"
