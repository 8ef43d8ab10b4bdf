"""The one bootstrap every Django entry point calls.

Django needs DJANGO_SETTINGS_MODULE to find ``elf_project.settings``; that is in-process plumbing, not
configuration: every value the settings use comes from the ElfConfig loaded here from ``-c``.
"""

from __future__ import annotations

import os

from elf_config import ElfConfig, load_or_exit
from elf_kernel.runtime import set_config


def bootstrap(path: str, *, setup_django: bool = True) -> ElfConfig:
    cfg = load_or_exit(path)
    set_config(cfg)
    if setup_django:
        os.environ["DJANGO_SETTINGS_MODULE"] = "elf_project.settings"
        import django
        from django.core.exceptions import ImproperlyConfigured

        try:
            django.setup()
        except ImproperlyConfigured as exc:  # e.g. an unreadable encryption key file (acb.apps)
            raise SystemExit(f"elf: {exc}") from None
    return cfg
