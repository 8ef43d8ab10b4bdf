"""The Doc Extension's switch ([docs] enabled): off, every docs use case answers 403 DOCS_DISABLED."""

from __future__ import annotations

from elf_config import ElfConfig
from elf_kernel.errors import ElfError


class DocsDisabled(ElfError):
    status, error_code = 403, "DOCS_DISABLED"


def require_enabled(cfg: ElfConfig) -> None:
    if not cfg.docs_enabled:
        raise DocsDisabled("The Doc Extension is disabled in this service's config ([docs] enabled).", [])
