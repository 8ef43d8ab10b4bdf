"""The one identity rule for routes whose caller ids sit in the body or the query string (the event log's
``/api/v1``, PRD 9.3): with static API keys the request's (tenant, project, agent) is its key's, and an id the
request states may only repeat it (403 FORBIDDEN naming each JSONPath that differs). With keys off, the stated ids
are the context (tenant and agent required; the project falls back to X-ELF-Project-Id, then a default).

The view takes the :class:`Caller` from the request and the :class:`StatedIds` from the validated body; the use
case's service resolves them into the :class:`~elf_kernel.context.RequestContext` every read rule takes.
"""

from __future__ import annotations

from dataclasses import dataclass

from elf_config.schema import AuthKeyConfig
from elf_domain.context_headers import AGENT, PROJECT, TENANT

from .auth import Forbidden, matched_key
from .context import RequestContext, context_problems, header_value, key_conflicts
from .errors import InvalidRequest

# The caller fields of a body or query and the context headers whose rules they follow (elf_kernel.context).
HEADER_OF = {"tenant_id": TENANT, "project_id": PROJECT, "agent_id": AGENT}
FIELD_OF = {header: field for field, header in HEADER_OF.items()}
CALLER_FIELDS = tuple(HEADER_OF)
NO_AGENT = ""  # a read without keys that names no agent


@dataclass(frozen=True)
class StatedIds:
    """The caller ids a body or query states (None: not stated), and where they sit (``$`` or ``$.query``)."""

    tenant_id: str | None = None
    project_id: str | None = None
    agent_id: str | None = None
    at: str = "$"

    @classmethod
    def of(cls, data: dict, at: str = "$") -> StatedIds:
        return cls(*(data.get(n) or None for n in CALLER_FIELDS), at=at)

    def path(self, name: str) -> str:
        return f"{self.at}.{name}"


@dataclass(frozen=True)
class Caller:
    """Who sends a request: its API key when keys are on (None when off), and its X-ELF-Project-Id header."""

    key: AuthKeyConfig | None
    header_project: str | None = None

    def context(self, stated: StatedIds, *, default_project: str, agent_required: bool = True) -> RequestContext:
        """The request's context: the key's when keys are on (every stated id must repeat it), else the stated
        ids (a read that no agent rule decides may leave the agent out: ``agent_required=False``, agent "").
        Raises Forbidden (403) or InvalidRequest (400), each naming the JSONPaths at fault."""
        if self.key is not None:
            return _bound_context(self.key, stated)
        required = ("tenant_id", "agent_id") if agent_required else ("tenant_id",)
        missing = [stated.path(n) for n in required if getattr(stated, n) is None]
        if missing:
            raise InvalidRequest(f"{' and '.join(required)} {'are' if len(required) > 1 else 'is'} required when the "
                                 "service runs without API keys.", missing)
        ctx = RequestContext(stated.tenant_id, stated.project_id or self.header_project or default_project,
                             stated.agent_id or NO_AGENT, None)
        given = {h: getattr(ctx, n) for n, h in HEADER_OF.items() if getattr(ctx, n) or n != "agent_id"}
        bad = context_problems(given)  # the header rules: identifier gate, the reserved org project
        if bad:
            raise InvalidRequest("Invalid request context: " + "; ".join(f"{FIELD_OF[h]} {why}" for h, why in
                                                                        bad.items()) + ".",
                                 [stated.path(FIELD_OF[h]) for h in bad])
        return ctx

    def require_own_agent(self, ctx: RequestContext, actor_type: str, actor_id: str, path: str) -> None:
        """With keys on, an actor of type agent is the key's agent: no key writes in another agent's name."""
        if self.key is not None and actor_type == "agent" and actor_id != ctx.agent_id:
            raise Forbidden("actor.id names another agent than the one of this API key.", [path])


def _bound_context(key: AuthKeyConfig, stated: StatedIds) -> RequestContext:
    differ = [FIELD_OF[h] for h in key_conflicts(key, {h: getattr(stated, n) for n, h in HEADER_OF.items()})]
    if differ:
        raise Forbidden(f"{', '.join(differ)} differ{'s' if len(differ) == 1 else ''} from the context of this API "
                        "key.", [stated.path(n) for n in differ])
    return RequestContext(key.tenant_id, key.project_id, key.agent_id, key.read_profile)


def caller_of(request) -> Caller:
    return Caller(matched_key(request), header_value(request, PROJECT))
