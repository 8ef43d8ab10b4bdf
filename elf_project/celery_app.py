"""The Celery app. Configured from the loaded elf.toml by ``configure``; tasks live in each app's tasks.py."""

from __future__ import annotations

from celery import Celery

from elf_config import ElfConfig

app = Celery("elf")


def configure(cfg: ElfConfig) -> Celery:
    from celery.schedules import crontab

    app.conf.update(
        # Beat, embedded in elf-worker. The outbox sweeps (notes, docs) claim due rows every 2 s; a sweep message
        # older than that is dropped (a newer one is queued). Lifecycle GC runs at the top of every hour (the spec says
        # daily; hourly keeps expiry within an hour of the TTL and each run small).
        beat_schedule={
            "memory-sweep-outbox": {"task": "memory.sweep_outbox", "schedule": 2.0, "options": {"expires": 2.0}},
            "docs-sweep-outbox": {"task": "docs_ext.sweep_outbox", "schedule": 2.0, "options": {"expires": 2.0}},
            "memory-lifecycle-gc": {
                "task": "memory.lifecycle_gc", "schedule": crontab(minute=0), "options": {"expires": 3000.0},
            },
            # Search traces: every second a sweep persists the traces searches queued (a search sends no task of
            # its own: traces.services.enqueue); retention (expired traces, candidates, settled outbox rows) and
            # expired llm_cache entries at a quarter past every hour, away from the lifecycle GC.
            "traces-sweep-outbox": {
                "task": "traces.sweep_trace_outbox", "schedule": 1.0, "options": {"expires": 1.0},
            },
            "traces-retention-cleanup": {
                "task": "traces.retention_cleanup", "schedule": crontab(minute=15), "options": {"expires": 3000.0},
            },
            "search-llm-cache-retention": {
                "task": "search.llm_cache_retention", "schedule": crontab(minute=15), "options": {"expires": 3000.0},
            },
            # Built context bundles (acb_bundles) past acb.bundle_retention_days, at 25 past every hour; events stay.
            "acb-bundle-retention": {
                "task": "acb.bundle_retention", "schedule": crontab(minute=25), "options": {"expires": 3000.0},
            },
        },
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
