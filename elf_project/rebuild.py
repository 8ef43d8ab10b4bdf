"""Rebuilding every derived Qdrant collection from Postgres vectors: the notes collection
(elf_project.rebuild_notes: one streaming read, upserts overlapping the reading) and the doc chunks' collection
(docs_ext.indexing.rebuild).

Composed here, in the composition root, because the two apps are siblings and may not import each other.
The report keeps the notes' three counts at the top level (the shape the endpoint has always had) and adds
the documents' under ``docs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docs_ext.indexing.rebuild import rebuild_docs
from elf_config import ElfConfig
from elf_infra.index.rebuild import Progress, RebuildReport

from .rebuild_notes import rebuild_notes


@dataclass(frozen=True)
class FullRebuildReport:
    notes: RebuildReport
    docs: RebuildReport

    @property
    def error_count(self) -> int:
        return self.notes.error_count + self.docs.error_count

    def as_dict(self) -> dict[str, Any]:
        return {**self.notes.as_dict(), "docs": self.docs.as_dict()}


def rebuild_all(
    *, cfg: ElfConfig, notes_progress: Progress | None = None, docs_progress: Progress | None = None
) -> FullRebuildReport:
    """Rebuild the notes collection, then the doc collection; neither calls the embedding provider."""
    notes = rebuild_notes(cfg=cfg, progress=notes_progress)
    docs = rebuild_docs(cfg=cfg, progress=docs_progress)
    return FullRebuildReport(notes=notes, docs=docs)
