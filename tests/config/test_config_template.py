"""A config written to the spec v2 section 1 template, filled in and nothing added, loads with the strict loader
and starts elf-api; the keys ELF adds beyond the template take their documented defaults; and the template keys
whose meaning ELF gives (chunking.tokenizer_repo, security.redact_secrets_on_write, scopes.precedence) do it or
are refused at start-up naming the key."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from elf_config import ConfigError, load_config
from elf_config.schema import DEFAULT_BROKER_URL
from elf_config.toml_writer import value as toml_value
from tests.conftest import CONTEXT_HEADERS, REPO, TEST_CONFIG

TEMPLATE = REPO / "tests" / "data" / "spec_v2_config_template.toml.in"
_SECTION = re.compile(r"^\[([^\]]+)\]\s*$")
_KEY_LINE = re.compile(r"^(\w+) = (.*)$")

LOCAL_PROVIDER = {
    "provider_id": "local",
    "api_base": "local://in-process",
    "api_key": "local-no-key",
    "timeout_ms": 10000,
}
# Every placeholder ("<...>") and every "a|b|c" choice of the template, by its dotted key: the local providers as
# elf.toml.example uses them; the binds, DSN and Qdrant URL are given per test.
FILL = {
    "service.log_level": "info",
    "storage.postgres.pool_max_conns": 10,
    "storage.qdrant.vector_dim": 384,
    **{f"providers.embedding.{k}": v for k, v in LOCAL_PROVIDER.items()},
    "providers.embedding.path": "/v1/embeddings",
    "providers.embedding.model": "all-MiniLM-L6-v2-qint8",
    "providers.embedding.dimensions": 384,
    **{f"providers.rerank.{k}": v for k, v in LOCAL_PROVIDER.items()},
    "providers.rerank.path": "/v1/rerank",
    "providers.rerank.model": "local-embed-overlap",
    **{f"providers.llm_extractor.{k}": v for k, v in LOCAL_PROVIDER.items()},
    "providers.llm_extractor.path": "/v1/chat/completions",
    "providers.llm_extractor.model": "local-rules",
    "providers.llm_extractor.temperature": 0.0,
    "chunking.max_tokens": 256,
    "chunking.overlap_tokens": 64,
    "chunking.tokenizer_repo": "",
    "search.expansion.mode": "off",
    "search.expansion.max_queries": 4,
    "search.expansion.include_original": True,
    "search.dynamic.min_candidates": 10,
    "search.dynamic.min_top_score": 0.12,
    "search.prefilter.max_candidates": 0,
    "search.cache.enabled": True,
    "search.cache.expansion_ttl_days": 7,
    "search.cache.rerank_ttl_days": 7,
    "search.cache.max_payload_bytes": 262144,
    "search.explain.retention_days": 7,
    "search.explain.capture_candidates": False,
    "search.explain.candidate_retention_days": 2,
    "search.explain.write_mode": "outbox",
    "context.project_descriptions": {},
    "context.scope_descriptions": {},
    "context.scope_boost_weight": 0.0,
    "mcp.tenant_id": "t1",
    "mcp.project_id": "p1",
    "mcp.agent_id": "a1",
    "mcp.read_profile": "private_plus_project",
}
TEST_STACK = tomllib.loads(TEST_CONFIG.read_text())
FIXED_ENV = {
    "service.http_bind": "127.0.0.1:18289",
    "service.mcp_bind": "127.0.0.1:18291",
    "service.admin_bind": "127.0.0.1:18290",
    "storage.postgres.dsn": TEST_STACK["storage"]["postgres"]["dsn"],
    "storage.qdrant.url": TEST_STACK["storage"]["qdrant"]["url"],
}


def fill_template(values: dict) -> str:
    """The template's text, line for line, with the value of each placeholder or choice line replaced by
    ``values["<section>.<key>"]``; every such line must be filled and every value used."""
    unused = dict(values)
    section, lines = "", []
    for line in TEMPLATE.read_text().splitlines():
        if m := _SECTION.match(line):
            section = m.group(1)
        elif (m := _KEY_LINE.match(line)) and ("<" in m.group(2) or "|" in m.group(2)):
            key = f"{section}.{m.group(1)}"
            assert key in unused, f"the template's {key} is not filled"
            line = f"{m.group(1)} = {toml_value(unused.pop(key))}"
        lines.append(line)
    assert not unused, f"not template placeholders: {sorted(unused)}"
    return "\n".join(lines) + "\n"


def write_template(path: Path, **over) -> Path:
    path.write_text(fill_template({**FILL, **FIXED_ENV, **over}))
    return path


def test_the_filled_template_keeps_the_template_keys_and_adds_none(tmp_path):
    raw = tomllib.loads(write_template(tmp_path / "elf.toml").read_text())
    assert sorted(raw) == [
        "chunking",
        "context",
        "lifecycle",
        "mcp",
        "memory",
        "providers",
        "ranking",
        "scopes",
        "search",
        "security",
        "service",
        "storage",
    ]
    assert sorted(raw["search"]) == ["cache", "dynamic", "expansion", "explain", "prefilter"]
    assert raw["storage"]["qdrant"]["collection"] == "mem_notes_v2" and "<" not in str(raw)


CONTEXT_MAPS = {
    "empty maps": {},
    "filled maps": {
        "context.project_descriptions": {"t1:p1": "The harbour operations service.", "p1": "Harbour ops."},
        "context.scope_descriptions": {"project_shared": "Team conventions and decisions."},
        "context.scope_boost_weight": 0.1,
    },
}


@pytest.mark.parametrize("context", CONTEXT_MAPS.values(), ids=CONTEXT_MAPS.keys())
def test_strict_loader_loads_the_template_and_defaults_every_key_beyond_it(tmp_path, context):
    path = write_template(tmp_path / "elf.toml", **context)
    cfg = load_config(path)
    assert cfg.context.scope_boost_weight == context.get("context.scope_boost_weight", 0.0)
    assert cfg.mcp.read_profile == "private_plus_project"
    # The documented defaults of the keys ELF adds beyond the template (docs/configuration.md).
    assert Path(cfg.resolve_path(cfg.stack.data_dir)) == tmp_path / "var" / "stack"
    assert Path(cfg.encryption_key_path) == tmp_path / "var" / "stack" / "event_log_key"
    assert (cfg.worker.broker_url, cfg.worker.outbox_lease_seconds) == (DEFAULT_BROKER_URL, 30.0)
    assert cfg.search.default_mode == "planned_search"
    assert (cfg.service.api_workers, cfg.service.api_threads, cfg.service.api_embed_threads) == ("auto", 4, "auto")
    assert (cfg.worker.concurrency, cfg.worker.prefetch_multiplier, cfg.worker.nice, cfg.worker.embed_threads) == (
        "auto",
        1,
        10,
        "auto",
    )
    assert (cfg.memory.policy.min_confidence, cfg.memory.policy.min_importance) == (0.0, 0.0)
    assert not cfg.search.relation_context_on and not cfg.docs_enabled
    assert cfg.storage.qdrant.docs_collection == "mem_notes_v2_docs"
    assert (cfg.core_memory.inferred_min_confidence, cfg.acb.bundle_retention_days) == (0.8, 7)
    assert not cfg.security.static_keys and cfg.mcp.auth_token_id is None


def test_a_template_key_left_out_is_still_required(tmp_path):
    text = write_template(tmp_path / "elf.toml").read_text().replace("top_k = 12\n", "")
    (tmp_path / "elf.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path / "elf.toml")
    assert err.value.problems == ["memory.top_k is required"]


@pytest.fixture
def default_broker(tmp_path):
    """A Redis where a config without [worker] looks for its broker (the embedded stack's port): the one
    already answering there, else one started for the test and stopped after it."""
    from elf_infra.stack.procs import port_open
    from elf_infra.stack.redis import RedisComponent

    url = urlsplit(DEFAULT_BROKER_URL)
    if port_open(url.hostname, url.port):
        yield
        return
    redis = RedisComponent(DEFAULT_BROKER_URL, tmp_path / "default-broker")
    redis.up()
    try:
        yield
    finally:
        redis.down()


def test_elf_api_starts_on_the_filled_template(isolated_services, default_broker):
    """The template filled in, nothing added, on this test's own database and ports on the test stack. The one
    value changed from the template's text is the collection name, so that the test owns (and drops) its
    collection instead of the shared mem_notes_v2."""
    written = {}

    def to_template(data: dict) -> None:
        env = {f"service.{k}": data["service"][k] for k in ("http_bind", "mcp_bind", "admin_bind")}
        env["storage.postgres.dsn"] = data["storage"]["postgres"]["dsn"]
        env["storage.qdrant.url"] = data["storage"]["qdrant"]["url"]
        text = fill_template({**FILL, **env}).replace(
            'collection = "mem_notes_v2"', f'collection = "{data["storage"]["qdrant"]["collection"]}"'
        )
        written["text"] = text
        data.clear()
        data.update(tomllib.loads(text))

    s = isolated_services("template", to_template)
    s.config_path.write_text(written["text"])  # the template's own text, comments and all
    s.cfg = load_config(s.config_path)
    s.start_api()
    for base in (s.public, s.admin):
        health = requests.get(base + "/health", timeout=30)
        assert health.status_code == 200, health.text
        assert health.json()["checks"] == {"postgres": "ok", "qdrant": "ok", "broker": "ok"}
    added = requests.post(
        s.public + "/v2/notes/ingest",
        headers=CONTEXT_HEADERS,
        timeout=60,
        json={
            "scope": "agent_private",
            "notes": [
                {
                    "type": "fact",
                    "text": "Fact: the harbour crane lifts forty tonnes.",
                    "importance": 0.5,
                    "confidence": 0.9,
                }
            ],
        },
    )
    assert added.status_code == 200, added.text
    assert added.json()["results"][0]["op"] == "ADD"
