"""Core memory's part of a tenant export (mechanics in elf_kernel.portability): PROFILE, SESSION and POLICY
documents with every version, their parsed entries, the audit trail (its audit_id is numbered anew by the
target database, in order) and the pending entries. A per-project export leaves out the tenant's POLICY
(project '')."""

from __future__ import annotations

from elf_kernel.portability import TableSpec, owned_by_tenant

TABLES = (
    TableSpec("core_memory_documents", owned_by_tenant()),
    TableSpec("core_memory_versions",
              f"t.doc_id IN (SELECT d.doc_id FROM core_memory_documents d WHERE {owned_by_tenant('d')})"),
    TableSpec("core_memory_entries", owned_by_tenant()),
    TableSpec("core_memory_audit", owned_by_tenant()),
    TableSpec("core_memory_pending", owned_by_tenant()),
)
