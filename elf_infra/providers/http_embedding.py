"""OpenAI-compatible embeddings over HTTP (spec section 7.1)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from elf_config.schema import EmbeddingProviderConfig

from .errors import (
    ProviderCountMismatchError,
    ProviderDimensionMismatchError,
    ProviderHTTPError,
    ProviderResponseError,
)
from .http_client import JsonPostClient

log = logging.getLogger(__name__)
# vLLM answers 400 'Model "..." does not support matryoshka representation, changing output dimensions ...'
# to any "dimensions" for a model that cannot shorten its vectors, even the model's own size.
_DIMENSIONS_HINTS = ("dimensions", "matryoshka")


class HttpEmbeddingProvider:
    """POSTs ``{model, input, dimensions}`` and maps ``{"data": [{"embedding": [...], "index": i}]}``.

    If the endpoint rejects ``dimensions`` (HTTP 400/422 whose body mentions it or Matryoshka, as vLLM does for
    a model without Matryoshka support), the request is re-sent once without it and the adapter stops sending
    it for the rest of its life. Every vector must still have ``dimensions`` values.
    """

    def __init__(self, cfg: EmbeddingProviderConfig):
        self.provider_id = cfg.provider_id
        self.model = cfg.model
        self.dimensions = cfg.dimensions
        self._send_dimensions = True
        self._client = JsonPostClient(
            provider_kind="embedding",
            api_base=cfg.api_base,
            path=cfg.path,
            api_key=cfg.api_key,
            timeout_ms=cfg.timeout_ms,
            default_headers=cfg.default_headers,
        )

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One float32-valued vector per text, in input order; ``[]`` for no texts (no request sent)."""
        if not texts:
            return []
        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self._send_dimensions:
            body["dimensions"] = self.dimensions
        try:
            payload = self._client.post_json(body)
        except ProviderHTTPError as exc:
            if "dimensions" not in body or not exc.refuses_field(_DIMENSIONS_HINTS):
                raise
            self._send_dimensions = False
            log.warning("the embedding provider rejected the dimensions field for model %r (HTTP %s); requests "
                        "are sent without it from now on, and every vector must still have %d values",
                        self.model, exc.status, self.dimensions)
            payload = self._client.post_json({"model": self.model, "input": texts})
        return parse_embedding_response(payload, expected_count=len(texts), dimensions=self.dimensions)


def parse_embedding_response(payload: Any, *, expected_count: int, dimensions: int) -> list[list[float]]:
    """Vectors from an OpenAI-style embeddings answer, ordered by ``index`` when the items carry one."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        raise ProviderResponseError("embedding", 'response has no "data" list')
    if len(data) != expected_count:
        raise ProviderCountMismatchError("embedding", expected_count, len(data))
    if not all(isinstance(item, dict) for item in data):
        raise ProviderResponseError("embedding", 'every "data" item must be an object')

    indexes = [item.get("index") for item in data]
    if any(i is not None for i in indexes):
        if not all(type(i) is int for i in indexes) or sorted(indexes) != list(range(expected_count)):
            raise ProviderResponseError(
                "embedding", f'"index" values must be the integers 0..{expected_count - 1}, each once'
            )
        data = sorted(data, key=lambda item: item["index"])

    vectors: list[list[float]] = []
    for position, item in enumerate(data):
        vec = item.get("embedding")
        if not isinstance(vec, list):
            raise ProviderResponseError("embedding", f'item {position} has no "embedding" list')
        if len(vec) != dimensions:
            raise ProviderDimensionMismatchError("embedding", dimensions, len(vec), position)
        # type() rather than isinstance(): bool is an int subclass.
        if not all(type(x) in (int, float) for x in vec):
            raise ProviderResponseError("embedding", f"vector {position} holds a non-numeric value")
        vectors.append(vec)
    # float32 as the spec says (float32[D]), so HTTP and local vectors carry the same precision.
    # NaN/inf, or values beyond float32 range, would poison similarity search downstream.
    out_of_range = ProviderResponseError("embedding", "a vector holds a non-finite value or one beyond float32 range")
    with np.errstate(over="ignore"):
        try:
            matrix = np.asarray(vectors, dtype=np.float32)
        except OverflowError:
            raise out_of_range from None
    if not np.isfinite(matrix).all():
        raise out_of_range
    return matrix.tolist()
