#!/usr/bin/env python
"""Django's manage.py, with the required -c/--config: `python manage.py createsuperuser -c elf.toml`."""

from __future__ import annotations

import sys


def main() -> int:
    from elf_project.entrypoints.manage import main as run

    return run(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
