"""Search expansion and rerank with the llm_cache table (spec v2 section 13 steps 4 and 14, cache notes):
real Postgres (test transaction) and a real HTTP fake provider counting LLM and rerank calls."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from elf_config import ElfConfig, load_config
from elf_domain.cache_keys import expansion_cache_key, rerank_cache_key
from search.models import LlmCache
from search.services.expansion import expand_query
from search.services.llm_cache import CACHE_KIND_EXPANSION, CACHE_KIND_RERANK, cache_get, cache_put
from search.services.rerank import rerank_with_cache
from tests.conftest import CHAT_PATH, RERANK_PATH, TEST_CONFIG
from tests.fake_provider_server import FakeProviderServer, FakeResponse, chat_completion

pytestmark = pytest.mark.django_db

VARIANTS = ["where is the deployment runbook", "how do we deploy the service"]


@pytest.fixture
def fake() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def cfg(fake: FakeProviderServer) -> ElfConfig:
    base = load_config(TEST_CONFIG)
    p = base.providers
    http = {"provider_id": "fake-http", "api_base": fake.url, "api_key": "test-key"}
    providers = dataclasses.replace(
        p,
        rerank=dataclasses.replace(p.rerank, path=RERANK_PATH, model="fake-rerank", **http),
        llm_extractor=dataclasses.replace(p.llm_extractor, path=CHAT_PATH, model="fake-chat", **http),
    )
    return dataclasses.replace(base, providers=providers)


@pytest.fixture
def query() -> str:
    # Unique per test, so a cache row committed by some other run can never answer for this one.
    return f"deploy runbook {uuid.uuid4().hex[:8]}"


def with_cache(cfg: ElfConfig, **changes) -> ElfConfig:
    return dataclasses.replace(
        cfg, search=dataclasses.replace(cfg.search, cache=dataclasses.replace(cfg.search.cache, **changes))
    )


def with_llm(cfg: ElfConfig, **changes) -> ElfConfig:
    providers = dataclasses.replace(
        cfg.providers, llm_extractor=dataclasses.replace(cfg.providers.llm_extractor, **changes)
    )
    return dataclasses.replace(cfg, providers=providers)


def expansion_row(cfg: ElfConfig, query: str) -> LlmCache | None:
    llm, exp = cfg.providers.llm_extractor, cfg.search.expansion
    key = expansion_cache_key(
        query=query,
        provider_id=llm.provider_id,
        model=llm.model,
        temperature=llm.temperature,
        max_queries=exp.max_queries,
        include_original=exp.include_original,
    )
    return LlmCache.objects.filter(cache_kind=CACHE_KIND_EXPANSION, cache_key=key).first()


def rerank_row(cfg: ElfConfig, query: str, signature) -> LlmCache | None:
    r = cfg.providers.rerank
    key = rerank_cache_key(query=query, provider_id=r.provider_id, model=r.model, candidates=signature)
    return LlmCache.objects.filter(cache_kind=CACHE_KIND_RERANK, cache_key=key).first()


def answer_variants(fake: FakeProviderServer, query: str) -> None:
    fake.respond(CHAT_PATH, FakeResponse(json=chat_completion(json.dumps({"queries": [query, *VARIANTS]}))))


def chat_calls(fake: FakeProviderServer) -> int:
    return len(fake.requests_to(CHAT_PATH))


def rerank_calls(fake: FakeProviderServer) -> int:
    return len(fake.requests_to(RERANK_PATH))


# --- llm_cache ---------------------------------------------------------------------------------------------


def test_cache_get_counts_hits_and_ignores_expired_entries():
    key = uuid.uuid4().hex
    assert cache_put(CACHE_KIND_EXPANSION, key, {"queries": ["a"]}, ttl_days=2, max_payload_bytes=None)
    now = timezone.now()
    assert cache_get(CACHE_KIND_EXPANSION, key, now=now) == {"queries": ["a"]}
    row = LlmCache.objects.get(cache_kind=CACHE_KIND_EXPANSION, cache_key=key)
    assert (row.hit_count, row.last_accessed_at) == (1, now)
    assert cache_get(CACHE_KIND_RERANK, key) is None, "the kind is part of the key"
    assert cache_get(CACHE_KIND_EXPANSION, key, now=now + timedelta(days=3)) is None
    assert LlmCache.objects.get(pk=row.pk).hit_count == 1, "an expired read is not a hit"


def test_cache_put_replaces_the_entry_with_the_same_key():
    key = uuid.uuid4().hex
    assert cache_put(CACHE_KIND_RERANK, key, {"scores": [1.0]}, ttl_days=1, max_payload_bytes=None)
    cache_get(CACHE_KIND_RERANK, key)
    assert cache_put(CACHE_KIND_RERANK, key, {"scores": [2.0]}, ttl_days=1, max_payload_bytes=None)
    row = LlmCache.objects.get(cache_kind=CACHE_KIND_RERANK, cache_key=key)
    assert (row.payload, row.hit_count) == ({"scores": [2.0]}, 0)


def test_cache_db_failures_are_misses_and_leave_the_transaction_usable():
    key = uuid.uuid4().hex
    assert cache_put(CACHE_KIND_EXPANSION, key, {"queries": ["a"]}, ttl_days=1, max_payload_bytes=None)
    # A real database error: llm_cache cannot be resolved for the rest of this (test) transaction.
    with connection.cursor() as cur:
        cur.execute("SELECT current_setting('search_path')")
        search_path = cur.fetchone()[0]
        cur.execute("SET LOCAL search_path TO pg_catalog")
    assert cache_get(CACHE_KIND_EXPANSION, key) is None
    assert not cache_put(CACHE_KIND_EXPANSION, uuid.uuid4().hex, {"queries": ["b"]}, ttl_days=1, max_payload_bytes=None)
    with connection.cursor() as cur:
        cur.execute("SELECT set_config('search_path', %s, true)", [search_path])
    assert cache_get(CACHE_KIND_EXPANSION, key) == {"queries": ["a"]}


def test_cache_put_rejected_by_postgres_is_skipped():
    # jsonb cannot hold U+0000: Postgres rejects the statement, the savepoint absorbs it.
    key = uuid.uuid4().hex
    assert not cache_put(CACHE_KIND_EXPANSION, key, {"queries": ["a\x00b"]}, ttl_days=1, max_payload_bytes=None)
    assert not LlmCache.objects.filter(cache_key=key).exists()


# --- expansion ---------------------------------------------------------------------------------------------


def test_expansion_miss_calls_llm_once_and_stores(cfg, fake, query):
    answer_variants(fake, query)
    result = expand_query(cfg, f"  {query} ")
    assert result.queries == [query, *VARIANTS]
    assert (result.cache_hit, result.llm_called, result.error) == (False, True, None)
    assert chat_calls(fake) == 1
    body = fake.requests_to(CHAT_PATH)[0].json
    assert (body["model"], body["temperature"]) == ("fake-chat", cfg.providers.llm_extractor.temperature)
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["queries"]
    row = expansion_row(cfg, query)
    assert row is not None and row.payload == {"queries": [query, *VARIANTS]}
    ttl = row.expires_at - row.created_at
    assert ttl == timedelta(days=cfg.search.cache.expansion_ttl_days)


def test_expansion_second_call_is_a_cache_hit_without_llm_call(cfg, fake, query):
    answer_variants(fake, query)
    first = expand_query(cfg, query)
    second = expand_query(cfg, query)
    assert second.queries == first.queries
    assert (second.cache_hit, second.llm_called, second.error) == (True, False, None)
    assert chat_calls(fake) == 1
    assert expansion_row(cfg, query).hit_count == 1


def test_expansion_expired_entry_is_a_miss(cfg, fake, query):
    answer_variants(fake, query)
    expand_query(cfg, query)
    LlmCache.objects.filter(pk=expansion_row(cfg, query).pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    result = expand_query(cfg, query)
    assert (result.cache_hit, result.llm_called) == (False, True)
    assert chat_calls(fake) == 2
    assert expansion_row(cfg, query).expires_at > timezone.now()


def test_expansion_cache_disabled_never_stores(cfg, fake, query):
    cfg = with_cache(cfg, enabled=False)
    answer_variants(fake, query)
    assert expand_query(cfg, query).queries == [query, *VARIANTS]
    assert expand_query(cfg, query).cache_hit is False
    assert chat_calls(fake) == 2
    assert expansion_row(cfg, query) is None


def test_expansion_payload_over_max_payload_bytes_is_not_stored(cfg, fake, query):
    cfg = with_cache(cfg, max_payload_bytes=16)
    answer_variants(fake, query)
    assert expand_query(cfg, query).queries == [query, *VARIANTS]
    assert expansion_row(cfg, query) is None
    expand_query(cfg, query)
    assert chat_calls(fake) == 2


@pytest.mark.parametrize(
    "response",
    [
        FakeResponse(status=500, json={"error": "boom"}),
        FakeResponse(json=chat_completion("Sure! Here are some queries: deploy, runbook")),
        FakeResponse(json=chat_completion(json.dumps(["a bare array"]))),
        FakeResponse(json={"choices": []}),
        FakeResponse(drop_connection=True),
    ],
    ids=["http-500", "invalid-json", "wrong-shape", "no-choices", "dropped"],
)
def test_expansion_failure_falls_back_to_the_original_query_uncached(cfg, fake, query, response):
    fake.respond(CHAT_PATH, response)
    result = expand_query(cfg, query)
    assert result.queries == [query]
    assert (result.cache_hit, result.llm_called) == (False, True)
    assert result.error
    assert "test-key" not in result.error
    assert chat_calls(fake) == 1
    assert expansion_row(cfg, query) is None


def test_expansion_with_all_variants_dropped_searches_the_original_query(cfg, fake, query):
    cfg = dataclasses.replace(
        cfg,
        search=dataclasses.replace(
            cfg.search, expansion=dataclasses.replace(cfg.search.expansion, include_original=False)
        ),
    )
    fake.respond(CHAT_PATH, FakeResponse(json=chat_completion('{"queries": []}')))
    result = expand_query(cfg, query)
    assert (result.queries, result.error) == ([query], None)


def test_local_llm_provider_expansion_is_a_noop(cfg, fake, query):
    cfg = with_llm(cfg, provider_id="local")
    result = expand_query(cfg, query)
    assert (result.queries, result.cache_hit, result.llm_called, result.error) == ([query], False, False, None)
    assert fake.requests == []
    assert expansion_row(cfg, query) is None


def test_expansion_cache_read_failure_is_a_miss(cfg, fake, query):
    answer_variants(fake, query)
    with connection.cursor() as cur:
        cur.execute("SET LOCAL search_path TO pg_catalog")
    result = expand_query(cfg, query)
    assert (result.queries, result.cache_hit, result.llm_called, result.error) == (
        [query, *VARIANTS],
        False,
        True,
        None,
    )


# --- rerank ------------------------------------------------------------------------------------------------

DOCS = ["deploy with make release", "the runbook lives in docs/ops"]


def signature(updated_at: str = "2026-01-01T00:00:00+00:00") -> list[tuple[uuid.UUID, str]]:
    return [(uuid.UUID(int=1), updated_at), (uuid.UUID(int=2), "2026-01-02T00:00:00+00:00")]


def test_rerank_miss_calls_once_then_hits_without_calls(cfg, fake, query):
    fake.respond(RERANK_PATH, FakeResponse(json={"scores": [0.25, 0.75]}))
    first = rerank_with_cache(cfg, query, DOCS, signature())
    assert (first.scores, first.cache_hit, first.called, first.error) == ([0.25, 0.75], False, True, None)
    assert fake.requests_to(RERANK_PATH)[0].json == {"model": "fake-rerank", "query": query, "documents": DOCS}
    row = rerank_row(cfg, query, signature())
    assert row is not None and row.payload == {"scores": [0.25, 0.75]}
    assert row.expires_at - row.created_at == timedelta(days=cfg.search.cache.rerank_ttl_days)

    second = rerank_with_cache(cfg, query, DOCS, signature())
    assert (second.scores, second.cache_hit, second.called, second.error) == ([0.25, 0.75], True, False, None)
    assert rerank_calls(fake) == 1


def test_rerank_changed_note_updated_at_is_a_miss(cfg, fake, query):
    fake.respond(RERANK_PATH, [FakeResponse(json={"scores": [0.25, 0.75]}), FakeResponse(json={"scores": [0.9, 0.1]})])
    rerank_with_cache(cfg, query, DOCS, signature())
    result = rerank_with_cache(cfg, query, DOCS, signature(updated_at="2026-03-01T00:00:00+00:00"))
    assert (result.scores, result.cache_hit, result.called) == ([0.9, 0.1], False, True)
    assert rerank_calls(fake) == 2


def test_rerank_provider_failure_returns_no_scores_uncached(cfg, fake, query):
    fake.respond(RERANK_PATH, FakeResponse(status=503, json={"error": "overloaded"}))
    result = rerank_with_cache(cfg, query, DOCS, signature())
    assert (result.scores, result.cache_hit, result.called) == (None, False, True)
    assert "503" in result.error
    assert rerank_row(cfg, query, signature()) is None


def test_rerank_cache_disabled_calls_every_time(cfg, fake, query):
    cfg = with_cache(cfg, enabled=False)
    fake.respond(RERANK_PATH, FakeResponse(json={"scores": [0.25, 0.75]}))
    rerank_with_cache(cfg, query, DOCS, signature())
    assert rerank_with_cache(cfg, query, DOCS, signature()).cache_hit is False
    assert rerank_calls(fake) == 2
    assert rerank_row(cfg, query, signature()) is None


def test_rerank_without_docs_makes_no_call(cfg, fake, query):
    result = rerank_with_cache(cfg, query, [], [])
    assert (result.scores, result.cache_hit, result.called, result.error) == ([], False, False, None)
    assert fake.requests == []


def test_rerank_signature_must_match_the_docs(cfg, query):
    with pytest.raises(ValueError):
        rerank_with_cache(cfg, query, DOCS, signature()[:1])
