"""The three provider interfaces. Local and HTTP adapters implement them alike, so callers (and test fakes
that count calls) cannot tell them apart."""

from __future__ import annotations

from typing import Any, Protocol


class EmbeddingProvider(Protocol):
    provider_id: str
    model: str

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in input order, each of the configured dimensions (float32 values)."""
        ...


class RerankProvider(Protocol):
    provider_id: str
    model: str

    def rerank(self, query: str, docs: list[str]) -> list[float]:
        """One relevance score per doc, aligned to ``docs`` (higher is more relevant)."""
        ...


class ExtractorProvider(Protocol):
    provider_id: str
    model: str

    def extract(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Candidate notes for add_event as the parsed spec section 18 JSON object ``{"notes": [...]}``.

        ``messages`` are the add_event messages after write_policy: dicts with ``role`` and ``content``
        (optionally ``ts`` and ``msg_id``). Evidence ``message_index`` values index this list. The result is
        only shape-checked (an object with a ``notes`` list of objects); evidence binding and WriteGate run
        in the caller.
        """
        ...
