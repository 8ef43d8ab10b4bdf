"""The event log's part of a tenant export (mechanics in elf_kernel.portability): events, their chunks,
decisions, tasks, artifacts, sessions and kept bundles. Kept bundles carry no project: a per-project export
takes those of the project's session ids. A decision names the one it supersedes and the one that superseded
it, so both links are set once every decision is in. Sensitivity-high values travel encrypted, as
stored: the importing service needs the exporting one's key file (``sealed_rows``; renamed tenants are
re-sealed)."""

from __future__ import annotations

from elf_kernel.portability import TableSpec, owned_by_tenant

from ..domain.vocabulary import DecisionStatus
from . import sealed_rows
from .sealed_rows import check_keys

__all__ = ["TABLES", "check_keys"]

OF_SESSIONS = ("t.tenant_id = %(tenant)s AND (%(project)s::text IS NULL OR t.session_id IN (SELECT s.session_id "
               "FROM acb_sessions s WHERE s.tenant_id = %(tenant)s AND s.project_id = %(project)s))")

TABLES = (
    TableSpec("acb_events", owned_by_tenant(), remap=sealed_rows.events),
    TableSpec("acb_chunks", owned_by_tenant(), remap=sealed_rows.chunks),
    TableSpec("acb_decisions", owned_by_tenant(), remap=sealed_rows.decisions,
              deferred={"supersedes": None, "superseded_by": None, "status": DecisionStatus.ACTIVE.value}),
    TableSpec("acb_tasks", owned_by_tenant(), remap=sealed_rows.tasks),
    TableSpec("acb_artifacts", owned_by_tenant(), remap=sealed_rows.artifacts),
    TableSpec("acb_sessions", owned_by_tenant()),
    TableSpec("acb_bundles", OF_SESSIONS, remap=sealed_rows.bundles),
)
