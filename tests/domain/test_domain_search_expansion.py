"""Query expansion and search caches, pure: the section 16 prompt, parsing and cleaning of the LLM reply, the
dynamic-mode trigger, and the BLAKE3 cache keys and payload limit of spec v2 section 13."""

from __future__ import annotations

import json
import uuid

import pytest
from blake3 import blake3

from elf_domain.cache_keys import (
    EXPANSION_CACHE_SCHEMA,
    RERANK_CACHE_SCHEMA,
    canonical_json,
    expansion_cache_key,
    material_hash,
    payload_fits,
    rerank_cache_key,
)
from search.domain.expansion import (
    SYSTEM_PROMPT,
    ExpansionOutputError,
    parse_expansion,
    render_expansion_messages,
    should_expand_dynamic,
)

QUERY = "When do we back up Postgres?"
FRENCH = "Quand est-ce que nous sauvegardons la base de données chaque nuit pour tous les agents du projet?"


def reply(*queries) -> str:
    return json.dumps({"queries": list(queries)})


# --- prompt ----------------------------------------------------------------------------------------------


def test_expansion_prompt_is_the_section_16_text():
    messages = render_expansion_messages(f"  {QUERY} ", max_queries=4, include_original=True)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert (
        messages[0]["content"]
        == SYSTEM_PROMPT
        == (
            "You are a query expansion engine for a memory retrieval system.\n"
            "Output must be valid JSON only and must match the provided schema exactly.\n"
            "Generate short English-only query variations that preserve the original intent.\n"
            "Do not include any non-English text. Do not add explanations or extra fields."
        )
    )
    assert messages[1]["content"] == (
        "Return JSON matching this exact schema:\n"
        "{\n"
        '  "queries": ["string", "..."]\n'
        "}\n"
        "Constraints:\n"
        "- MAX_QUERIES = 4\n"
        "- INCLUDE_ORIGINAL = true\n"
        "Original query:\n"
        "When do we back up Postgres?"
    )
    off = render_expansion_messages(QUERY, max_queries=2, include_original=False)[1]["content"]
    assert "- MAX_QUERIES = 2\n- INCLUDE_ORIGINAL = false\n" in off


# --- parsing ---------------------------------------------------------------------------------------------


def test_parse_dedupes_case_insensitively_keeping_the_first():
    content = reply("Postgres backup schedule", "postgres  BACKUP schedule", "Nightly database backups")
    assert parse_expansion(content, query=QUERY, max_queries=5, include_original=True) == [
        QUERY,
        "Postgres backup schedule",
        "Nightly database backups",
    ]


def test_parse_puts_the_original_first_once():
    content = reply("Postgres backup schedule", "when do we back up postgres?")
    assert parse_expansion(content, query=f" {QUERY}\t", max_queries=5, include_original=True) == [
        QUERY,
        "Postgres backup schedule",
    ]


def test_parse_drops_non_english_empty_and_multi_line_variants():
    content = reply(FRENCH, "数据库备份计划", "   ", "", "Backup time?\nAnd where?", "  Postgres backup schedule  ")
    assert parse_expansion(content, query=QUERY, max_queries=5, include_original=True) == [
        QUERY,
        "Postgres backup schedule",
    ]


def test_parse_caps_at_max_queries():
    content = reply("Postgres backup schedule", "Nightly database backups", "Database snapshot timing", "Backup cron")
    assert parse_expansion(content, query=QUERY, max_queries=3, include_original=True) == [
        QUERY,
        "Postgres backup schedule",
        "Nightly database backups",
    ]
    assert parse_expansion(content, query=QUERY, max_queries=1, include_original=True) == [QUERY]
    assert parse_expansion(content, query=QUERY, max_queries=2, include_original=False) == [
        "Postgres backup schedule",
        "Nightly database backups",
    ]


def test_parse_without_include_original_does_not_add_it_and_may_be_empty():
    assert parse_expansion(reply(QUERY, "Backup cron"), query=QUERY, max_queries=3, include_original=False) == [
        QUERY,
        "Backup cron",
    ]
    assert parse_expansion(reply(FRENCH), query=QUERY, max_queries=3, include_original=False) == []
    assert parse_expansion(reply(), query=QUERY, max_queries=3, include_original=True) == [QUERY]


def test_parse_accepts_a_decoded_object_and_ignores_extra_members():
    content = {"queries": ["Backup cron"], "reasoning": "ignored"}
    assert parse_expansion(content, query=QUERY, max_queries=3, include_original=True) == [QUERY, "Backup cron"]


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '```json\n{"queries": ["Backup cron"]}\n```',
        'Here you go: {"queries": ["Backup cron"]}',
        '["Backup cron"]',
        "{}",
        '{"queries": "Backup cron"}',
        '{"queries": ["Backup cron", 3]}',
        '{"queries": [null]}',
        ["Backup cron"],
    ],
)
def test_parse_rejects_output_that_is_not_the_schema(content):
    with pytest.raises(ExpansionOutputError):
        parse_expansion(content, query=QUERY, max_queries=3, include_original=True)


