"""Strict config: every rule of spec v2 sections 1-2 fails start-up of a real entry point with its key path."""

from __future__ import annotations

import copy
import dataclasses
import os
import subprocess
import tomllib

import pytest

from elf_config import ConfigError, load_config
from elf_config.toml_writer import dumps
from tests.conftest import REPO, entry_point

EXAMPLE = tomllib.loads((REPO / "elf.toml.example").read_text())
ENTRY_POINTS = ["elf-api", "elf-worker", "elf-stack", "manage.py"]


def _command(name: str, config: str | None) -> list[str]:
    tail = ["-c", config] if config else []
    if name == "manage.py":
        return [entry_point("python"), str(REPO / "manage.py"), "check", *tail]
    if name == "elf-stack":
        return [entry_point(name), "status", *tail]
    return [entry_point(name), *tail]


def _run(name: str, config: str | None) -> subprocess.CompletedProcess:
    return subprocess.run(_command(name, config), capture_output=True, text=True, timeout=60, cwd=REPO)


def _write(tmp_path, data: dict) -> str:
    path = tmp_path / "elf.toml"
    path.write_text(dumps(data))
    return str(path)


def _set(data: dict, dotted: str, value) -> dict:
    data = copy.deepcopy(data)
    *parents, leaf = dotted.split(".")
    node = data
    for p in parents:
        node = node[p]
    if value is DELETE:
        del node[leaf]
    else:
        node[leaf] = value
    return data


DELETE = object()

