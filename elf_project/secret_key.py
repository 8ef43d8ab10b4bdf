"""Django's SECRET_KEY (signs admin sessions) lives in a file beside the stack data, created on first use.

Kept out of elf.toml so that the committed example holds no secret.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from elf_config import ElfConfig


def secret_key_path(cfg: ElfConfig) -> Path:
    return Path(cfg.resolve_path(cfg.stack.data_dir)) / "django_secret_key"


def load_or_create_secret_key(cfg: ElfConfig) -> str:
    path = secret_key_path(cfg)
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key)
    try:
        os.link(tmp, path)  # atomic and exclusive: a concurrent first start keeps exactly one key
    except FileExistsError:
        key = path.read_text(encoding="ascii").strip()
    finally:
        tmp.unlink()
    return key
