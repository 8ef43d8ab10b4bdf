"""Pure rules of graph memory (supplement section 2): name normalisation, predicate scope keys and their
precedence, the predicate status moves, a fact's temporal state at a time, and which older facts a new fact may
supersede. No Django, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from elf_domain.vocabulary import Scope

GLOBAL_SCOPE_KEY = "__global__"
_SPACES = re.compile(r"\s+")


class Cardinality(StrEnum):
    SINGLE = "single"
    MULTI = "multi"


class PredicateStatus(StrEnum):
    PENDING = "pending"
    ACTIVE = "active"
    DEPRECATED = "deprecated"


class FactState(StrEnum):
    CURRENT = "current"
    HISTORICAL = "historical"
    FUTURE = "future"


# Allowed status moves; deprecated is final.
STATUS_MOVES = {
    (PredicateStatus.PENDING, PredicateStatus.ACTIVE),
    (PredicateStatus.PENDING, PredicateStatus.DEPRECATED),
    (PredicateStatus.ACTIVE, PredicateStatus.DEPRECATED),
}


def normalize(name: str) -> str:
    """Canonical names and aliases: trim, collapse whitespace to one space, lowercase."""
    return _SPACES.sub(" ", name).strip().lower()


def tenant_project_key(tenant_id: str, project_id: str) -> str:
    return f"{tenant_id}:{project_id}"


PROJECT_SCOPE_PREFIX = "__project__:"


def project_key(project_id: str) -> str:
    return f"{PROJECT_SCOPE_PREFIX}{project_id}"


def resolution_order(tenant_id: str, project_id: str) -> tuple[str, str, str]:
    """Predicate scope keys from the most to the least specific: tenant:project > __project__:project >
    __global__."""
    return tenant_project_key(tenant_id, project_id), project_key(project_id), GLOBAL_SCOPE_KEY


@dataclass(frozen=True)
class MoveRefusal:
    """Why a predicate change is refused: ``status`` is the HTTP status (403 global, 409 deprecated, 400
    a move that is not allowed)."""

    status: int
    code: str
    message: str


def check_predicate_change(*, scope_key: str, current: str, new_status: str | None,
                           by_tenant_key: bool = False) -> MoveRefusal | None:
    """None when a predicate may change (status and/or cardinality) from ``current`` to ``new_status``.

    ``by_tenant_key``: the change comes through the API (with a key or context headers), which speaks for one
    tenant. A ``__global__`` predicate is every tenant's and a ``__project__:p`` one every tenant's project ``p``,
    so the API changes neither (global ones are immutable there, spec supplement section 2); only an operator in
    the Django admin does (deprecating a shipped predicate that does not fit a deployment, issue 32): the API
    never changes what belongs to another tenant."""
    if scope_key == GLOBAL_SCOPE_KEY and by_tenant_key:
        return MoveRefusal(403, "FORBIDDEN", "Global predicates are immutable through the API: an operator changes "
                           "them in the Django admin.")
    if by_tenant_key and scope_key.startswith(PROJECT_SCOPE_PREFIX):
        return MoveRefusal(403, "FORBIDDEN", "This predicate is shared by every tenant's project of this id: an "
                           "operator changes it in the Django admin, not an API key.")
    if current == PredicateStatus.DEPRECATED:
        return MoveRefusal(409, "PREDICATE_DEPRECATED", "Deprecated predicates cannot be modified.")
    if new_status is not None and new_status != current and (current, new_status) not in STATUS_MOVES:
        return MoveRefusal(400, "INVALID_REQUEST", f"A predicate cannot move from {current} to {new_status}.")
    return None


def fact_state(valid_from: datetime, valid_to: datetime | None, at: datetime) -> FactState:
    """current: valid_from <= at < valid_to (or open); historical: valid_to <= at; future: valid_from > at."""
    if valid_from > at:
        return FactState.FUTURE
    if valid_to is not None and valid_to <= at:
        return FactState.HISTORICAL
    return FactState.CURRENT


@dataclass(frozen=True)
class EvidenceReach:
    """An older fact's evidence as seen by the writer of a new fact: ``total`` evidence notes, of which
    ``readable`` the writer may read under the notes' one read rule (memory.selectors ``readable_by``, whatever
    the note's status) and ``own`` are the writer's own notes."""

    total: int
    readable: int
    own: int


def may_supersede(*, scope: str, older: EvidenceReach) -> bool:
    """Whether a new open fact of a single-valued predicate may close (or be closed by) an older open fact of
    the same (tenant, project, scope, subject, predicate) (issue 31): a write never changes the state of a fact
    its writer cannot read.

    - ``agent_private``: only a fact whose every evidence note is the writer's own (its agent_private notes in
      that home; the key already fixes home and scope). Another agent's private fact is never touched, even
      when it states the same thing.
    - ``project_shared`` / ``org_shared``: only a fact whose every evidence note (notes of that home and scope
      space) the writer may read; a fact that also rests on a note the writer cannot read is left as it is.
    - A fact without evidence is no one's to close.
    """
    if older.total <= 0:
        return False
    if scope == Scope.AGENT_PRIVATE:
        return older.own == older.total
    return older.readable == older.total