# (rule, key to change, new value, text the start-up error must contain)
RULES = [
    ("required field missing", "storage.postgres.dsn", DELETE, "storage.postgres.dsn is required"),
    ("required section missing", "providers.rerank", DELETE, "providers.rerank is required"),
    (
        "reject_non_english must be true",
        "security.reject_non_english",
        False,
        "security.reject_non_english must be true",
    ),
    ("embedding api_key non-empty", "providers.embedding.api_key", "", "providers.embedding.api_key must be non-empty"),
    ("rerank api_key non-empty", "providers.rerank.api_key", "  ", "providers.rerank.api_key must be non-empty"),
    (
        "extractor api_key non-empty",
        "providers.llm_extractor.api_key",
        "",
        "providers.llm_extractor.api_key must be non-empty",
    ),
    (
        "dimensions == vector_dim",
        "storage.qdrant.vector_dim",
        768,
        "providers.embedding.dimensions (384) must equal storage.qdrant.vector_dim (768)",
    ),
    ("chunking.enabled must be true", "chunking.enabled", False, "chunking.enabled must be true"),
    ("chunking.max_tokens > 0", "chunking.max_tokens", 0, "chunking.max_tokens must be greater than zero"),
    (
        "overlap < max_tokens",
        "chunking.overlap_tokens",
        256,
        "chunking.overlap_tokens must be less than chunking.max_tokens",
    ),
    (
        "chunks fit the local model",
        "chunking.max_tokens",
        512,
        "chunking.max_tokens (512) exceeds the local embedder's 256-token",
    ),
    (
        "scope_boost_weight range",
        "context.scope_boost_weight",
        1.5,
        "context.scope_boost_weight must be a finite number in the range 0.0-1.0",
    ),
    (
        "scope_boost_weight needs descriptions",
        "context.scope_boost_weight",
        0.3,
        "context.scope_descriptions must be present",
    ),
    ("type checked", "memory.top_k", "twelve", "memory.top_k must be an integer"),
    ("unknown key rejected", "memory.top_kk", 3, "memory.top_kk is not a known key"),
    ("expansion mode", "search.expansion.mode", "sometimes", "search.expansion.mode must be one of"),
    ("search mode", "search.default_mode", "deep", "search.default_mode must be one of"),
    (
        "read profile scopes",
        "scopes.read_profiles.private_only",
        ["agent_secret"],
        "scopes.read_profiles.private_only[0]",
    ),
    ("ttl for every type", "lifecycle.ttl_days.plan", DELETE, "lifecycle.ttl_days.plan is required"),
    ("broker url is redis", "worker.broker_url", "amqp://127.0.0.1:5672//", "worker.broker_url must be a redis:// URL"),
    (
        "docs collection differs",
        "storage.qdrant.docs_collection",
        "mem_notes_v2",
        "storage.qdrant.docs_collection must differ from storage.qdrant.collection",
    ),
    (
        "docs size limit range",
        "docs.max_doc_bytes",
        5 * 1024 * 1024,
        "docs.max_doc_bytes must be in the range [1, 4194304]",
    ),
    (
        "inferred confidence range",
        "core_memory.inferred_min_confidence",
        1.5,
        "core_memory.inferred_min_confidence must be in the range [0, 1]",
    ),
    (
        "bundle retention range",
        "acb.bundle_retention_days",
        0,
        "acb.bundle_retention_days must be in the range [1, 3650]",
    ),
    (
        "outbox lease range",
        "worker.outbox_lease_seconds",
        1.0,
        "worker.outbox_lease_seconds must be in the range [5, 3600]",
    ),
    ("stack data dir non-empty", "stack.data_dir", " ", "stack.data_dir must be a non-empty path"),
    (
        "encryption key file non-empty",
        "security.encryption_key_file",
        "",
        "security.encryption_key_file must be a non-empty path",
    ),
    (
        "secrets always redacted",
        "security.redact_secrets_on_write",
        False,
        "security.redact_secrets_on_write must be true",
    ),
    (
        "tokenizer it has",
        "chunking.tokenizer_repo",
        "bert-base-uncased",
        "chunking.tokenizer_repo 'bert-base-uncased' cannot",
    ),
    ("localhost-only binds", "service.http_bind", "0.0.0.0:8089", "service.http_bind binds 0.0.0.0"),
    ("binds use distinct ports", "service.admin_bind", "127.0.0.1:8089", "service.admin_bind uses port 8089"),
    ("evidence quote bounds", "security.evidence_max_quotes", 0, "security.evidence_max_quotes must be at least"),
    ("mcp read profile", "mcp.read_profile", "everything", "mcp.read_profile must be one of"),
    (
        "policy threshold range",
        "memory.policy.min_confidence",
        1.5,
        "memory.policy.min_confidence must be in the range",
    ),
    ("ranking formula", "ranking.formula", "linear", "ranking.formula must be one of rank_blend, spec_additive"),
    ("speaker weight range", "ranking.speaker_weight", 1.5, "ranking.speaker_weight must be between 0 and 1"),
    ("episode pull range", "ranking.episode_pull", 1.0, "ranking.episode_pull must be at least 0 and less than 1"),
    (
        "rate limit burst",
        "security.rate_limits",
        {"requests_per_second": 5, "burst": 0},
        "security.rate_limits.burst must be at least 1",
    ),
    (
        "rate limit write budget pair",
        "security.rate_limits",
        {"requests_per_second": 5, "burst": 5, "write_burst": 2},
        "security.rate_limits.write_requests_per_second and security.rate_limits.write_burst must be set together",
    ),
    (
        "rate limit write budget lower",
        "security.rate_limits",
        {"requests_per_second": 5, "burst": 5, "write_requests_per_second": 10, "write_burst": 2},
        "security.rate_limits.write_requests_per_second must be greater than zero and at most",
    ),
    (
        "rate limit store url",
        "security.rate_limits",
        {"requests_per_second": 5, "burst": 5, "redis_url": "http://x"},
        "security.rate_limits.redis_url must be a redis:// URL",
    ),
]


