"""The fields every log line of the current request or task carries: request_id, tenant_id, project_id, agent_id.

A context variable holds them, so gunicorn's threads and Celery's tasks each see their own. The request id is a
client's ``X-Request-Id`` when that is printable ASCII of at most 128 characters, else a new uuid4 hex.
"""

from __future__ import annotations

import contextvars
import re
import uuid
from collections.abc import Mapping

MAX_REQUEST_ID_CHARS = 128
MAX_FIELD_CHARS = 128
CONTEXT_FIELDS = ("request_id", "tenant_id", "project_id", "agent_id")
_PRINTABLE_ASCII = re.compile(rf"[\x20-\x7e]{{1,{MAX_REQUEST_ID_CHARS}}}")

_fields: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("elf_log_fields", default=None)


def request_id_from(raw: str | None) -> str:
    """The client's request id when it is acceptable, else a fresh one."""
    if raw is not None and _PRINTABLE_ASCII.fullmatch(raw):
        return raw
    return uuid.uuid4().hex


def current_fields() -> dict[str, str]:
    """A copy of the current request's or task's fields (empty outside one)."""
    return dict(_fields.get() or {})


def bind(fields: Mapping[str, object]) -> contextvars.Token:
    """Start a request's or task's fields (the known CONTEXT_FIELDS only); ``unbind(token)`` when it ends."""
    return _fields.set(_clean(fields))


def update(fields: Mapping[str, object]) -> None:
    """Add fields to the current request's or task's (ignored outside one)."""
    current = _fields.get()
    if current is not None:
        current.update(_clean(fields))


def unbind(token: contextvars.Token) -> None:
    _fields.reset(token)


def _clean(fields: Mapping[str, object]) -> dict[str, str]:
    return {k: str(v)[:MAX_FIELD_CHARS] for k, v in fields.items() if k in CONTEXT_FIELDS and v not in (None, "")}
