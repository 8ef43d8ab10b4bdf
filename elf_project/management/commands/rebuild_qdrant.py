"""manage.py rebuild_qdrant -c elf.toml: restore the Qdrant notes and doc collections from Postgres vectors.

A progress bar per collection goes to stderr (``rebuild [...]`` for notes, ``rebuild docs [...]`` for
document chunks), the report to stdout as one JSON object:
``{"rebuilt_count": ..., "missing_vector_count": ..., "error_count": ..., "docs": {the same three}}`` (the
top-level counts are the notes'). The exit status is 1 when any point of either collection failed to
upsert, 0 otherwise (missing vectors are reported, not failures: the outboxes embed them).

``--read-keys`` does only what a rebuild ends with: every notes point without ``read_tag`` (written by an
earlier version) gets it, and ``read_key``, from its own payload, then the tag is indexed and searches use it
(elf_infra.index.read_keys); it reads no Postgres row. Its report: ``{"read_keys_added": ...}``.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, OutputWrapper

from elf_infra.index.notes_collection import key_reads
from elf_kernel.runtime import get_config
from elf_project.rebuild import rebuild_all
from memory.indexing.index import notes_index

BAR_WIDTH = 30


class ProgressBar:
    """``rebuild [#####---------]  512/1024 chunks`` redrawn in place on a terminal-like stream."""

    def __init__(self, out: OutputWrapper, label: str = "rebuild"):
        self._out = out
        self._label = label
        self._last = ""
        self._ended = False

    def update(self, done: int, total: int) -> None:
        filled = BAR_WIDTH if total == 0 else BAR_WIDTH * done // total
        line = f"{self._label} [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done:>{len(str(total))}}/{total} chunks"
        if line != self._last:
            self._out.write("\r" + line, ending="")
            self._out.flush()
            self._last = line

    def finish(self) -> None:
        if self._last and not self._ended:
            self._out.write("")  # ends the bar's line
            self._ended = True


class Command(BaseCommand):
    help = ("Rebuild the Qdrant notes and doc collections from the chunk vectors in Postgres "
            "(never calls the embedding provider).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--read-keys", action="store_true",
                            help="only give the notes points that lack it their read_tag (and read_key), "
                                 "then index the tag")

    def handle(self, *args, **options) -> None:
        cfg = get_config()
        if options["read_keys"]:
            notes_index(cfg).handle.ensure()  # creates a missing collection, and warns while points lack the key
            added = key_reads(cfg.storage.qdrant.url, cfg.storage.qdrant.collection)
            self.stdout.write(json.dumps({"read_keys_added": added}))
            return
        notes_bar, docs_bar = ProgressBar(self.stderr), ProgressBar(self.stderr, "rebuild docs")

        def docs_progress(done: int, total: int) -> None:
            notes_bar.finish()  # the notes bar's line ends before the docs bar starts
            docs_bar.update(done, total)

        report = rebuild_all(cfg=cfg, notes_progress=notes_bar.update, docs_progress=docs_progress)
        docs_bar.finish()
        self.stdout.write(json.dumps(report.as_dict()))
        if report.error_count:
            raise CommandError(f"{report.error_count} points could not be upserted; see the log above")
