"""One JSON object per log line, for elf-api (Django and gunicorn) and elf-worker (Celery).

Every line has ts, level, logger and message, the current request's or task's fields (elf_kernel.observability
.log_context) and whatever a caller passed as ``extra={"elf": {...}}`` (method, route, status, duration_ms ...).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from .log_context import current_fields

EXTRA_ATTR = "elf"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        out.update(current_fields())
        out.update(getattr(record, EXTRA_ATTR, None) or {})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, default=str)


def logging_config(level: str) -> dict:
    """The dictConfig of every ELF process: JSON lines on stderr at ``level`` (service.log_level)."""
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.db.backends": {"level": "WARNING"},
            # Every request is logged once, as JSON, by elf_kernel.observability.request_log: not again by gunicorn
            # or by Django's own 4xx/5xx warnings.
            "gunicorn.access": {"level": "WARNING", "handlers": [], "propagate": True},
            "gunicorn.error": {"level": level, "handlers": [], "propagate": True},
            "django.request": {"level": "ERROR"},
            # The outbox sweep runs every 2 s: keep its per-run lines out of info logs.
            "celery.beat": {"level": "WARNING"},
            "celery.app.trace": {"level": "WARNING"},
            "celery.worker.strategy": {"level": "WARNING"},
            "httpx": {"level": "WARNING"},
        },
    }
