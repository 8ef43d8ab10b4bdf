"""Celery tasks of the acb app: thin wrappers over its services (scheduled by elf_project.celery_app)."""

from __future__ import annotations

from celery import shared_task

from elf_kernel.runtime import get_config

from .services.retention import purge_bundles

# Was "context.bundle_retention" before the app was renamed (issue 34). Beat sends it hourly and each message
# expires within the hour, so a message of the old name still queued at an upgrade is only dropped (logged as an
# unregistered task) and the next hour's run does its work.
BUNDLE_RETENTION_TASK = "acb.bundle_retention"


@shared_task(name=BUNDLE_RETENTION_TASK, acks_late=True, ignore_result=True)
def bundle_retention() -> dict:
    """Delete built bundles older than acb.bundle_retention_days (never events: the log is append-only)."""
    return purge_bundles(cfg=get_config()).as_dict()
