"""Request context from the X-ELF-* headers (spec v2 section 15 header rules), or from the request's API key.

With ``security.auth_mode = "static_keys"`` the matched key (elf_kernel.auth) fixes tenant, project and agent
(and the read profile when the key names one): a context header may repeat the key's value but never differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from elf_config.identifiers import MAX_IDENTIFIER_CHARS, ORG_PROJECT_ID, identifier_problem
from elf_config.schema import AuthKeyConfig
from elf_domain.context_headers import AGENT, PROJECT, READ_PROFILE, TENANT

from .auth import Forbidden, matched_key
from .errors import InvalidRequest
from .runtime import get_config

MAX_HEADER_CHARS = MAX_IDENTIFIER_CHARS
# The same identifier rule applies to API key ids in elf.toml (elf_config.rules).
header_problem = identifier_problem


@dataclass(frozen=True)
class RequestContext:
    tenant_id: str
    project_id: str
    agent_id: str
    read_profile: str | None


def header_value(request, name: str) -> str | None:
    # WSGI hands headers over as latin-1 decoded bytes; re-decode as UTF-8 and reject what is not UTF-8.
    raw = request.META.get("HTTP_" + name.upper().replace("-", "_"))
    if raw is None:
        return None
    try:
        return raw.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return "\x00"  # fails the identifier gate: not valid UTF-8


def context_problems(values: dict[str, str | None]) -> dict[str, str]:
    """Why each bad context value is unacceptable, keyed by header name (TENANT, PROJECT, AGENT, READ_PROFILE):
    the identifier rule, the reserved org project id, a read profile the config does not define. The v1 API
    (ids in the body or query string) applies the same rules through this."""
    problems = {n: header_problem(v) for n, v in values.items()}
    if problems.get(PROJECT) is None and values.get(PROJECT) == ORG_PROJECT_ID:
        problems[PROJECT] = f"must not be the reserved project id {ORG_PROJECT_ID}"
    if problems.get(READ_PROFILE) is None and READ_PROFILE in values:
        profiles = get_config().scopes.read_profiles
        if values[READ_PROFILE] not in profiles:
            problems[READ_PROFILE] = "must be one of " + ", ".join(sorted(profiles))
    return {n: why for n, why in problems.items() if why}


def key_conflicts(key: AuthKeyConfig, values: dict[str, str | None]) -> list[str]:
    """The context values (keyed by header name) a request gave that differ from what its API key binds."""
    bound = {TENANT: key.tenant_id, PROJECT: key.project_id, AGENT: key.agent_id}
    if key.read_profile is not None:
        bound[READ_PROFILE] = key.read_profile
    return [n for n, v in values.items() if n in bound and v is not None and v != bound[n]]


def _raise_if_bad(values: dict[str, str | None]) -> None:
    bad = context_problems(values)
    if bad:
        message = "; ".join(f"{n} {why}" for n, why in bad.items())
        raise InvalidRequest(f"Invalid context headers: {message}.", [f"$.headers.{n}" for n in bad])


def context_from_request(request, *, require_read_profile: bool = False) -> RequestContext:
    """Validate the context headers; every bad header is reported at once as ``$.headers.<Name>``."""
    key = matched_key(request)
    if key is not None:
        return _context_from_key(request, key, require_read_profile=require_read_profile)
    names = [TENANT, PROJECT, AGENT] + ([READ_PROFILE] if require_read_profile else [])
    values = {n: header_value(request, n) for n in names}
    _raise_if_bad(values)
    return RequestContext(
        tenant_id=values[TENANT],
        project_id=values[PROJECT],
        agent_id=values[AGENT],
        read_profile=values.get(READ_PROFILE),
    )


def _context_from_key(request, key: AuthKeyConfig, *, require_read_profile: bool) -> RequestContext:
    names = [TENANT, PROJECT, AGENT] + ([READ_PROFILE] if key.read_profile is not None else [])
    conflicts = key_conflicts(key, {n: header_value(request, n) for n in names})
    if conflicts:
        raise Forbidden(
            f"{', '.join(conflicts)} differ{'s' if len(conflicts) == 1 else ''} from the context of this API key.",
            [f"$.headers.{n}" for n in conflicts],
        )
    read_profile = key.read_profile
    if read_profile is None and require_read_profile:
        read_profile = header_value(request, READ_PROFILE)
        _raise_if_bad({READ_PROFILE: read_profile})
    return RequestContext(
        tenant_id=key.tenant_id, project_id=key.project_id, agent_id=key.agent_id, read_profile=read_profile
    )
