"""The provider recipes of docs/providers.md (docs/recipes/*.toml: OpenAI, Ollama, vLLM, LiteLLM) start and work.

Each recipe is set over the test config (its keys replace the same keys; api_base points at the fake provider
server, storage at an isolated database and collection of the test stack), then a real elf-api and elf-worker
start on it and every provider the recipe configures is called over HTTP the way the real server is: add_note
embeds, add_event calls the extractor, a planned_search embeds the query and reranks. The fake answers in each
server's wire format (vLLM's refusal of "dimensions" included), so what is tested is ELF's side of the contract,
not the real servers.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib

import pytest
import requests

from elf_config import load_config
from elf_config.chunk_tokenizer import CL100K, MINILM, chunk_tokenizer
from elf_config.toml_writer import dumps
from tests.conftest import REPO
from tests.fake_provider_server import (
    FakeResponse,
    RecordedRequest,
    chat_completion,
    embeddings_handler,
    vllm_embeddings_handler,
)
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed

RECIPES_DIR = REPO / "docs" / "recipes"
DOCS_PAGE = REPO / "docs" / "providers.md"
EXAMPLE = tomllib.loads((REPO / "elf.toml.example").read_text())
# recipe: (chunk tokenizer, MiniLM fallback, embedding handler)
EXPECTED = {
    "openai": (CL100K, False, embeddings_handler),
    "ollama": (MINILM, True, embeddings_handler),
    "vllm": (MINILM, True, vllm_embeddings_handler),
    "litellm": (CL100K, False, embeddings_handler),
}
MESSAGE = "Remember that the staging database moves to the new cluster on Friday."
QUOTE = "the staging database moves to the new cluster on Friday"
FALLBACK_LOG = "chunking.tokenizer_repo is empty and ELF has no tokenizer for providers.embedding.model"


def recipe(name: str) -> dict:
    return tomllib.loads((RECIPES_DIR / f"{name}.toml").read_text())


def overlay(base: dict, keys: dict) -> dict:
    """``base`` with every key of ``keys`` set, table by table (what "set these keys in your elf.toml" means)."""
    out = copy.deepcopy(base)
    for key, value in keys.items():
        if isinstance(value, dict) and value and isinstance(out.get(key), dict):
            out[key] = overlay(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def test_the_docs_page_shows_every_recipe_file_verbatim():
    assert sorted(p.stem for p in RECIPES_DIR.glob("*.toml")) == sorted(EXPECTED)
    blocks = re.findall(r"```toml\n(.*?)```", DOCS_PAGE.read_text(), flags=re.S)
    for name in EXPECTED:
        assert (RECIPES_DIR / f"{name}.toml").read_text() in blocks, f"docs/providers.md lacks {name}.toml"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_recipe_loads_over_the_example_config(tmp_path, name):
    path = tmp_path / "elf.toml"
    path.write_text(dumps(overlay(EXAMPLE, recipe(name))))
    cfg = load_config(path)
    tokenizer, fallback, _ = EXPECTED[name]
    assert (chunk_tokenizer(cfg).name, chunk_tokenizer(cfg).fallback) == (tokenizer, fallback)
    assert cfg.providers.embedding.dimensions == cfg.storage.qdrant.vector_dim


def _extractor(request: RecordedRequest) -> FakeResponse:
    candidate = {"type": "fact", "key": None, "text": "Fact: the staging database moves to the new cluster on Friday.",
                 "importance": 0.6, "confidence": 0.9, "ttl_days": None, "structured": None,
                 "scope_suggestion": None, "evidence": [{"message_index": 0, "quote": QUOTE}], "reason": "stated"}
    return FakeResponse(json=chat_completion(json.dumps({"notes": [candidate]})))


def _reranker(request: RecordedRequest) -> FakeResponse:
    # Cohere/Jina/vLLM shape, best first (not in input order), as those servers answer.
    docs = request.json["documents"]
    ranked = sorted(range(len(docs)), key=lambda i: -len(set(docs[i].lower().split()) & {"staging", "database"}))
    return FakeResponse(json={"id": "rerank-fake", "model": request.json["model"], "results": [
        {"index": i, "document": {"text": docs[i]}, "relevance_score": 1.0 / (1 + rank)}
        for rank, i in enumerate(ranked)]})


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_recipe_starts_and_calls_its_providers_over_http(isolated_services, name):
    keys = recipe(name)
    tokenizer, fallback, embed_handler = EXPECTED[name]

    def apply(data):
        fake_url = data["providers"]["embedding"]["api_base"]
        merged = overlay(data, keys)
        for table in merged["providers"].values():
            if not table["api_base"].startswith("local://"):
                table["api_base"] = fake_url  # the recipe's server, played by the fake
        merged["service"]["api_workers"] = 1
        merged["worker"]["concurrency"] = 1
        data.clear()
        data.update(merged)

    s = isolated_services(f"recipe_{name}", apply)
    emb, rer, ext = (keys["providers"][k] for k in ("embedding", "rerank", "llm_extractor"))
    s.fake.handle(emb["path"], embed_handler(emb["dimensions"]))
    s.fake.handle(ext["path"], _extractor)
    if rer["provider_id"] != "local":
        s.fake.handle(rer["path"], _reranker)
    s.start_api()
    s.start_worker()
    assert (FALLBACK_LOG in s.api.output()) is fallback
    assert (FALLBACK_LOG in s.workers[0].output()) is fallback
    assert chunk_tokenizer(s.cfg).name == tokenizer

    # add_note: the embedding endpoint, then the worker indexes the note.
    res = ingest(s, [note("Fact: the staging database runs on port 5433.")]).json()["results"][0]
    assert res["op"] == "ADD", res
    wait_indexed(s, res["note_id"])
    # add_event: the extractor, whose quote binds to the message.
    r = requests.post(s.public + "/v2/events/ingest", headers=headers(), timeout=60,
                      json={"messages": [{"role": "user", "content": MESSAGE}]})
    assert r.status_code == 200, r.text
    assert [x["op"] for x in r.json()["results"]] == ["ADD"], r.json()
    wait_indexed(s, r.json()["results"][0]["note_id"])
    # planned_search: the query is embedded, the candidates reranked.
    r = requests.post(
        s.public + "/v2/searches",
        timeout=60,
        json={"query": "staging database", "mode": "planned_search"},
        headers={**headers(), "X-ELF-Read-Profile": "private_only"},
    )
    assert r.status_code == 200, r.text
    assert {i["note_id"] for i in r.json()["items"]} >= {res["note_id"]}

    for table in (emb, ext, rer):
        if table["provider_id"] == "local":
            continue
        calls = s.fake.requests_to(table["path"])
        assert calls, f"{table['path']} was never called"
        assert {c.json["model"] for c in calls} == {table["model"]}
        assert {c.header("Authorization") for c in calls} == {f"Bearer {table['api_key']}"}
    embeds = [c.json for c in s.fake.requests_to(emb["path"])]
    if name == "vllm":  # refused once with "dimensions", then sent without it
        assert "dimensions" in embeds[0] and all("dimensions" not in b for b in embeds[1:]), embeds
        assert s.fake.requests_to(emb["path"])[1].json["input"] == embeds[0]["input"]
    else:
        assert all(b["dimensions"] == emb["dimensions"] for b in embeds)
    (chat,) = s.fake.requests_to(ext["path"])
    assert chat.json["response_format"]["type"] == "json_schema" and chat.json["temperature"] == ext["temperature"]
    if rer["provider_id"] != "local":
        assert len(s.fake.requests_to(rer["path"])) == 1
    vectors = rows(s, "SELECT DISTINCT embedding_dim FROM note_chunk_embeddings")
    assert vectors == [(emb["dimensions"],)]
