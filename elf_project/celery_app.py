"""The Celery app. Configured from the loaded elf.toml by ``configure``; tasks live in each app's tasks.py."""

from __future__ import annotations

from celery import Celery

from elf_config import ElfConfig

app = Celery("elf")


def beat_schedule() -> dict:
    """Beat, embedded in elf-worker: each entry is named by its task, whose name its app exports."""
    from celery.schedules import crontab

    from acb.tasks import BUNDLE_RETENTION_TASK
    from docs_ext.tasks import SWEEP_TASK as DOCS_SWEEP_TASK
    from memory.tasks import LIFECYCLE_TASK
    from memory.tasks import SWEEP_TASK as NOTES_SWEEP_TASK
    from search.tasks import LLM_CACHE_RETENTION_TASK
    from traces.tasks import RETENTION_TASK as TRACE_RETENTION_TASK
    from traces.tasks import SWEEP_TRACE_TASK

    hourly = {"expires": 3000.0}
    entries = [
        # The outbox sweeps (notes, docs) claim due rows every 2 s; a sweep message older than that is dropped (a
        # newer one is queued).
        (NOTES_SWEEP_TASK, 2.0, {"expires": 2.0}),
        (DOCS_SWEEP_TASK, 2.0, {"expires": 2.0}),
        # Lifecycle GC runs at the top of every hour (the spec says daily; hourly keeps expiry within an hour of the
        # TTL and each run small).
        (LIFECYCLE_TASK, crontab(minute=0), hourly),
        # Search traces: every second a sweep persists the traces searches queued (a search sends no task of its
        # own: traces.services.enqueue); retention (expired traces, candidates, settled outbox rows) and expired
        # llm_cache entries at a quarter past every hour, away from the lifecycle GC.
        (SWEEP_TRACE_TASK, 1.0, {"expires": 1.0}),
        (TRACE_RETENTION_TASK, crontab(minute=15), hourly),
        (LLM_CACHE_RETENTION_TASK, crontab(minute=15), hourly),
        # Built bundles (acb_bundles) past acb.bundle_retention_days, at 25 past every hour; events stay.
        (BUNDLE_RETENTION_TASK, crontab(minute=25), hourly),
    ]
    return {task: {"task": task, "schedule": schedule, "options": dict(options)} for task, schedule, options in entries}


def configure(cfg: ElfConfig) -> Celery:
    app.conf.update(
        beat_schedule=beat_schedule(),
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
        # A write never waits long on a broker that is down: the outbox sweep recovers undelivered tasks.
        task_publish_retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2},
        broker_transport_options={"socket_connect_timeout": 2, "socket_timeout": 5},
    )
    app.autodiscover_tasks(["elf_project", "memory", "traces", "search", "docs_ext", "acb"])
    # A task carries the request id (and tenant/project/agent) of the request that enqueued it into the worker's
    # JSON log lines; Celery keeps Django's LOGGING instead of adding handlers of its own.
    from elf_kernel.observability import task_context

    task_context.connect()
    return app