# --- dynamic mode ----------------------------------------------------------------------------------------


def test_dynamic_expansion_thresholds():
    kwargs = {"min_candidates": 10, "min_top_score": 0.5}
    assert should_expand_dynamic(candidate_count=9, baseline_top_score=0.9, **kwargs)
    assert should_expand_dynamic(candidate_count=20, baseline_top_score=0.49, **kwargs)
    assert should_expand_dynamic(candidate_count=20, baseline_top_score=-0.2, **kwargs)  # cosine can be negative
    assert should_expand_dynamic(candidate_count=0, baseline_top_score=None, **kwargs)
    assert not should_expand_dynamic(candidate_count=10, baseline_top_score=0.5, **kwargs)
    assert not should_expand_dynamic(candidate_count=60, baseline_top_score=0.8, **kwargs)


# --- cache keys ------------------------------------------------------------------------------------------

EXPANSION = {
    "query": QUERY,
    "provider_id": "openai",
    "model": "gpt-4o-mini",
    "temperature": 0.1,
    "max_queries": 4,
    "include_original": True,
}
NOTE_TIME = "2026-03-01T12:00:00+00:00"
CHUNK_IDS = [uuid.UUID(int=1), uuid.UUID(int=2)]
RERANK = {
    "query": QUERY,
    "provider_id": "jina",
    "model": "reranker-v2",
    "candidates": [(CHUNK_IDS[0], NOTE_TIME), (CHUNK_IDS[1], NOTE_TIME)],
}


def test_canonical_json_and_hash():
    assert canonical_json({"b": 1, "a": ["é", 2.5]}) == '{"a":["\\u00e9",2.5],"b":1}'
    assert material_hash({"a": 1}) == blake3(b'{"a":1}').hexdigest()
    with pytest.raises(ValueError):
        canonical_json({"a": float("nan")})


def test_expansion_key_is_stable_blake3_hex_of_its_material():
    key = expansion_cache_key(**EXPANSION)
    assert key == expansion_cache_key(**EXPANSION)
    assert len(key) == 64 and int(key, 16) >= 0 and key == key.lower()
    assert key == material_hash({"schema": EXPANSION_CACHE_SCHEMA, **EXPANSION})


@pytest.mark.parametrize(
    "field,value",
    [
        ("query", "When do we back up Redis?"),
        ("provider_id", "anthropic"),
        ("model", "gpt-4o"),
        ("temperature", 0.2),
        ("max_queries", 5),
        ("include_original", False),
    ],
)
def test_expansion_key_changes_with_any_material(field, value):
    assert expansion_cache_key(**{**EXPANSION, field: value}) != expansion_cache_key(**EXPANSION)


def test_expansion_key_trims_the_query_and_normalises_temperature():
    assert expansion_cache_key(**{**EXPANSION, "query": f"\n  {QUERY}  "}) == expansion_cache_key(**EXPANSION)
    assert expansion_cache_key(**{**EXPANSION, "temperature": 0}) == expansion_cache_key(
        **{**EXPANSION, "temperature": 0.0}
    )


def test_rerank_key_is_stable_and_tracks_the_candidate_signature():
    key = rerank_cache_key(**RERANK)
    assert key == rerank_cache_key(**RERANK) and len(key) == 64
    assert key == rerank_cache_key(**{**RERANK, "query": f" {QUERY} "})
    as_text = [(str(c), t) for c, t in RERANK["candidates"]]
    assert key == rerank_cache_key(**{**RERANK, "candidates": as_text})
    variants = [
        {"query": "When do we back up Redis?"},
        {"provider_id": "cohere"},
        {"model": "reranker-v3"},
        {"candidates": list(reversed(RERANK["candidates"]))},
        {"candidates": [(CHUNK_IDS[0], NOTE_TIME), (CHUNK_IDS[1], "2026-03-02T08:00:00+00:00")]},
        {"candidates": RERANK["candidates"][:1]},
    ]
    keys = {rerank_cache_key(**{**RERANK, **v}) for v in variants}
    assert len(keys) == len(variants) and key not in keys
    assert RERANK_CACHE_SCHEMA != EXPANSION_CACHE_SCHEMA


def test_payload_fits_counts_utf8_bytes_of_compact_json():
    payload = {"queries": ["ab"]}  # {"queries":["ab"]} is 18 bytes
    assert payload_fits(payload, None)
    assert payload_fits(payload, 18)
    assert not payload_fits(payload, 17)
    assert payload_fits(["é"], 6) and not payload_fits(["é"], 5)  # ["é"]: "é" is 2 bytes in UTF-8
