"""HTTP provider adapters against a real local HTTP server (tests/fake_provider_server.py). No Django."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator

import pytest

from elf_config import load_config
from elf_config.schema import EmbeddingProviderConfig, ExtractorProviderConfig, RerankProviderConfig
from elf_domain.extractor_prompt import RESPONSE_JSON_SCHEMA
from elf_infra.providers import factory
from elf_infra.providers.errors import (
    ExtractorOutputError,
    ProviderConnectionError,
    ProviderCountMismatchError,
    ProviderDimensionMismatchError,
    ProviderError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeoutError,
)
from elf_infra.providers.http_embedding import HttpEmbeddingProvider
from elf_infra.providers.http_extractor import MAX_CALLS, HttpExtractorProvider
from elf_infra.providers.http_rerank import HttpRerankProvider
from tests.conftest import REPO
from tests.fake_provider_server import (
    FakeProviderServer,
    FakeResponse,
    chat_completion,
    embeddings_handler,
    vllm_embeddings_handler,
)

API_KEY = "sk-test-secret-key-123456789"
EMB_PATH, RERANK_PATH, CHAT_PATH = "/v1/embeddings", "/v1/rerank", "/v1/chat/completions"
DIM = 4


def emb_cfg(server: FakeProviderServer, **over) -> EmbeddingProviderConfig:
    base = EmbeddingProviderConfig(
        provider_id="openai",
        api_base=server.url + "/",
        api_key=API_KEY,
        path=EMB_PATH,
        model="text-emb-3",
        dimensions=DIM,
        timeout_ms=2000,
        default_headers={"X-Team": "memory"},
    )
    return dataclasses.replace(base, **over)


def rerank_cfg(server: FakeProviderServer, **over) -> RerankProviderConfig:
    base = RerankProviderConfig(
        provider_id="jina",
        api_base=server.url,
        api_key=API_KEY,
        path=RERANK_PATH,
        model="rerank-v2",
        timeout_ms=2000,
        default_headers={},
    )
    return dataclasses.replace(base, **over)


def chat_cfg(server: FakeProviderServer, **over) -> ExtractorProviderConfig:
    base = ExtractorProviderConfig(
        provider_id="openai",
        api_base=server.url,
        api_key=API_KEY,
        path=CHAT_PATH,
        model="gpt-x",
        temperature=0.1,
        timeout_ms=2000,
        default_headers={},
    )
    return dataclasses.replace(base, **over)


@pytest.fixture
def fake_provider() -> Iterator[FakeProviderServer]:
    # Same as tests.fake_provider_server.fake_provider; defined here so this module needs no conftest entry.
    with FakeProviderServer() as server:
        yield server


def vec(seed: float) -> list[float]:
    return [seed, seed + 0.25, seed + 0.5, seed + 0.75]


def extractor(server: FakeProviderServer, **over) -> HttpExtractorProvider:
    return HttpExtractorProvider(chat_cfg(server, **over), max_notes=3, max_note_chars=240)


MESSAGES = [
    {"role": "user", "content": "I prefer tabs over spaces.", "msg_id": "m1", "write_policy": {"exclusions": []}},
    {"role": "assistant", "content": "Noted."},
]
VALID_NOTES = {
    "notes": [
        {
            "type": "preference",
            "key": None,
            "text": "The user prefers tabs over spaces.",
            "importance": 0.5,
            "confidence": 0.9,
            "ttl_days": None,
            "structured": None,
            "scope_suggestion": None,
            "evidence": [{"message_index": 0, "quote": "I prefer tabs over spaces."}],
            "reason": "explicit",
        }
    ]
}


# --- embeddings -------------------------------------------------------------------------------------------


def test_embedding_request_shape_and_headers(fake_provider):
    fake_provider.handle(EMB_PATH, embeddings_handler(DIM))
    cfg = emb_cfg(fake_provider, default_headers={"X-Team": "memory", "authorization": "Bearer other"})
    vectors = HttpEmbeddingProvider(cfg).embed(["alpha", "beta"])

    assert len(vectors) == 2 and all(len(v) == DIM for v in vectors)
    (req,) = fake_provider.requests_to(EMB_PATH)
    assert req.method == "POST"
    assert req.json == {"model": "text-emb-3", "input": ["alpha", "beta"], "dimensions": DIM}
    assert req.header("Authorization") == f"Bearer {API_KEY}"  # api_key wins over default_headers
    assert req.header("X-Team") == "memory"
    assert req.header("Content-Type") == "application/json"


def test_an_endpoint_that_refuses_dimensions_is_asked_again_without_it_from_then_on(fake_provider, caplog):
    # vLLM refuses "dimensions" for a model without Matryoshka support, even the model's own size.
    fake_provider.handle(EMB_PATH, vllm_embeddings_handler(DIM))
    provider = HttpEmbeddingProvider(emb_cfg(fake_provider, model="BAAI/bge-small-en-v1.5"))
    assert [len(v) for v in provider.embed(["alpha", "beta"])] == [DIM, DIM]
    assert [len(v) for v in provider.embed(["gamma"])] == [DIM]
    bodies = [r.json for r in fake_provider.requests_to(EMB_PATH)]
    assert bodies == [{"model": "BAAI/bge-small-en-v1.5", "input": ["alpha", "beta"], "dimensions": DIM},
                      {"model": "BAAI/bge-small-en-v1.5", "input": ["alpha", "beta"]},
                      {"model": "BAAI/bge-small-en-v1.5", "input": ["gamma"]}]
    assert "rejected the dimensions field for model 'BAAI/bge-small-en-v1.5' (HTTP 400)" in caplog.text


def test_vectors_sent_without_dimensions_must_still_have_them(fake_provider):
    fake_provider.handle(EMB_PATH, vllm_embeddings_handler(DIM + 1))
    with pytest.raises(ProviderDimensionMismatchError):
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])


def test_other_client_errors_are_not_retried_without_dimensions(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(status=400, json={"error": "input must not be empty"}))
    with pytest.raises(ProviderHTTPError):
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])
    assert len(fake_provider.requests_to(EMB_PATH)) == 1


def test_embedding_sorted_by_index(fake_provider):
    data = [{"index": 2, "embedding": vec(3)}, {"index": 0, "embedding": vec(1)}, {"index": 1, "embedding": vec(2)}]
    fake_provider.respond(EMB_PATH, FakeResponse(json={"data": data}))
    assert HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a", "b", "c"]) == [vec(1), vec(2), vec(3)]


def test_embedding_without_index_keeps_order(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(json={"data": [{"embedding": vec(2)}, {"embedding": vec(1)}]}))
    assert HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a", "b"]) == [vec(2), vec(1)]


def test_embedding_values_are_float32(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(json={"data": [{"embedding": [0.1, 1, -2.5, 1e-3]}]}))
    (v,) = HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])
    assert all(type(x) is float for x in v)
    assert v[0] == pytest.approx(0.1, abs=1e-7) and v[0] != 0.1  # rounded to float32


def test_embedding_empty_input_sends_nothing(fake_provider):
    assert HttpEmbeddingProvider(emb_cfg(fake_provider)).embed([]) == []
    assert fake_provider.requests == []


def test_embedding_timeout_is_quick(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(json={"data": [{"embedding": vec(1)}]}, delay_s=5))
    provider = HttpEmbeddingProvider(emb_cfg(fake_provider, timeout_ms=200))
    started = time.monotonic()
    with pytest.raises(ProviderTimeoutError) as err:
        provider.embed(["a"])
    assert time.monotonic() - started < 2
    assert err.value.provider_kind == "embedding"


def test_http_500_is_an_error_with_status_and_excerpt_without_key(fake_provider):
    body = json.dumps({"error": f"upstream exploded; got header Bearer {API_KEY}"})
    fake_provider.respond(EMB_PATH, FakeResponse(status=500, body=body))
    with pytest.raises(ProviderHTTPError) as err:
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])
    assert err.value.status == 500
    assert "upstream exploded" in err.value.body_excerpt
    assert API_KEY not in str(err.value) and API_KEY not in err.value.body_excerpt
    assert isinstance(err.value, ProviderError)


def test_long_error_body_is_cut(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(status=502, body="x" * 10_000))
    with pytest.raises(ProviderHTTPError) as err:
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])
    assert len(err.value.body_excerpt) <= 500


def test_invalid_json_is_a_response_error(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(body="<html>gateway</html>"))
    with pytest.raises(ProviderResponseError):
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])


def test_wrong_count_is_a_count_mismatch(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(json={"data": [{"index": 0, "embedding": vec(1)}]}))
    with pytest.raises(ProviderCountMismatchError) as err:
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a", "b"])
    assert (err.value.expected, err.value.got) == (2, 1)


def test_wrong_dimension_is_a_dimension_mismatch(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(json={"data": [{"embedding": vec(1)}, {"embedding": [0.1, 0.2]}]}))
    with pytest.raises(ProviderDimensionMismatchError) as err:
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a", "b"])
    assert (err.value.expected, err.value.got, err.value.position) == (DIM, 2, 1)


@pytest.mark.parametrize(
    "payload",
    [
        {"data": [{"embedding": [0.1, "x", 0.3, 0.4]}]},
        {"data": [{"embedding": [0.1, True, 0.3, 0.4]}]},
        {"data": [{"embedding": [0.1, 1e39, 0.3, 0.4]}]},
        {"data": [{"index": 5, "embedding": vec(1)}]},
        {"data": [{"vector": vec(1)}]},
        {"embeddings": [vec(1)]},
    ],
)
def test_malformed_embedding_answers_are_rejected(fake_provider, payload):
    fake_provider.respond(EMB_PATH, FakeResponse(json=payload))
    with pytest.raises(ProviderResponseError):
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])


def test_nan_in_vector_is_rejected(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(body='{"data": [{"embedding": [0.1, NaN, 0.3, 0.4]}]}'))
    with pytest.raises(ProviderResponseError):
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])


def test_unreachable_provider_is_a_connection_error():
    with FakeProviderServer() as server:
        cfg = emb_cfg(server)
    with pytest.raises(ProviderConnectionError) as err:
        HttpEmbeddingProvider(cfg).embed(["a"])
    assert API_KEY not in str(err.value)


def test_dropped_connection_is_a_connection_error(fake_provider):
    fake_provider.respond(EMB_PATH, FakeResponse(drop_connection=True))
    with pytest.raises(ProviderConnectionError):
        HttpEmbeddingProvider(emb_cfg(fake_provider)).embed(["a"])


def test_provider_recovers_after_outage(fake_provider):
    provider = HttpEmbeddingProvider(emb_cfg(fake_provider))
    fake_provider.respond(EMB_PATH, FakeResponse(status=503, json={"error": "overloaded"}))
    with pytest.raises(ProviderHTTPError):
        provider.embed(["a"])
    fake_provider.handle(EMB_PATH, embeddings_handler(DIM))
    assert len(provider.embed(["a"])) == 1


# --- rerank -----------------------------------------------------------------------------------------------


def test_rerank_request_shape_and_results_by_index(fake_provider):
    results = [
        {"index": 2, "relevance_score": 0.9},
        {"index": 0, "relevance_score": 0.1},
        {"index": 1, "relevance_score": 0.5},
    ]
    fake_provider.respond(RERANK_PATH, FakeResponse(json={"results": results}))
    scores = HttpRerankProvider(rerank_cfg(fake_provider)).rerank("q", ["d0", "d1", "d2"])

    assert scores == [0.1, 0.5, 0.9]
    (req,) = fake_provider.requests_to(RERANK_PATH)
    assert req.json == {"model": "rerank-v2", "query": "q", "documents": ["d0", "d1", "d2"]}
    assert req.header("Authorization") == f"Bearer {API_KEY}"


def test_rerank_scores_list_is_aligned(fake_provider):
    fake_provider.respond(RERANK_PATH, FakeResponse(json={"scores": [0.3, -1, 2.5]}))
    assert HttpRerankProvider(rerank_cfg(fake_provider)).rerank("q", ["a", "b", "c"]) == [0.3, -1.0, 2.5]


def test_rerank_missing_index_is_a_count_mismatch(fake_provider):
    results = [{"index": 0, "relevance_score": 0.9}, {"index": 2, "relevance_score": 0.1}]
    fake_provider.respond(RERANK_PATH, FakeResponse(json={"results": results}))
    with pytest.raises(ProviderCountMismatchError) as err:
        HttpRerankProvider(rerank_cfg(fake_provider)).rerank("q", ["a", "b", "c"])
    assert "no score for index 1" in err.value.message


def test_rerank_wrong_scores_count_is_a_count_mismatch(fake_provider):
    fake_provider.respond(RERANK_PATH, FakeResponse(json={"scores": [0.3]}))
    with pytest.raises(ProviderCountMismatchError):
        HttpRerankProvider(rerank_cfg(fake_provider)).rerank("q", ["a", "b"])


@pytest.mark.parametrize(
    "payload",
    [
        {"results": [{"index": 0, "relevance_score": 0.1}, {"index": 0, "relevance_score": 0.2}]},
        {"results": [{"index": 0, "relevance_score": 0.1}, {"index": 7, "relevance_score": 0.2}]},
        {"results": [{"index": "0", "relevance_score": 0.1}, {"index": 1, "relevance_score": 0.2}]},
        {"results": [{"index": 0, "relevance_score": None}, {"index": 1, "relevance_score": 0.2}]},
        {"data": [0.1, 0.2]},
    ],
)
def test_malformed_rerank_answers_are_rejected(fake_provider, payload):
    fake_provider.respond(RERANK_PATH, FakeResponse(json=payload))
    with pytest.raises(ProviderResponseError):
        HttpRerankProvider(rerank_cfg(fake_provider)).rerank("q", ["a", "b"])


def test_rerank_empty_docs_sends_nothing(fake_provider):
    assert HttpRerankProvider(rerank_cfg(fake_provider)).rerank("q", []) == []
    assert fake_provider.requests == []


# --- extractor --------------------------------------------------------------------------------------------


def test_extractor_request_shape(fake_provider):
    fake_provider.respond(CHAT_PATH, FakeResponse(json=chat_completion(json.dumps(VALID_NOTES))))
    assert extractor(fake_provider).extract(MESSAGES) == VALID_NOTES

    (req,) = fake_provider.requests_to(CHAT_PATH)
    body = req.json
    assert body["model"] == "gpt-x" and body["temperature"] == 0.1
    assert req.header("Authorization") == f"Bearer {API_KEY}"
    system, user = body["messages"]
    assert system["role"] == "system" and "memory extraction engine" in system["content"]
    assert user["role"] == "user"
    assert "- MAX_NOTES = 3" in user["content"] and "- MAX_NOTE_CHARS = 240" in user["content"]
    assert '"type": "preference|constraint|decision|profile|fact|plan"' in user["content"]
    shown = json.loads(user["content"].split("Here are the messages as JSON:\n", 1)[1])
    assert shown == [
        {"message_index": 0, "role": "user", "content": "I prefer tabs over spaces.", "msg_id": "m1"},
        {"message_index": 1, "role": "assistant", "content": "Noted."},
    ]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == RESPONSE_JSON_SCHEMA


def test_extractor_retries_invalid_json_once_then_succeeds(fake_provider):
    fake_provider.respond(
        CHAT_PATH,
        [
            FakeResponse(json=chat_completion("Sure! Here are the notes")),
            FakeResponse(json=chat_completion(json.dumps(VALID_NOTES))),
        ],
    )
    assert extractor(fake_provider).extract(MESSAGES) == VALID_NOTES

    first, second = fake_provider.requests_to(CHAT_PATH)
    assert len(first.json["messages"]) == 2
    retry = second.json["messages"][-1]
    assert retry["role"] == "user" and "not valid JSON" in retry["content"]


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"notes": "none"}', '{"notes": [1]}', '{"items": []}'])
def test_extractor_gives_up_after_three_calls(fake_provider, content):
    fake_provider.respond(CHAT_PATH, FakeResponse(json=chat_completion(content)))
    with pytest.raises(ExtractorOutputError) as err:
        extractor(fake_provider).extract(MESSAGES)
    assert len(fake_provider.requests_to(CHAT_PATH)) == MAX_CALLS == 3
    assert err.value.attempts == 3


def test_extractor_unexpected_answer_shape_counts_as_invalid(fake_provider):
    fake_provider.respond(CHAT_PATH, FakeResponse(json={"output": "?"}))
    with pytest.raises(ExtractorOutputError):
        extractor(fake_provider).extract(MESSAGES)
    assert len(fake_provider.requests_to(CHAT_PATH)) == 3


def test_extractor_falls_back_without_response_format(fake_provider):
    rejected = FakeResponse(status=400, json={"error": {"message": "Unknown parameter: 'response_format'."}})
    ok = FakeResponse(json=chat_completion(json.dumps(VALID_NOTES)))
    fake_provider.respond(CHAT_PATH, [rejected, ok])
    provider = extractor(fake_provider)

    assert provider.extract(MESSAGES) == VALID_NOTES
    first, second = fake_provider.requests_to(CHAT_PATH)
    assert "response_format" in first.json and "response_format" not in second.json
    assert len(second.json["messages"]) == 2

    provider.extract(MESSAGES)  # the adapter remembers: no response_format from now on
    assert "response_format" not in fake_provider.requests_to(CHAT_PATH)[2].json


def test_extractor_fallback_counts_toward_the_budget(fake_provider):
    rejected = FakeResponse(status=400, json={"error": {"message": "response_format json_schema unsupported"}})
    fake_provider.respond(CHAT_PATH, [rejected, FakeResponse(json=chat_completion("nope"))])
    with pytest.raises(ExtractorOutputError):
        extractor(fake_provider).extract(MESSAGES)
    assert len(fake_provider.requests_to(CHAT_PATH)) == 3


def test_extractor_other_http_errors_are_not_retried(fake_provider):
    fake_provider.respond(CHAT_PATH, FakeResponse(status=400, json={"error": {"message": "context length exceeded"}}))
    with pytest.raises(ProviderHTTPError) as err:
        extractor(fake_provider).extract(MESSAGES)
    assert err.value.status == 400
    assert len(fake_provider.requests_to(CHAT_PATH)) == 1


def test_extractor_timeout(fake_provider):
    fake_provider.respond(CHAT_PATH, FakeResponse(json=chat_completion("{}"), delay_s=5))
    with pytest.raises(ProviderTimeoutError) as err:
        extractor(fake_provider, timeout_ms=200).extract(MESSAGES)
    assert err.value.provider_kind == "extractor"


# --- factory ----------------------------------------------------------------------------------------------


def _http_config(server: FakeProviderServer):
    cfg = load_config(REPO / "elf.toml.example")
    providers = dataclasses.replace(
        cfg.providers,
        embedding=dataclasses.replace(emb_cfg(server), dimensions=cfg.storage.qdrant.vector_dim),
        rerank=rerank_cfg(server),
        llm_extractor=chat_cfg(server),
    )
    return dataclasses.replace(cfg, providers=providers)


def test_factory_builds_http_adapters_once_per_config(fake_provider):
    cfg = _http_config(fake_provider)
    embedding = factory.build_embedding(cfg)
    assert isinstance(embedding, HttpEmbeddingProvider)
    assert isinstance(factory.build_rerank(cfg), HttpRerankProvider)
    ext = factory.build_extractor(cfg)
    assert isinstance(ext, HttpExtractorProvider)
    assert (ext.max_notes, ext.max_note_chars) == (cfg.memory.max_notes_per_add_event, cfg.memory.max_note_chars)
    assert factory.build_embedding(cfg) is embedding
    other_embedding = emb_cfg(fake_provider, model="other", dimensions=cfg.storage.qdrant.vector_dim)
    other = dataclasses.replace(cfg, providers=dataclasses.replace(cfg.providers, embedding=other_embedding))
    assert factory.build_embedding(other) is not embedding
    assert (embedding.provider_id, embedding.model) == ("openai", "text-emb-3")
