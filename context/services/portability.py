"""The event log's part of a tenant export (mechanics in elf_kernel.portability): events, their chunks,
decisions, tasks, artifacts, sessions and kept bundles. Artifacts and bundles carry no project: a per-project
export takes those of the project's sessions. A decision names the one it supersedes and the one that
superseded it, so both links are set once every decision is in."""

from __future__ import annotations

from elf_kernel.portability import TableSpec, owned_by_tenant

OF_SESSIONS = ("t.tenant_id = %(tenant)s AND (%(project)s::text IS NULL OR t.session_id IN (SELECT s.session_id "
               "FROM acb_sessions s WHERE s.tenant_id = %(tenant)s AND s.project_id = %(project)s))")

TABLES = (
    TableSpec("acb_events", owned_by_tenant()),
    TableSpec("acb_chunks", owned_by_tenant()),
    TableSpec("acb_decisions", owned_by_tenant(),
              deferred={"supersedes": None, "superseded_by": None, "status": "active"}),
    TableSpec("acb_tasks", owned_by_tenant()),
    TableSpec("acb_artifacts", OF_SESSIONS),
    TableSpec("acb_sessions", owned_by_tenant()),
    TableSpec("acb_bundles", OF_SESSIONS),
)
