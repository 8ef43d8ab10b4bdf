"""Shared spaces (spec v2 section 15, supplement section 7): public space names, their scopes, and where a
scope's notes live. Pure rules, no I/O."""

from __future__ import annotations

from collections.abc import Collection, Mapping

AGENT_PRIVATE, PROJECT_SHARED, ORG_SHARED = "agent_private", "project_shared", "org_shared"
ORG_PROJECT_ID = "__org__"  # org_shared notes and grants live under this reserved project id

SPACE_SCOPES = {"team_shared": PROJECT_SHARED, "org_shared": ORG_SHARED}  # team_shared: public alias
SCOPE_SPACES = {scope: space for space, scope in SPACE_SCOPES.items()}
SCOPE_ALIASES = {"team_shared": PROJECT_SHARED}  # a request's scope may name project_shared by its public alias


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
