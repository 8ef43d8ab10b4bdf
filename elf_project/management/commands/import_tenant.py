"""manage.py import_tenant -c elf.toml --in FILE [--tenant NEW] [--index-now]: load an export_tenant file into an
empty tenant of this database (its own name, or NEW), in one transaction, then queue the re-indexing of its notes
and documents (the worker builds the index; with exported vectors it embeds nothing). ``--index-now`` (the bulk
path) upserts the notes' points from their imported vectors right after the import commits, and queues only the
notes without one. The report goes to stdout as one JSON object; a refused import writes nothing and exits 1
with the reason; points Qdrant refused with --index-now exit 1 too (the rows are in: run rebuild_qdrant)."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from elf_kernel.runtime import get_config
from elf_project.portability import ImportRefused, import_tenant


class Command(BaseCommand):
    help = "Import an export_tenant file into an empty tenant (renamed with --tenant)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--in", dest="path", required=True, help="the export file ('-' for stdin)")
        parser.add_argument("--tenant", help="import under this tenant_id instead of the exported one")
        parser.add_argument("--index-now", action="store_true",
                            help="upsert the notes' points from the imported vectors once the import commits, "
                                 "instead of queueing them for the worker (bulk loads)")

    def handle(self, *args, **options) -> None:
        kwargs = {"tenant_id": options["tenant"], "index_now": options["index_now"]}
        try:
            if options["path"] == "-":
                report = import_tenant(cfg=get_config(), lines=sys.stdin, **kwargs)
            else:
                with open(options["path"], encoding="utf-8") as lines:
                    report = import_tenant(cfg=get_config(), lines=lines, **kwargs)
        except OSError as exc:
            raise CommandError(f"cannot read {options['path']}: {exc}") from None
        except ImportRefused as exc:
            raise CommandError(f"import refused, nothing was written: {exc}") from None
        self.stdout.write(json.dumps(report.as_dict()))
        if report.indexed is not None and report.indexed.error_count:
            raise CommandError(f"imported, but {report.indexed.error_count} points could not be upserted (see the "
                               "log above): run manage.py rebuild_qdrant")
