"""One error family for every provider adapter (embedding, rerank, extractor; local or HTTP).

Callers catch ``ProviderError``; the subclasses say what went wrong so the worker can log it and a later
layer can decide what to retry. No message ever carries an api_key: the HTTP client redacts it from
everything it quotes (exception text, response body excerpts) before an error is built.
"""

from __future__ import annotations

from typing import Literal

ProviderKind = Literal["embedding", "rerank", "extractor"]


class ProviderError(Exception):
    """A provider call failed. ``provider_kind`` is ``embedding``, ``rerank`` or ``extractor``."""

    def __init__(self, provider_kind: ProviderKind, message: str):
        self.provider_kind = provider_kind
        self.message = message
        super().__init__(f"{provider_kind} provider: {message}")


class ProviderTimeoutError(ProviderError):
    """No complete response within the configured timeout_ms."""


class ProviderConnectionError(ProviderError):
    """The endpoint could not be reached (refused, reset, DNS): the provider is down or misconfigured."""


class ProviderHTTPError(ProviderError):
    """The endpoint answered with a non-2xx status; ``body_excerpt`` is the start of its body."""

    def __init__(self, provider_kind: ProviderKind, status: int, body_excerpt: str, url: str):
        self.status = status
        self.body_excerpt = body_excerpt
        super().__init__(provider_kind, f"HTTP {status} from {url}: {body_excerpt}")

    def refuses_field(self, hints: tuple[str, ...]) -> bool:
        """Whether this answer refuses a request field: HTTP 400/422 whose body names it (any of ``hints``, which
        are lower case), as OpenAI-compatible servers answer a field they do not support."""
        body = self.body_excerpt.lower()
        return self.status in (400, 422) and any(hint in body for hint in hints)


class ProviderResponseError(ProviderError):
    """The response arrived but is not in the shape the contract requires."""


class ProviderCountMismatchError(ProviderResponseError):
    """The response holds a different number of vectors or scores than inputs were sent."""

    def __init__(self, provider_kind: ProviderKind, expected: int, got: int, detail: str = ""):
        self.expected = expected
        self.got = got
        suffix = f" ({detail})" if detail else ""
        super().__init__(provider_kind, f"expected {expected} results, got {got}{suffix}")


class ProviderDimensionMismatchError(ProviderResponseError):
    """A returned vector does not have the configured number of dimensions."""

    def __init__(self, provider_kind: ProviderKind, expected: int, got: int, position: int):
        self.expected = expected
        self.got = got
        self.position = position
        super().__init__(provider_kind, f"vector {position} has {got} dimensions, expected {expected}")


class ExtractorOutputError(ProviderResponseError):
    """The extractor produced no valid ``{"notes": [...]}`` JSON within its call budget."""

    def __init__(self, attempts: int, last_reason: str):
        self.attempts = attempts
        self.last_reason = last_reason
        super().__init__("extractor", f"no valid notes JSON after {attempts} calls; last problem: {last_reason}")
