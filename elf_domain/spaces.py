"""Shared spaces (spec v2 section 15, supplement section 7): public space names, their scopes, and where a
scope's notes live. Pure rules, no I/O."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import StrEnum

from .vocabulary import Scope


class Space(StrEnum):
    """A shared space's public name: team_shared is the public alias of the project_shared scope."""

    TEAM_SHARED = "team_shared"
    ORG_SHARED = "org_shared"


# The note scopes by their older names here (plain strings, as the importers compare and render them).
AGENT_PRIVATE, PROJECT_SHARED, ORG_SHARED = (s.value for s in (Scope.AGENT_PRIVATE, Scope.PROJECT_SHARED,
                                                              Scope.ORG_SHARED))
ORG_PROJECT_ID = "__org__"  # org_shared notes and grants live under this reserved project id

SPACES = tuple(s.value for s in Space)
SPACE_SCOPES = {Space.TEAM_SHARED.value: PROJECT_SHARED, Space.ORG_SHARED.value: ORG_SHARED}
SCOPE_SPACES = {scope: space for space, scope in SPACE_SCOPES.items()}
# a request's scope may name project_shared by its public alias
SCOPE_ALIASES = {Space.TEAM_SHARED.value: PROJECT_SHARED}


def home_project(project_id: str, scope: str) -> str:
    """The project a note of ``scope`` written from ``project_id`` is stored under."""
    return ORG_PROJECT_ID if scope == ORG_SHARED else project_id


def scope_writable(scope: str, allowed: Collection[str], write_allowed: Mapping[str, bool]) -> bool:
    """The one write rule for notes and documents alike: ``scope`` is in ``scopes.allowed`` and its
    ``[scopes.write_allowed]`` value is true (a scope missing from the table is not writable). add_note
    rejects a note failing it with REJECT_SCOPE_DENIED; single-object writes answer 403 SCOPE_DENIED."""
    return scope in allowed and bool(write_allowed.get(scope, False))


def scope_of_space(space: str) -> str | None:
    return SPACE_SCOPES.get(space)
