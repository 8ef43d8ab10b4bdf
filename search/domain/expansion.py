"""LLM query expansion for search (spec v2 section 13, steps 3-4; section 16 prompt), pure.

``render_expansion_messages`` builds the chat messages; the service calls the LLM and hands the reply to
``parse_expansion``, which validates and cleans the variants. A reply that is not the JSON object of the
schema raises ExpansionOutputError; the service then searches with the original query alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from elf_domain.english_gate import check_natural_language

# Section 16, verbatim.
SCHEMA_JSON = '{\n  "queries": ["string", "..."]\n}'

SYSTEM_PROMPT = (
    "You are a query expansion engine for a memory retrieval system.\n"
    "Output must be valid JSON only and must match the provided schema exactly.\n"
    "Generate short English-only query variations that preserve the original intent.\n"
    "Do not include any non-English text. Do not add explanations or extra fields."
)

USER_PROMPT_TEMPLATE = (
    "Return JSON matching this exact schema:\n"
    "<SCHEMA_JSON>\n"
    "Constraints:\n"
    "- MAX_QUERIES = <MAX_QUERIES>\n"
    "- INCLUDE_ORIGINAL = <INCLUDE_ORIGINAL>\n"
    "Original query:\n"
    "<QUERY>"
)


class ExpansionOutputError(ValueError):
    """The LLM reply is not a JSON object with a ``queries`` list of strings."""


def render_expansion_messages(query: str, *, max_queries: int, include_original: bool) -> list[dict[str, str]]:
    """The system and user messages of the section 16 prompt for ``query`` (trimmed). INCLUDE_ORIGINAL is
    rendered as JSON (``true``/``false``), matching the JSON-only framing of the prompt."""
    user = (
        USER_PROMPT_TEMPLATE.replace("<SCHEMA_JSON>", SCHEMA_JSON)
        .replace("<MAX_QUERIES>", str(max_queries))
        .replace("<INCLUDE_ORIGINAL>", "true" if include_original else "false")
        .replace("<QUERY>", query.strip())
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _raw_queries(content: str | Mapping[str, Any]) -> list[str]:
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except json.JSONDecodeError as exc:
            raise ExpansionOutputError(f"expansion output is not valid JSON: {exc.msg}") from None
    if not isinstance(content, Mapping):
        raise ExpansionOutputError("expansion output must be a JSON object")
    queries = content.get("queries")
    if not isinstance(queries, list):
        raise ExpansionOutputError("expansion output must have a `queries` array")
    if not all(isinstance(q, str) for q in queries):
        raise ExpansionOutputError("every element of `queries` must be a string")
    return queries


def _dedupe_key(query: str) -> str:
    return " ".join(query.split()).casefold()


def parse_expansion(
    content: str | Mapping[str, Any], *, query: str, max_queries: int, include_original: bool
) -> list[str]:
    """The search queries from an expansion reply (JSON text, or the object a JSON-mode client decoded).

    The reply must be a JSON object whose ``queries`` is an array of strings; anything else (prose around the
    JSON, code fences, a bare array, a non-string element) raises ExpansionOutputError. Other members are
    ignored: the prompt forbids them, but they cannot change what is used.

    Each variant is trimmed; empty and multi-line variants and those failing the English gate are dropped;
    duplicates (case-insensitive, whitespace runs collapsed) keep their first occurrence. With
    ``include_original`` the original query (trimmed, not re-gated: the search already gated it) comes first
    and any variant equal to it is dropped. The list is capped at ``max_queries``. Without
    ``include_original`` an original the model repeated is kept like any variant, and the result may be
    empty: the caller then searches with the original query.
    """
    original = query.strip()
    result: list[str] = [original] if include_original else []
    seen = {_dedupe_key(original)} if include_original else set()
    for raw in _raw_queries(content):
        if len(result) >= max_queries:
            break
        variant = raw.strip()
        if not variant or len(variant.splitlines()) > 1:
            continue
        key = _dedupe_key(variant)
        if key in seen:
            continue
        seen.add(key)
        if check_natural_language(variant) is not None:
            continue
        result.append(variant)
    return result[:max_queries]


def should_expand_dynamic(
    *, candidate_count: int, baseline_top_score: float | None, min_candidates: int, min_top_score: float
) -> bool:
    """Dynamic mode (step 3): expand when the baseline search of the original query found fewer than
    ``min_candidates`` candidates or its top score is below ``min_top_score``.

    ``baseline_top_score`` is the best dense cosine similarity between the original query's embedding and any
    chunk the baseline's dense leg returned: an absolute score on a fixed -1..1 scale, so it can be weak (an
    unrelated query) or strong (a near-verbatim one). The fused score of the spec's wording cannot serve: the
    min-max normalised fusion (search.domain.score_fusion) gives the top candidate at least 0.5 whatever the
    query, so a threshold on it would never fire. None (no dense hit) always expands."""
    if candidate_count < min_candidates or baseline_top_score is None:
        return True
    return baseline_top_score < min_top_score
