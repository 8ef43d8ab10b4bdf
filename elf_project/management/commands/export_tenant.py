"""manage.py export_tenant -c elf.toml --tenant T [--project P] [--with-vectors] [--out FILE]: one tenant's data
as JSON lines (elf_project.portability; the format is in elf_kernel.portability). The row count per record kind
goes to stderr as one JSON object."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from elf_kernel.runtime import get_config
from elf_project.portability import export_tenant


class Command(BaseCommand):
    help = "Export one tenant (or one project of it) as JSON lines: notes, graph, documents, core memory, event log."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--tenant", required=True, help="the tenant_id to export")
        parser.add_argument("--project", help="only this project_id of the tenant")
        parser.add_argument("--with-vectors", action="store_true",
                            help="include chunk vectors, so the import rebuilds the index without embedding")
        parser.add_argument("--out", help="file to write (default: stdout)")

    def handle(self, *args, **options) -> None:
        kwargs = {"cfg": get_config(), "tenant_id": options["tenant"], "project_id": options["project"],
                  "with_vectors": options["with_vectors"]}
        if options["out"] is None:
            counts = export_tenant(out=sys.stdout, **kwargs)
        else:
            path = Path(options["out"])
            partial = path.with_name(path.name + ".partial")
            try:
                with partial.open("w", encoding="utf-8") as out:
                    counts = export_tenant(out=out, **kwargs)
            except OSError as exc:
                raise CommandError(f"cannot write {path}: {exc}") from None
            partial.replace(path)  # a file at --out is always a complete export
        if not any(counts.values()):
            self.stderr.write(f"tenant {options['tenant']!r} has no data to export")
        self.stderr.write(json.dumps({"tenant_id": options["tenant"], "counts": counts}))
