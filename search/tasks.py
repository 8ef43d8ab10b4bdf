"""Celery tasks of the search app: thin wrappers over its services."""

from __future__ import annotations

from celery import shared_task

from .services.llm_cache import purge_expired

LLM_CACHE_RETENTION_TASK = "search.llm_cache_retention"


@shared_task(name=LLM_CACHE_RETENTION_TASK, acks_late=True, ignore_result=True)
def llm_cache_retention() -> int:
    """Delete expired llm_cache entries (expansion and rerank replies)."""
    return purge_expired()
