"""manage.py import_tenant -c elf.toml --in FILE [--tenant NEW]: load an export_tenant file into an empty tenant
of this database (its own name, or NEW), in one transaction, then queue the re-indexing of its notes and
documents (the worker builds the index; with exported vectors it embeds nothing). The report goes to stdout as
one JSON object; a refused import writes nothing and exits 1 with the reason."""

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

    def handle(self, *args, **options) -> None:
        try:
            if options["path"] == "-":
                report = import_tenant(cfg=get_config(), lines=sys.stdin, tenant_id=options["tenant"])
            else:
                with open(options["path"], encoding="utf-8") as lines:
                    report = import_tenant(cfg=get_config(), lines=lines, tenant_id=options["tenant"])
        except OSError as exc:
            raise CommandError(f"cannot read {options['path']}: {exc}") from None
        except ImportRefused as exc:
            raise CommandError(f"import refused, nothing was written: {exc}") from None
        self.stdout.write(json.dumps(report.as_dict()))
