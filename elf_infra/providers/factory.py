"""Provider instances from elf.toml: local when ``provider_id == "local"``, HTTP otherwise.

Instances are cached per process and per provider config, so every caller in a process shares one HTTP
session (connection pool) per endpoint and one local model. The cache is keyed by pid too: a forked child
(Celery prefork, gunicorn) builds its own instead of sharing its parent's sockets.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from elf_config.rules import LOCAL_PROVIDER as LOCAL_PROVIDER_ID
from elf_config.schema import ElfConfig

from .base import EmbeddingProvider, ExtractorProvider, RerankProvider
from .errors import ProviderKind
from .http_embedding import HttpEmbeddingProvider
from .http_extractor import HttpExtractorProvider
from .http_rerank import HttpRerankProvider
from .local_embedder import LOCAL_EMBEDDING_MODEL, LocalEmbedder
from .local_extractor import LocalExtractorProvider
from .local_rerank import LocalRerankProvider
from .metrics import instrument

T = TypeVar("T")
_cache: dict[tuple[str, str], Any] = {}
_cache_pid = os.getpid()
_cache_lock = threading.Lock()


def _cached(kind: ProviderKind, identity: dict[str, Any], build: Callable[[], T]) -> T:
    global _cache_pid
    key = (kind, json.dumps(identity, sort_keys=True))
    with _cache_lock:
        if _cache_pid != os.getpid():
            _cache.clear()
            _cache_pid = os.getpid()
        if key not in _cache:
            _cache[key] = instrument(kind, build())
        return _cache[key]


def build_embedding(cfg: ElfConfig) -> EmbeddingProvider:
    """The embedding provider of ``cfg.providers.embedding``."""
    p = cfg.providers.embedding
    if p.provider_id == LOCAL_PROVIDER_ID:
        return _cached("embedding", dataclasses.asdict(p), lambda: LocalEmbedder(p.model))
    return _cached("embedding", dataclasses.asdict(p), lambda: HttpEmbeddingProvider(p))


def local_model_id(cfg: ElfConfig) -> str:
    """The in-process MiniLM a process uses: the embedding provider's model when it is local (one model per
    process, one vector space), else the default local model."""
    emb = cfg.providers.embedding
    return emb.model if emb.provider_id == LOCAL_PROVIDER_ID else LOCAL_EMBEDDING_MODEL


def build_rerank(cfg: ElfConfig) -> RerankProvider:
    """The rerank provider of ``cfg.providers.rerank``.

    The local reranker always embeds with an in-process MiniLM model (``local_model_id``), whatever
    ``providers.embedding`` is, so reranking never depends on the network.
    """
    p = cfg.providers.rerank
    if p.provider_id == LOCAL_PROVIDER_ID:
        model = local_model_id(cfg)
        return _cached("rerank", {**dataclasses.asdict(p), "local_model": model},
                       lambda: LocalRerankProvider(p.model, LocalEmbedder(model)))
    return _cached("rerank", dataclasses.asdict(p), lambda: HttpRerankProvider(p))


def build_extractor(cfg: ElfConfig) -> ExtractorProvider:
    """The add_event extractor of ``cfg.providers.llm_extractor``, limited by ``cfg.memory``.

    ``max_notes`` is ``memory.max_notes_per_add_event`` and ``max_note_chars`` is ``memory.max_note_chars``;
    the HTTP extractor uses the built-in section 18 prompt.
    """
    p = cfg.providers.llm_extractor
    limits = {"max_notes": cfg.memory.max_notes_per_add_event, "max_note_chars": cfg.memory.max_note_chars}
    identity = {**dataclasses.asdict(p), **limits}
    if p.provider_id == LOCAL_PROVIDER_ID:
        return _cached("extractor", identity, lambda: LocalExtractorProvider(p.model, **limits))
    return _cached("extractor", identity, lambda: HttpExtractorProvider(p, **limits))


def build_profile_extractor(cfg: ElfConfig, *, prompt, model: str | None, temperature: float | None,
                            timeout_ms: int | None) -> ExtractorProvider:
    """The extractor with an ingestion profile's overrides (prompt, model, temperature, timeout). The local
    extractor has no prompt or model to override: it is returned as configured."""
    p = cfg.providers.llm_extractor
    if p.provider_id == LOCAL_PROVIDER_ID:
        return build_extractor(cfg)
    overridden = dataclasses.replace(
        p,
        model=model if model is not None else p.model,
        temperature=temperature if temperature is not None else p.temperature,
        timeout_ms=timeout_ms if timeout_ms is not None else p.timeout_ms,
    )
    limits = {"max_notes": cfg.memory.max_notes_per_add_event, "max_note_chars": cfg.memory.max_note_chars}
    return instrument("extractor", HttpExtractorProvider(overridden, prompt=prompt, **limits))
