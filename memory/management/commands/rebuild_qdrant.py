"""manage.py rebuild_qdrant -c elf.toml: restore the Qdrant notes index from Postgres vectors.

A progress bar goes to stderr, the report to stdout as one JSON object:
``{"rebuilt_count": ..., "missing_vector_count": ..., "error_count": ...}``. The exit status is 1 when any
point failed to upsert, 0 otherwise (missing vectors are reported, not failures: the outbox embeds them).
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, OutputWrapper

from elf_kernel.runtime import get_config
from memory.indexing.rebuild import rebuild_qdrant

BAR_WIDTH = 30


class ProgressBar:
    """``rebuild [#####---------]  512/1024 chunks`` redrawn in place on a terminal-like stream."""

    def __init__(self, out: OutputWrapper):
        self._out = out
        self._last = ""

    def update(self, done: int, total: int) -> None:
        filled = BAR_WIDTH if total == 0 else BAR_WIDTH * done // total
        line = f"rebuild [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done:>{len(str(total))}}/{total} chunks"
        if line != self._last:
            self._out.write("\r" + line, ending="")
            self._out.flush()
            self._last = line

    def finish(self) -> None:
        if self._last:
            self._out.write("")  # ends the bar's line


class Command(BaseCommand):
    help = "Rebuild the Qdrant notes index from the chunk vectors in Postgres (never calls the embedding provider)."

    def handle(self, *args, **options) -> None:
        bar = ProgressBar(self.stderr)
        report = rebuild_qdrant(cfg=get_config(), progress=bar.update)
        bar.finish()
        self.stdout.write(json.dumps(report.as_dict()))
        if report.error_count:
            raise CommandError(f"{report.error_count} points could not be upserted; see the log above")
