"""The Qdrant payload filter of the read rule's first cut, shared by the notes and the doc collections: the
tenant, active status (None: no status condition, as notes search, whose points are all active), and per allowed
scope its home (the caller's project, or the org space for org_shared)
and, for agent_private, the caller itself. Grants are checked in Postgres afterwards; this only narrows. And
the IDF corpus of a caller's BM25 queries: its project's points."""

from __future__ import annotations

import hashlib
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
    and, for agent_private, its agent). Collections of the version before ``read_tag`` are searched by it until
    their points get their tags (elf_infra.index.notes_collection.read_filter, ``by="read_key"``)."""
    return f"{scope}\t{project_id}\t{agent_id if scope == Scope.AGENT_PRIVATE else ''}"


def read_keys(project_id: str, agent_id: str, scopes: Iterable[str]) -> list[str]:
    """The ``read_key`` of every point a caller of ``project_id`` and ``agent_id`` may find in ``scopes``: per
    scope its home (the caller's project, or the org space for org_shared) and, for agent_private, the caller."""
    return [read_key(s, home_project(project_id, s), agent_id) for s in scopes]


READ_TAG = "read_tag"  # notes payload: read_tag(tenant, scope, project, agent), an integer


def read_tag(tenant_id: str, scope: str, project_id: str, agent_id: str) -> int:
    """A notes point's ``read_tag``: its tenant and ``read_key`` as one signed 64-bit integer (the first 8 bytes of
    their BLAKE2b digest; never change it: stored points carry it). A search's first cut is one match of the
    caller's tags, and nothing else (elf_infra.index.notes_collection.read_filter): Qdrant checks the filter on
    every point its filtered search visits, and an integer is 8 bytes per point to look up where ``read_key`` is
    a string of 20-40 bytes with the tenant as a second condition (docs/benchmarks.md, "One integer read tag").
    Two owners sharing a tag would let one's candidates into the other's first cut, with odds of about 2^-64 a
    pair; Postgres re-validates every candidate against the read rule, tenant included
    (search.services.pipeline), so a shared tag could cost recall, never leak a note."""
    key = "\x1f".join((tenant_id, read_key(scope, project_id, agent_id)))
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)


def reader_fields(tenant_id: str, scope: str, project_id: str, agent_id: str) -> dict[str, str | int]:
    """Who may find a notes point, as its payload says it: ``read_key`` (what collections of the version before
    ``read_tag`` are searched by) and ``read_tag`` (what searches match). The one place both are derived, for a
    point written (notes_collection.chunk_point) and one given them later (read_keys)."""
    return {READ_KEY: read_key(scope, project_id, agent_id), READ_TAG: read_tag(tenant_id, scope, project_id, agent_id)}


def read_tags(tenant_id: str, project_id: str, agent_id: str, scopes: Iterable[str]) -> list[int]:
    """The ``read_tag`` of every point a caller may find in ``scopes`` (read_keys, with the tenant)."""
    return [read_tag(tenant_id, s, home_project(project_id, s), agent_id) for s in scopes]


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
