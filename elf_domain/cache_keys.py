"""LLM cache keys for search (spec v2 section 13, steps 4 and 14 and the cache notes), pure.

Key material is serialised as canonical JSON (sorted keys, no whitespace, ASCII-escaped, no NaN) and hashed
with BLAKE3 to 256-bit lowercase hex, so the same material gives the same key in every process and on every
machine. Each key embeds a hardcoded cache schema version: bump it whenever the meaning of a cached payload
changes (prompt, parsing, score semantics) so that old entries stop matching instead of being misread.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from typing import Any

from blake3 import blake3

EXPANSION_CACHE_SCHEMA = "search_expansion_cache/v1"
RERANK_CACHE_SCHEMA = "search_rerank_cache/v1"


def canonical_json(material: Any) -> str:
    """Canonical JSON text of JSON-like ``material``: sorted keys, ``,``/``:`` separators, ASCII only.
    Raises TypeError for values JSON cannot hold and ValueError for NaN or infinities."""
    return json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def material_hash(material: Any) -> str:
    """BLAKE3-256 of ``canonical_json(material)``, as 64 lowercase hex characters."""
    return blake3(canonical_json(material).encode("ascii")).hexdigest()


def expansion_cache_key(
    *, query: str, provider_id: str, model: str, temperature: float, max_queries: int, include_original: bool
) -> str:
    """Cache key of the expanded queries of ``query`` (trimmed, so surrounding whitespace shares a key).
    ``temperature`` is keyed as a float, so 0 and 0.0 give the same key."""
    return material_hash(
        {
            "schema": EXPANSION_CACHE_SCHEMA,
            "query": query.strip(),
            "provider_id": provider_id,
            "model": model,
            "temperature": float(temperature),
            "max_queries": max_queries,
            "include_original": include_original,
        }
    )


def rerank_cache_key(*, query: str, provider_id: str, model: str, candidates: Sequence[tuple[Hashable, str]]) -> str:
    """Cache key of the rerank scores of ``query`` (trimmed) over ``candidates``, the candidate signature
    ``[(chunk_id, note_updated_at_iso), ...]`` in the order the documents are sent to the reranker: the
    cached scores are positional, so a reordered candidate list is a different key. Chunk ids are keyed by
    their text form (a UUID and its string give the same key). An edit to a note changes its updated_at and
    so the key, which is what invalidates scores of stale snippets."""
    return material_hash(
        {
            "schema": RERANK_CACHE_SCHEMA,
            "query": query.strip(),
            "provider_id": provider_id,
            "model": model,
            "candidates": [[str(chunk_id), updated_at] for chunk_id, updated_at in candidates],
        }
    )


def payload_fits(payload: Any, max_payload_bytes: int | None) -> bool:
    """Whether a cache payload may be stored: always when ``max_payload_bytes`` is None (no limit), else when
    the UTF-8 size of its compact JSON text is at most ``max_payload_bytes``."""
    if max_payload_bytes is None:
        return True
    size = len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8"))
    return size <= max_payload_bytes
