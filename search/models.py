"""Unmanaged models of the search tables: search sessions (spec v2 section 15) and the LLM response cache
(section 5.13 ``llm_cache``). The SQL files under ``sql/tables`` are the schema's source."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Now

from elf_domain.time_ids import uuid7


class SearchSession(models.Model):
    search_id = models.UUIDField(primary_key=True, default=uuid7)
    tenant_id = models.TextField()
    project_id = models.TextField()
    agent_id = models.TextField()
    read_profile = models.TextField()
    query = models.TextField()
    trace_id = models.UUIDField()
    items = models.JSONField()
    created_at = models.DateTimeField(db_default=Now())
    expires_at = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "search_sessions"

    def __str__(self) -> str:
        return f"search {self.search_id}: {self.query[:60]}"


class LlmCache(models.Model):
    cache_id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    cache_kind = models.TextField()
    cache_key = models.TextField()
    payload = models.JSONField()
    created_at = models.DateTimeField(db_default=Now())
    last_accessed_at = models.DateTimeField(db_default=Now())
    expires_at = models.DateTimeField()
    hit_count = models.BigIntegerField(db_default=0)

    class Meta:
        managed = False
        db_table = "llm_cache"
        verbose_name = "LLM cache entry"
        verbose_name_plural = "LLM cache entries"

    def __str__(self) -> str:
        return f"{self.cache_kind}:{self.cache_key[:16]}"
