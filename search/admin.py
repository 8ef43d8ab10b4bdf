"""Operator admin for search: the LLM response cache (read-only; entries are written by expansion and rerank)."""

from django.contrib import admin

from elf_kernel.admin import ReadOnlyAdmin

from .models import LlmCache


@admin.register(LlmCache)
class LlmCacheAdmin(ReadOnlyAdmin):
    list_display = ("cache_kind", "cache_key", "hit_count", "created_at", "last_accessed_at", "expires_at")
    list_filter = ("cache_kind",)
    search_fields = ("cache_key",)
    ordering = ("-last_accessed_at",)
