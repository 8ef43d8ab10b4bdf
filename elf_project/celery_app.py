"""The Celery app. Configured from the loaded elf.toml by ``configure``; tasks live in each app's tasks.py."""

from __future__ import annotations

from celery import Celery

from .config import ElfConfig

app = Celery("elf")


def configure(cfg: ElfConfig) -> Celery:
    app.conf.update(
        broker_url=cfg.worker.broker_url,
        broker_connection_retry_on_startup=True,
        task_ignore_result=True,
        result_backend=None,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        accept_content=["json"],
        timezone="UTC",
        enable_utc=True,
        beat_scheduler="celery.beat:Scheduler",  # in-memory: the outbox tables, not a schedule file, hold state
        worker_hijack_root_logger=False,
    )
    app.autodiscover_tasks(["elf_project", "memory", "traces", "docs_ext"])
    return app