@pytest.mark.parametrize("rule,key,value,expected", RULES, ids=[r[0] for r in RULES])
def test_entry_point_refuses_broken_config(tmp_path, rule, key, value, expected):
    # Rotate through the entry points so each one is shown to refuse a broken config.
    name = ENTRY_POINTS[RULES.index((rule, key, value, expected)) % len(ENTRY_POINTS)]
    result = _run(name, _write(tmp_path, _set(EXAMPLE, key, value)))
    assert result.returncode != 0, result.stdout
    assert expected in result.stderr, result.stderr


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_entry_point_requires_config_flag(name):
    result = _run(name, None)
    assert result.returncode != 0
    assert "-c" in result.stderr and "config" in result.stderr


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_entry_point_reports_missing_file(tmp_path, name):
    result = _run(name, str(tmp_path / "nope.toml"))
    assert result.returncode != 0
    assert "config file not found" in result.stderr


def test_all_problems_reported_in_one_message(tmp_path):
    data = _set(_set(EXAMPLE, "storage.postgres.dsn", DELETE), "security.reject_non_english", False)
    data = _set(data, "service.log_level", DELETE)
    # Structural problems are reported together (rules run once the types are sound).
    result = _run("elf-api", _write(tmp_path, data))
    assert result.returncode == 2
    assert "storage.postgres.dsn is required" in result.stderr
    assert "service.log_level is required" in result.stderr


def test_environment_does_not_configure(tmp_path, monkeypatch):
    monkeypatch.setenv("ELF_STORAGE_POSTGRES_DSN", "postgresql://x:y@h:1/d")
    monkeypatch.setenv("DATABASE_URL", "postgresql://x:y@h:1/d")
    with pytest.raises(ConfigError) as err:
        load_config(_write(tmp_path, _set(EXAMPLE, "storage.postgres.dsn", DELETE)))
    assert "storage.postgres.dsn is required" in str(err.value)


def _leaf_keys(data: dict, prefix: str = "") -> list[str]:
    keys = []
    for k, v in data.items():
        path = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and k not in (
            "default_headers",
            "read_profiles",
            "precedence",
            "write_allowed",
            "ttl_days",
            "project_descriptions",
            "scope_descriptions",
        ):
            keys += _leaf_keys(v, path)
        else:
            keys.append(path)
    return keys


OPTIONAL = {
    "chunking.tokenizer_repo",
    "search.cache.max_payload_bytes",
    "search.explain.capture_candidates",
    "search.explain.candidate_retention_days",
    "search.explain.write_mode",
    "context.project_descriptions",
    "context.scope_descriptions",
    "context.scope_boost_weight",
    "mcp.read_profile",
    "docs.max_doc_bytes",
    "core_memory.inferred_min_confidence",
    "acb.bundle_retention_days",
    "ranking.formula",
    "ranking.speaker_weight",
    "ranking.episode_pull",
    # Keys beyond the spec's section 1 template: documented defaults (tests/config/test_config_template.py checks them).
    "stack.data_dir",
    "worker.broker_url",
    "search.default_mode",
    "memory.policy.min_confidence",
    "memory.policy.min_importance",
    "service.api_workers",
    "service.api_threads",
    "service.api_embed_threads",
    "worker.concurrency",
    "worker.prefetch_multiplier",
    "worker.nice",
    "worker.embed_threads",
}


@pytest.mark.parametrize("key", [k for k in _leaf_keys(EXAMPLE) if k not in OPTIONAL])
def test_every_required_key_is_required(tmp_path, key):
    with pytest.raises(ConfigError) as err:
        load_config(_write(tmp_path, _set(EXAMPLE, key, DELETE)))
    assert f"{key} is required" in str(err.value)


@pytest.mark.parametrize(
    "key",
    sorted(OPTIONAL)
    + ["context", "mcp", "core_memory", "acb", "stack", "worker", "docs", "memory.policy", "search.graph_context"],
)
def test_optional_keys_may_be_omitted(tmp_path, key):
    cfg = load_config(_write(tmp_path, _set(EXAMPLE, key, DELETE)))
    assert cfg.storage.qdrant.vector_dim == 384


