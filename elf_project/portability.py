"""Export one tenant to JSON lines and import it into this or another database (manage.py export_tenant and
import_tenant). Composed here, in the composition root: each app lists its tables in its
``services/portability.py``, the rows move through elf_kernel.portability, and the order below is the
foreign-key order (graph evidence points at notes, so memory comes first).

Not exported: what is derived or short-lived and rebuilt on demand: the indexing outboxes (an import queues
its own work), search sessions, traces and the LLM cache. Vectors only with ``with_vectors``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TextIO

from django.db import connection, transaction

from acb.services import portability as acb_part
from core_memory.services import portability as core_memory_part
from docs_ext.services import portability as docs_part
from elf_config import ElfConfig
from elf_infra.index.rebuild import RebuildReport
from elf_kernel import portability as rows
from elf_kernel.portability import ImportRefused
from graph.services import portability as graph_part
from memory.services import portability as memory_part

from .db_init import VERSION_TABLE
from .rebuild_notes import rebuild_notes

SPECS = (*memory_part.TABLES, *docs_part.TABLES, *graph_part.TABLES, *core_memory_part.TABLES,
         *acb_part.TABLES)

__all__ = ["ImportRefused", "ImportReport", "export_tenant", "import_tenant"]


@dataclass(frozen=True)
class ImportReport:
    tenant_id: str
    project_id: str | None
    counts: dict[str, int]
    notes_queued: int
    docs_queued: int
    indexed: RebuildReport | None = None  # with index_now: the notes' points upserted by the import itself

    def as_dict(self) -> dict:
        report = {"tenant_id": self.tenant_id, "project_id": self.project_id, "counts": self.counts,
                  "reindex": {"notes": self.notes_queued, "docs": self.docs_queued}}
        if self.indexed is not None:
            report["indexed"] = self.indexed.as_dict()
        return report


def export_tenant(*, cfg: ElfConfig, out: TextIO, tenant_id: str, project_id: str | None,
                  with_vectors: bool) -> dict[str, int]:
    """Write the tenant's rows (of one project, when given) to ``out`` from one consistent snapshot; returns
    the row count per record kind."""
    with transaction.atomic():
        rows.snapshot()
        header = {"tenant_id": tenant_id, "project_id": project_id, "with_vectors": with_vectors,
                  "schema_version": _schema_version(), "embedding_version": cfg.embedding_version,
                  "vector_dim": cfg.storage.qdrant.vector_dim,
                  "exported_at": datetime.now(UTC).isoformat()}
        return rows.export_rows(SPECS, out, header=header, tenant=tenant_id, project=project_id,
                                with_vectors=with_vectors)


def import_tenant(*, cfg: ElfConfig, lines: Iterable[str], tenant_id: str | None = None,
                  index_now: bool = False) -> ImportReport:
    """Import an export into the tenant it names, or into ``tenant_id``, in one transaction; then queue the
    re-indexing of its notes and documents, and ANALYZE the tables it wrote (fresh planner statistics, so the
    first searches of a large import are planned for its size). Raises :class:`ImportRefused` (nothing written)
    when the file does not fit this database or the target tenant already holds data.

    ``index_now`` (the bulk path): only the notes without a vector of the configured embedding version are
    queued; once the import has committed, the others' points are upserted here from their imported vectors
    (elf_project.rebuild_notes, this tenant only), a million notes in minutes where the worker, note by note,
    takes about an hour. Points Qdrant refused are counted in ``indexed.error_count``: the rows are in,
    ``manage.py rebuild_qdrant`` indexes them."""
    header, records = rows.read_header(lines)
    old, project = header.get("tenant_id"), header.get("project_id")
    if not isinstance(old, str) or not old or not (project is None or isinstance(project, str)):
        raise ImportRefused("the export header names no tenant")
    new = tenant_id or old
    with transaction.atomic():
        _check_fits(cfg, header)
        holding = rows.target_has_rows(SPECS, tenant=new, project=project)
        if holding:
            where = f"tenant {new!r}" + (f" (project {project!r})" if project else "")
            raise ImportRefused(
                f"{where} already holds data ({', '.join(holding)}); import into an empty tenant: pass "
                "--tenant with a new name, or use another database"
            )
        counts = rows.import_rows(SPECS, records, old_tenant=old, new_tenant=new)
        acb_part.check_keys(new)  # sensitivity-high rows: sealed under this service's key (or refused)
        version = cfg.embedding_version
        notes = memory_part.reindex_imported(tenant_id=new, project_id=project, embedding_version=version,
                                             only_without_vectors=index_now)
        docs = docs_part.reindex_imported(tenant_id=new, project_id=project, embedding_version=version)
    rows.analyze_imported(SPECS, counts)
    indexed = rebuild_notes(cfg=cfg, tenant_id=new, project_id=project) if index_now else None
    return ImportReport(new, project, counts, notes, docs, indexed)


def _check_fits(cfg: ElfConfig, header: dict) -> None:
    exported_at, current = header.get("schema_version"), _schema_version()
    if not isinstance(exported_at, int) or exported_at > current:
        raise ImportRefused(
            f"the file was exported at schema version {exported_at} and this database is at {current}: "
            "upgrade this installation to the exporting release (or newer) first"
        )
    dim = cfg.storage.qdrant.vector_dim
    if header.get("with_vectors") and header.get("vector_dim") != dim:
        raise ImportRefused(
            f"the file's vectors have {header.get('vector_dim')} dimensions and this database {dim}: "
            "export again without --with-vectors (the worker then embeds the notes anew)"
        )


def _schema_version() -> int:
    with connection.cursor() as cur:
        cur.execute(f"SELECT COALESCE(max(version), 0) FROM {VERSION_TABLE}")
        return cur.fetchone()[0]
