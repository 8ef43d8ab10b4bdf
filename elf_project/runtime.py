"""Process-wide holder of the loaded config and the one bootstrap every entry point calls.

Django needs DJANGO_SETTINGS_MODULE to find ``elf_project.settings``; that is in-process plumbing, not
configuration: every value the settings use comes from the ElfConfig loaded here from ``-c``.
"""

from __future__ import annotations

import os
import sys

from .config import ConfigError, ElfConfig, load_config

_config: ElfConfig | None = None


def get_config() -> ElfConfig:
    if _config is None:
        raise RuntimeError("ELF config not loaded: entry points must call elf_project.runtime.bootstrap(path)")
    return _config


def set_config(cfg: ElfConfig) -> None:
    global _config
    _config = cfg


def load_or_exit(path: str) -> ElfConfig:
    """Load the config, or print every problem and exit with status 2."""
    try:
        return load_config(path)
    except ConfigError as exc:
        print(f"elf: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def bootstrap(path: str, *, setup_django: bool = True) -> ElfConfig:
    cfg = load_or_exit(path)
    set_config(cfg)
    if setup_django:
        os.environ["DJANGO_SETTINGS_MODULE"] = "elf_project.settings"
        import django

        django.setup()
    return cfg