# One attribute per key: an omitted key holds its documented default itself (no second property resolves it).
OMITTED_DEFAULTS = {
    "ranking.speaker_weight": 0.3,
    "ranking.episode_pull": 0.6,
    "storage.qdrant.docs_collection": "mem_notes_v2_docs",
    "worker.outbox_lease_seconds": 30.0,
    "docs.max_doc_bytes": 4 * 1024 * 1024,
    "core_memory.inferred_min_confidence": 0.8,
    "acb.bundle_retention_days": 7,
    "mcp.read_profile": "private_plus_project",
}


def _attr(cfg, dotted: str):
    for name in dotted.split("."):
        cfg = getattr(cfg, name)
    return cfg


@pytest.mark.parametrize("key", sorted(OMITTED_DEFAULTS))
def test_an_omitted_key_holds_its_default(tmp_path, key):
    *table, leaf = key.split(".")
    data = copy.deepcopy(EXAMPLE)
    node = data
    for name in table:
        node = node[name]
    node.pop(leaf, None)
    assert _attr(load_config(_write(tmp_path, data)), key) == OMITTED_DEFAULTS[key]


@pytest.mark.parametrize("table", ["core_memory", "acb"])
def test_an_omitted_table_holds_its_defaults(tmp_path, table):
    cfg = load_config(_write(tmp_path, _set(EXAMPLE, table, DELETE)))
    for key, default in OMITTED_DEFAULTS.items():
        if key.startswith(f"{table}."):
            assert _attr(cfg, key) == default


def test_ranking_formula_is_rank_blend_when_omitted(tmp_path):
    assert load_config(_write(tmp_path, _set(EXAMPLE, "ranking.formula", DELETE))).ranking.formula == "rank_blend"
    chosen = load_config(_write(tmp_path, _set(EXAMPLE, "ranking.formula", "spec_additive")))
    assert chosen.ranking.formula == "spec_additive"


def test_example_loads_and_is_frozen():
    cfg = load_config(REPO / "elf.toml.example")
    assert cfg.embedding_version == "local:all-MiniLM-L6-v2-qint8:384"
    assert cfg.storage.qdrant.docs_collection == "mem_notes_v2_docs"
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.memory.top_k = 3  # type: ignore[misc]
    assert os.path.isabs(cfg.resolve_path(cfg.stack.data_dir))


# --- [security] auth_mode and [[security.auth_keys]] ------------------------------------------------------------

SECRET = "s3cret-token-value-0123456789"


def _key(**kw) -> dict:
    return {
        "token_id": "k1",
        "token": SECRET,
        "tenant_id": "t1",
        "project_id": "p1",
        "agent_id": "a1",
        "role": "user",
        **kw,
    }


def _with_auth(mode, keys) -> dict:
    data = copy.deepcopy(EXAMPLE)
    if mode is not None:
        data["security"]["auth_mode"] = mode
    if keys is not None:
        data["security"]["auth_keys"] = keys
    return data


