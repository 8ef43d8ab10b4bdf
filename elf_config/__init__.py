"""elf.toml: one loader, typed frozen objects, every problem reported with its key path."""

from .loader import ConfigError, load_config, load_or_exit
from .schema import ElfConfig

__all__ = ["ConfigError", "ElfConfig", "load_config", "load_or_exit"]
