"""Django settings for pytest: the same settings module, built from tests/elf.test.toml."""

from pathlib import Path

from elf_config import load_config
from elf_kernel.runtime import set_config

TEST_CONFIG_PATH = Path(__file__).resolve().parent / "elf.test.toml"
set_config(load_config(TEST_CONFIG_PATH))

from elf_project.settings import *  # noqa: E402,F401,F403
