"""Request context from the X-ELF-* headers (spec v2 section 15 header rules)."""

from __future__ import annotations

from dataclasses import dataclass

from memory.domain.english_gate import passes_identifier_gate

from .errors import InvalidRequest
from .runtime import get_config

MAX_HEADER_CHARS = 128
ORG_PROJECT_ID = "__org__"  # reserved: org_shared notes are stored under this project (supplement section 7)
TENANT, PROJECT, AGENT, READ_PROFILE = (
    "X-ELF-Tenant-Id",
    "X-ELF-Project-Id",
    "X-ELF-Agent-Id",
    "X-ELF-Read-Profile",
)


@dataclass(frozen=True)
class RequestContext:
    tenant_id: str
    project_id: str
    agent_id: str
    read_profile: str | None


def header_problem(value: str | None) -> str | None:
    """Why a context header value is unacceptable, or None when it is fine."""
    if value is None:
        return "is required"
    if not value.strip():
        return "must be non-empty"
    if len(value) > MAX_HEADER_CHARS:
        return f"must be at most {MAX_HEADER_CHARS} characters"
    if not passes_identifier_gate(value):
        return "must be an English identifier (Latin script, no control or zero-width characters)"
    return None


def _header(request, name: str) -> str | None:
    # WSGI hands headers over as latin-1 decoded bytes; re-decode as UTF-8 and reject what is not UTF-8.
    raw = request.META.get("HTTP_" + name.upper().replace("-", "_"))
    if raw is None:
        return None
    try:
        return raw.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return "\x00"  # fails the identifier gate: not valid UTF-8


def context_from_request(request, *, require_read_profile: bool = False) -> RequestContext:
    """Validate the context headers; every bad header is reported at once as ``$.headers.<Name>``."""
    names = [TENANT, PROJECT, AGENT] + ([READ_PROFILE] if require_read_profile else [])
    values = {n: _header(request, n) for n in names}
    problems = {n: header_problem(v) for n, v in values.items()}
    if require_read_profile and problems[READ_PROFILE] is None:
        profiles = get_config().scopes.read_profiles
        if values[READ_PROFILE] not in profiles:
            problems[READ_PROFILE] = "must be one of " + ", ".join(sorted(profiles))
    if problems[PROJECT] is None and values[PROJECT] == ORG_PROJECT_ID:
        problems[PROJECT] = f"must not be the reserved project id {ORG_PROJECT_ID}"
    bad = {n: why for n, why in problems.items() if why}
    if bad:
        message = "; ".join(f"{n} {why}" for n, why in bad.items())
        raise InvalidRequest(f"Invalid context headers: {message}.", [f"$.headers.{n}" for n in bad])
    return RequestContext(
        tenant_id=values[TENANT],
        project_id=values[PROJECT],
        agent_id=values[AGENT],
        read_profile=values.get(READ_PROFILE),
    )