# (case, auth_mode, auth_keys, text the error must contain)
AUTH_RULES = [
    ("unknown mode", "oauth", None, "security.auth_mode must be one of off, static_keys"),
    ("static_keys needs keys", "static_keys", None, "security.auth_keys must list at least one key"),
    ("static_keys with empty list", "static_keys", [], "security.auth_keys must list at least one key"),
    (
        "duplicate token",
        "static_keys",
        [_key(), _key(token_id="k2")],
        "security.auth_keys[1].token (token_id 'k2') duplicates the token of security.auth_keys[0] (token_id 'k1')",
    ),
    (
        "duplicate token_id",
        "static_keys",
        [_key(), _key(token="another-token-value-123")],
        "security.auth_keys[1].token_id 'k1' duplicates security.auth_keys[0].token_id",
    ),
    (
        "short token",
        "static_keys",
        [_key(token="short-15-chars!")],
        "security.auth_keys[0].token (token_id 'k1') must be at least 16 characters",
    ),
    (
        "token with a space",
        "static_keys",
        [_key(token="has a space in the token")],
        "security.auth_keys[0].token (token_id 'k1') must contain only visible ASCII characters",
    ),
    ("empty token_id", "static_keys", [_key(token_id=" ")], "security.auth_keys[0].token_id must be non-empty"),
    (
        "bad read_profile",
        "static_keys",
        [_key(read_profile="everything")],
        "security.auth_keys[0].read_profile must be one of all_scopes, private_only, private_plus_project",
    ),
    (
        "role and admin disagree",
        "static_keys",
        [_key(role="admin", admin=False)],
        "security.auth_keys[0] sets both role and admin, and they disagree; set exactly one",
    ),
    (
        "role and admin both set",
        "static_keys",
        [_key(role="admin", admin=True)],
        "security.auth_keys[0] sets both role and admin; set exactly one",
    ),
    (
        "neither role nor admin",
        "static_keys",
        [{k: v for k, v in _key().items() if k != "role"}],
        "security.auth_keys[0].role is required",
    ),
    ("unknown role", "static_keys", [_key(role="root")], "security.auth_keys[0].role must be one of user, admin"),
    (
        "admin must be a bool",
        "static_keys",
        [{**_key(role=None), "admin": "yes"}],
        "security.auth_keys[0].admin must be a boolean",
    ),
    (
        "tenant id gate",
        "static_keys",
        [_key(tenant_id="tenant\u200b")],
        "security.auth_keys[0].tenant_id must be an English identifier",
    ),
    (
        "agent id length",
        "static_keys",
        [_key(agent_id="a" * 129)],
        "security.auth_keys[0].agent_id must be at most 128 characters",
    ),
    (
        "reserved project",
        "static_keys",
        [_key(project_id="__org__")],
        "security.auth_keys[0].project_id must not be the reserved project id __org__",
    ),
    (
        "unknown key field",
        "static_keys",
        [_key(scopes=["agent_private"])],
        "security.auth_keys[0].scopes is not a known key",
    ),
    (
        "missing tenant",
        "static_keys",
        [{k: v for k, v in _key().items() if k != "tenant_id"}],
        "security.auth_keys[0].tenant_id is required",
    ),
]


@pytest.mark.parametrize("case,mode,keys,expected", AUTH_RULES, ids=[r[0] for r in AUTH_RULES])
def test_auth_key_rules(tmp_path, case, mode, keys, expected):
    if keys:
        keys = [{k: v for k, v in key.items() if v is not None} for key in keys]
    with pytest.raises(ConfigError) as err:
        load_config(_write(tmp_path, _with_auth(mode, keys)))
    assert expected in str(err.value)
    assert SECRET not in str(err.value) and SECRET not in repr(err.value.problems)


def test_auth_mode_off_when_omitted_and_keys_load_without_their_token_in_repr(tmp_path):
    assert load_config(_write(tmp_path, EXAMPLE)).security.static_keys is False
    keys = [
        _key(),
        _key(token_id="k2", token="admin-token-value-0123", role=None, admin=True),
        _key(token_id="k3", token="third-token-value-0123", read_profile="private_only"),
    ]
    cfg = load_config(
        _write(tmp_path, _with_auth("static_keys", [{k: v for k, v in key.items() if v is not None} for key in keys]))
    )
    assert cfg.security.static_keys
    assert [(k.token_id, k.is_admin, k.read_profile) for k in cfg.security.auth_keys] == [
        ("k1", False, None),
        ("k2", True, None),
        ("k3", False, "private_only"),
    ]
    assert cfg.security.auth_keys[0].token == SECRET
    assert SECRET not in repr(cfg) and SECRET not in str(cfg.security)


def test_entry_point_reports_bad_keys_without_their_tokens(tmp_path):
    data = _with_auth("static_keys", [_key(), _key(token_id="k2", read_profile="everything")])
    result = _run("elf-api", _write(tmp_path, data))
    assert result.returncode == 2
    assert "security.auth_keys[1].token (token_id 'k2') duplicates" in result.stderr
    assert "security.auth_keys[1].read_profile must be one of" in result.stderr
    assert SECRET not in result.stderr + result.stdout
