"""manage.py -c elf.toml acb_rebuild_chunks [--tenant T]: derive the event chunks again from the event log."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from acb.services.rebuild import rebuild_chunks


class Command(BaseCommand):
    help = "Drop the event log's chunks (of one tenant, or all) and derive them again from the events."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--tenant", help="only this tenant's chunks")

    def handle(self, *args, tenant=None, **options) -> None:
        events, chunks = rebuild_chunks(tenant_id=tenant)
        self.stdout.write(f"rebuilt {chunks} chunks from {events} events" + (f" of tenant {tenant}" if tenant else ""))
