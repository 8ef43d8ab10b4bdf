"""Latency and errors of every provider call (embedding, rerank, extractor; local or HTTP), as Prometheus metrics.

``instrument`` wraps the one call method of a provider instance; the factory applies it to every provider it
builds, so no call site measures anything itself.
"""

from __future__ import annotations

import functools
import time

from prometheus_client import Counter, Histogram

from .errors import ProviderKind

CALL_METHODS: dict[ProviderKind, str] = {"embedding": "embed", "rerank": "rerank", "extractor": "extract"}

PROVIDER_CALL_DURATION = Histogram(
    "elf_provider_call_duration_seconds", "Provider call latency, failed calls included.", ["kind", "provider_id"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
PROVIDER_CALL_ERRORS = Counter(
    "elf_provider_call_errors", "Provider calls that raised, by exception class.", ["kind", "provider_id", "error"],
)


def instrument(kind: ProviderKind, provider):
    """``provider`` with its call method timed and its failures counted (the instance itself, still of its class)."""
    method = CALL_METHODS[kind]
    call = getattr(provider, method)
    provider_id = str(getattr(provider, "provider_id", "unknown"))

    @functools.wraps(call)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        except Exception as exc:
            PROVIDER_CALL_ERRORS.labels(kind, provider_id, type(exc).__name__).inc()
            raise
        finally:
            PROVIDER_CALL_DURATION.labels(kind, provider_id).observe(time.perf_counter() - start)

    setattr(provider, method, timed)
    return provider
