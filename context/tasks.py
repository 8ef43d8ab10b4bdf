"""Celery tasks of the context app: thin wrappers over its services (scheduled by elf_project.celery_app)."""

from __future__ import annotations

from celery import shared_task

from elf_kernel.runtime import get_config

from .services.retention import purge_bundles

BUNDLE_RETENTION_TASK = "context.bundle_retention"


@shared_task(name=BUNDLE_RETENTION_TASK, acks_late=True, ignore_result=True)
def bundle_retention() -> dict:
    """Delete built bundles older than acb.bundle_retention_days (never events: the log is append-only)."""
    return purge_bundles(cfg=get_config()).as_dict()
