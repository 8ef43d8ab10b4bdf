"""The Qdrant payload filter of the read rule's first cut, shared by the notes and the doc collections: the
tenant, active status, and per allowed scope its home (the caller's project, or the org space for org_shared)
and, for agent_private, the caller itself. Grants are checked in Postgres afterwards; this only narrows."""

from __future__ import annotations

from collections.abc import Iterable

from qdrant_client import models

from elf_domain.spaces import home_project
from elf_domain.vocabulary import Scope


def _match(key: str, value: str) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def scope_filter(*, tenant_id: str, project_id: str, agent_id: str, scopes: Iterable[str],
                 status: str = "active") -> models.Filter:
    should: list = []
    for scope in scopes:
        must = [_match("scope", scope), _match("project_id", home_project(project_id, scope))]
        if scope == Scope.AGENT_PRIVATE:
            must.append(_match("agent_id", agent_id))
        should.append(models.Filter(must=must))
    return models.Filter(must=[_match("tenant_id", tenant_id), _match("status", status)],
                         should=should or [_match("scope", "__none__")])
