"""manage.py -c elf.toml <command>: Django management with the schema and Django's tables in place first."""

from __future__ import annotations

import sys

from ..runtime import bootstrap
from ..startup import prepare

# Commands that touch no database or index: they run without the stack (e.g. in CI).
NO_STORAGE_COMMANDS = ("help", "check", "--help", "-h", "version", "export_openapi")
USAGE = "usage: manage.py -c elf.toml <command> [options]   (or: manage.py <command> -c elf.toml ...)"


def split_config(argv: list[str]) -> tuple[str | None, list[str]]:
    """Take -c/--config (anywhere in argv) out of the Django arguments."""
    rest: list[str] = []
    config = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-c", "--config"):
            if i + 1 >= len(argv):
                return None, rest
            config = argv[i + 1]
            i += 2
            continue
        if a.startswith("--config="):
            config = a.split("=", 1)[1]
        else:
            rest.append(a)
        i += 1
    return config, rest


def main(argv: list[str]) -> int:
    config, rest = split_config(argv)
    if config is None:
        print(f"manage.py: -c/--config is required\n{USAGE}", file=sys.stderr)
        return 2
    cfg = bootstrap(config)
    if rest and rest[0] not in NO_STORAGE_COMMANDS and prepare(cfg, prog="manage.py", migrate=True, index=False):
        return 1
    from django.core.management import execute_from_command_line

    execute_from_command_line(["manage.py", *rest])
    return 0
