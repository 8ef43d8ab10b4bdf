"""manage.py -c elf.toml export_openapi [--check]: write elf_mcp/openapi.json from the API's OpenAPI documents.

Run it after changing a request serializer, a view's parameters or a route; tests/mcp/test_mcp_openapi.py
fails until the checked-in file matches. ``--check`` writes nothing and exits 1 when the file is stale.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from elf_project.openapi_export import build_documents, render, target_path


class Command(BaseCommand):
    help = "Write elf_mcp/openapi.json (the public and admin OpenAPI documents elf-mcp builds its tools from)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--check", action="store_true",
                            help="write nothing; exit 1 when the checked-in file differs from the API's documents")

    def handle(self, *args, check: bool = False, **options) -> None:
        path = target_path()
        text = render(build_documents())
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if check:
            if current != text:
                raise CommandError(f"{path} is stale: run `manage.py -c elf.toml export_openapi` and commit it.")
            self.stdout.write(f"{path} is up to date.")
            return
        if current == text:
            self.stdout.write(f"{path} is up to date.")
            return
        path.write_text(text, encoding="utf-8")
        self.stdout.write(f"wrote {path}")
