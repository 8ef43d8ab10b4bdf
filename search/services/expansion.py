"""Query expansion with cache support (spec v2 section 13 step 4; section 16 prompt).

The caller decides whether to expand (``search.expansion.mode``); ``expand_query`` only resolves the
queries. The LLM is the chat completions endpoint of ``providers.llm_extractor``. A failed expansion (the
provider is down, answers an error, or replies with something that is not the schema's JSON) never fails
the search: the result is the original query alone, with ``error`` set, and nothing is cached.

With ``providers.llm_extractor.provider_id = "local"`` there is no LLM (the local extractor is rule-based),
so expansion is a no-op: the original query alone, no call, no cache entry.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from elf_config import ElfConfig
from elf_config.rules import LOCAL_PROVIDER
from elf_domain.cache_keys import expansion_cache_key
from elf_infra.providers.errors import ProviderError
from elf_infra.providers.http_client import JsonPostClient
from search.services.llm_cache import CACHE_KIND_EXPANSION, cache_get, cache_put

from ..domain.expansion import ExpansionOutputError, parse_expansion, render_expansion_messages

log = logging.getLogger(__name__)

# The section 16 schema as a JSON Schema for response_format. No maxItems: strict structured-output modes
# do not all accept it, and parse_expansion caps the list at max_queries anyway.
RESPONSE_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"queries": {"type": "array", "items": {"type": "string"}}},
    "required": ["queries"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ExpansionResult:
    """``queries`` is never empty; ``error`` says why expansion fell back to the original query."""

    queries: list[str]
    cache_hit: bool
    llm_called: bool
    error: str | None = None


def expand_query(cfg: ElfConfig, query: str) -> ExpansionResult:
    """The search queries for ``query`` (section 13 step 4): from the cache when ``search.cache.enabled``
    holds a live entry, else from one LLM call, parsed and cleaned by ``parse_expansion`` and cached for
    ``search.cache.expansion_ttl_days`` (when it fits ``max_payload_bytes``)."""
    original = query.strip()
    llm = cfg.providers.llm_extractor
    if llm.provider_id == LOCAL_PROVIDER:
        return ExpansionResult(queries=[original], cache_hit=False, llm_called=False)

    exp, cache = cfg.search.expansion, cfg.search.cache
    key = expansion_cache_key(
        query=original,
        provider_id=llm.provider_id,
        model=llm.model,
        temperature=llm.temperature,
        max_queries=exp.max_queries,
        include_original=exp.include_original,
    )
    if cache.enabled:
        cached = _cached_queries(cache_get(CACHE_KIND_EXPANSION, key))
        if cached is not None:
            return ExpansionResult(queries=cached, cache_hit=True, llm_called=False)

    try:
        content = _chat_content(cfg, original)
        parsed = parse_expansion(
            content, query=original, max_queries=exp.max_queries, include_original=exp.include_original
        )
    except (ProviderError, ExpansionOutputError) as exc:
        log.warning("search expansion failed; searching with the original query only: %s", exc)
        return ExpansionResult(queries=[original], cache_hit=False, llm_called=True, error=str(exc))

    # Without include_original every variant may be dropped; the search then runs on the original query.
    queries = parsed or [original]
    if cache.enabled:
        cache_put(
            CACHE_KIND_EXPANSION,
            key,
            {"queries": queries},
            ttl_days=cache.expansion_ttl_days,
            max_payload_bytes=cache.max_payload_bytes,
        )
    return ExpansionResult(queries=queries, cache_hit=False, llm_called=True)


def _cached_queries(payload: dict[str, Any] | None) -> list[str] | None:
    # An entry of another shape (hand-edited, or written by a buggy build) is a miss, not a crash.
    queries = payload.get("queries") if payload is not None else None
    if isinstance(queries, list) and queries and all(isinstance(q, str) for q in queries):
        return queries
    return None


def _chat_content(cfg: ElfConfig, query: str) -> str:
    """``choices[0].message.content`` of one chat completions call with the section 16 prompt."""
    llm, exp = cfg.providers.llm_extractor, cfg.search.expansion
    # A client per call: this runs only on a cache miss and costs an LLM round trip, so a fresh connection
    # is noise, and no session is ever shared across a fork.
    client = JsonPostClient(
        provider_kind="extractor",
        api_base=llm.api_base,
        path=llm.path,
        api_key=llm.api_key,
        timeout_ms=llm.timeout_ms,
        default_headers=llm.default_headers,
    )
    answer = client.post_json(
        {
            "model": llm.model,
            "temperature": llm.temperature,
            "messages": render_expansion_messages(
                query, max_queries=exp.max_queries, include_original=exp.include_original
            ),
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "elf_query_expansion", "strict": True, "schema": RESPONSE_JSON_SCHEMA},
            },
        }
    )
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ExpansionOutputError("the answer has no choices[0].message.content") from None
    if not isinstance(content, str):
        raise ExpansionOutputError("choices[0].message.content is not a string")
    return content
