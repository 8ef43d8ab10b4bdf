"""The service under evaluation, named by a config file: its public URL (loopback only), its Postgres DSN
(for the indexing wait) and the settings worth printing next to the numbers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elf_config import ElfConfig, load_config

from .target import loopback_base_url


class TargetError(ValueError):
    pass


@dataclass(frozen=True)
class Target:
    config_path: str
    cfg: ElfConfig
    base_url: str

    @property
    def dsn(self) -> str:
        return self.cfg.storage.postgres.dsn

    @property
    def max_note_chars(self) -> int:
        return self.cfg.memory.max_note_chars

    def summary(self) -> dict:
        c = self.cfg
        emb, rr = c.providers.embedding, c.providers.rerank
        return {
            "config": self.config_path,
            "base_url": self.base_url,
            "embedding": {"provider_id": emb.provider_id, "model": emb.model, "dimensions": emb.dimensions},
            "rerank": {"provider_id": rr.provider_id, "model": rr.model},
            "expansion_mode": c.search.expansion.mode,
            "max_note_chars": c.memory.max_note_chars,
            "config_candidate_k": c.memory.candidate_k,
            "config_top_k": c.memory.top_k,
            "chunking_max_tokens": c.chunking.max_tokens,
        }


def load_target(path: str | Path) -> Target:
    """Load ``path``; refuses a non-loopback service and API-key auth (elf-eval picks its own tenants)."""
    cfg = load_config(path)
    try:
        base = loopback_base_url(cfg.service.http_bind)
    except ValueError as exc:
        raise TargetError(str(exc)) from None
    if getattr(cfg.security, "auth_mode", None) not in (None, "off"):
        raise TargetError(f"{path}: security.auth_mode is {cfg.security.auth_mode!r}; elf-eval writes under its own "
                          "tenants through the context headers, so it needs auth_mode = \"off\"")
    return Target(config_path=str(path), cfg=cfg, base_url=base)
