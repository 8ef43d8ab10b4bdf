"""Pure rules of graph memory (supplement section 2): name normalisation, predicate scope keys and their
precedence, the predicate status moves, and a fact's temporal state at a time. No Django, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

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


def project_key(project_id: str) -> str:
    return f"__project__:{project_id}"


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


def check_predicate_change(*, scope_key: str, current: str, new_status: str | None) -> MoveRefusal | None:
    """None when a predicate may change (status and/or cardinality) from ``current`` to ``new_status``."""
    if scope_key == GLOBAL_SCOPE_KEY:
        return MoveRefusal(403, "FORBIDDEN", "Global predicates are immutable.")
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
