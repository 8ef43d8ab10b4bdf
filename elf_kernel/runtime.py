"""The process's loaded config: set once by the entry point's bootstrap, read by every layer above it."""

from __future__ import annotations

from elf_config import ElfConfig

_config: ElfConfig | None = None


def get_config() -> ElfConfig:
    if _config is None:
        raise RuntimeError("ELF config not loaded: entry points must call elf_project.runtime.bootstrap(path)")
    return _config


def set_config(cfg: ElfConfig) -> None:
    global _config
    _config = cfg
