"""The Qdrant payload filter of the read rule's first cut, shared by the notes and the doc collections: the
tenant, active status (None: no status condition, as notes search, whose points are all active), and per allowed
scope its home (the caller's project, or the org space for org_shared)
and, for agent_private, the caller itself. Grants are checked in Postgres afterwards; this only narrows. And
the IDF corpus of a caller's BM25 queries: its project's points."""

from __future__ import annotations

from collections.abc import Iterable

from qdrant_client import models

from elf_domain.spaces import home_project
from elf_domain.vocabulary import Scope


def _match(key: str, value: str) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


LEXICAL_SCOPE = "lexical_scope"  # payload: "<tenant_id>\t<project_id>" (no identifier holds a tab)


def lexical_scope(tenant_id: str, project_id: str) -> str:
    """A point's ``lexical_scope`` payload: its tenant and (home) project in one keyword."""
    return f"{tenant_id}\t{project_id}"


READ_KEY = "read_key"  # notes payload: "<scope>\t<project_id>\t<agent_id for agent_private, else empty>"


def read_key(scope: str, project_id: str, agent_id: str) -> str:
    """A notes point's ``read_key``: who may find it, in one keyword (its scope, the project it is stored under
    and, for agent_private, its agent). A search matches its scopes' keys with one condition instead of three
    (elf_infra.index.notes_collection.read_filter)."""
    return f"{scope}\t{project_id}\t{agent_id if scope == Scope.AGENT_PRIVATE else ''}"


def read_keys(project_id: str, agent_id: str, scopes: Iterable[str]) -> list[str]:
    """The ``read_key`` of every point a caller of ``project_id`` and ``agent_id`` may find in ``scopes``: per
    scope its home (the caller's project, or the org space for org_shared) and, for agent_private, the caller."""
    return [read_key(s, home_project(project_id, s), agent_id) for s in scopes]


def idf_corpus(tenant_id: str, project_id: str) -> models.Filter:
    """The points whose term statistics a caller's BM25 reads (elf_infra.index.hybrid): its project's, named by
    one keyword condition (two conditions, tenant and project, cost Qdrant twice as much per query)."""
    return models.Filter(must=[_match(LEXICAL_SCOPE, lexical_scope(tenant_id, project_id))])


def scope_filter(*, tenant_id: str, project_id: str, agent_id: str, scopes: Iterable[str],
                 status: str | None = "active") -> models.Filter:
    should: list = []
    for scope in scopes:
        must = [_match("scope", scope), _match("project_id", home_project(project_id, scope))]
        if scope == Scope.AGENT_PRIVATE:
            must.append(_match("agent_id", agent_id))
        should.append(models.Filter(must=must))
    required = [_match("tenant_id", tenant_id)] + ([_match("status", status)] if status is not None else [])
    return models.Filter(must=required,
                         should=should or [_match("scope", "__none__")])
