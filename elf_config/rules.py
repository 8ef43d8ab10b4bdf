"""Cross-field rules of spec v2 sections 1-2 (and of the embedded stack), checked after types are known."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from elf_domain.vocabulary import (
    EXPANSION_MODES,
    KNOWN_SCOPES,
    MEMORY_TYPES,
    RANKING_FORMULAS,
    READ_PROFILES,
    SEARCH_MODES,
    TRACE_WRITE_MODES,
)

from .chunk_tokenizer import (
    OPENAI_EMBEDDING_MAX_INPUT_TOKENS,
    explicit_tokenizer_problem,
    openai_embedding_model,
)
from .identifiers import ORG_PROJECT_ID, identifier_problem
from .postgres_sizing import settings_problems
from .schema import AUTH_MODES, AUTH_ROLES, DENSE_QUANTIZATIONS, AuthKeyConfig, AuthRole, ElfConfig
from .sizing import sizing_problems

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
MIN_TOKEN_CHARS = 16
MAX_GRAPH_FACTS_PER_ITEM = 64
MAX_DOC_BYTES = 4 * 1024 * 1024
MIN_BUNDLE_RETENTION_DAYS, MAX_BUNDLE_RETENTION_DAYS = 1, 3650
# A lease shorter than one indexing job would let a second worker take a row still being processed.
MIN_LEASE_SECONDS, MAX_LEASE_SECONDS = 5.0, 3600.0
LOCAL_PROVIDER = "local"
LOCAL_EMBEDDING_DIM = 384
# The local embedder's model ids (elf_infra.providers.local_embedder): int8 products (derived locally from the
# bundled file, the default) or the bundled file as it is (int8-stored weights, float32 products).
LOCAL_EMBEDDING_QINT8 = "all-MiniLM-L6-v2-qint8"
LOCAL_EMBEDDING_FLOAT32 = "all-MiniLM-L6-v2-int8"
LOCAL_EMBEDDING_MODELS = (LOCAL_EMBEDDING_QINT8, LOCAL_EMBEDDING_FLOAT32)
# The local MiniLM reads at most this many tokens (elf_infra.providers.local_embedder.MAX_TOKENS).
LOCAL_EMBEDDING_MAX_TOKENS = 256


def parse_bind(bind: str) -> tuple[str, int] | None:
    """Split ``HOST:PORT`` (``[::1]:PORT`` for IPv6); None when malformed."""
    host, sep, port = bind.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    n = int(port)
    if not 0 < n < 65536:
        return None
    return host, n


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _url_ok(url: str, schemes: tuple[str, ...]) -> bool:
    parts = urlsplit(url)
    return parts.scheme in schemes and bool(parts.hostname)


def check_rules(cfg: ElfConfig) -> list[str]:
    p: list[str] = []
    _service(cfg, p)
    _storage(cfg, p)
    _providers(cfg, p)
    _scopes(cfg, p)
    _memory(cfg, p)
    _chunking(cfg, p)
    _search(cfg, p)
    _lifecycle(cfg, p)
    _security(cfg, p)
    _auth_keys(cfg, p)
    _rate_limits(cfg, p)
    _context(cfg, p)
    _mcp(cfg, p)
    p.extend(sizing_problems(cfg))
    if not cfg.stack.data_dir.strip():
        p.append("stack.data_dir must be a non-empty path")
    p.extend(settings_problems(cfg.stack.postgres_memory, cfg.stack.postgres_settings))
    if not _url_ok(cfg.worker.broker_url, ("redis", "rediss")):
        p.append("worker.broker_url must be a redis:// URL with a host")
    if cfg.docs is not None and not 1 <= cfg.docs.max_doc_bytes <= MAX_DOC_BYTES:
        p.append(f"docs.max_doc_bytes must be in the range [1, {MAX_DOC_BYTES}] (the body limit of /v2/docs)")
    if not 0.0 <= cfg.core_memory.inferred_min_confidence <= 1.0:
        p.append("core_memory.inferred_min_confidence must be in the range [0, 1]")
    if not MIN_BUNDLE_RETENTION_DAYS <= cfg.acb.bundle_retention_days <= MAX_BUNDLE_RETENTION_DAYS:
        p.append(f"acb.bundle_retention_days must be in the range [{MIN_BUNDLE_RETENTION_DAYS}, "
                 f"{MAX_BUNDLE_RETENTION_DAYS}]")
    if not MIN_LEASE_SECONDS <= cfg.worker.outbox_lease_seconds <= MAX_LEASE_SECONDS:
        p.append(f"worker.outbox_lease_seconds must be in the range [{MIN_LEASE_SECONDS:g}, {MAX_LEASE_SECONDS:g}]")
    return p


def _service(cfg: ElfConfig, p: list[str]) -> None:
    s = cfg.service
    ports: dict[int, str] = {}
    for name in ("http_bind", "admin_bind", "mcp_bind"):
        parsed = parse_bind(getattr(s, name))
        if parsed is None:
            p.append(f"service.{name} must be HOST:PORT with a port in 1-65535")
            continue
        host, port = parsed
        if port in ports:
            p.append(f"service.{name} uses port {port}, already used by service.{ports[port]}")
        ports[port] = name
        if cfg.security.bind_localhost_only and not is_loopback(host):
            p.append(
                f"service.{name} binds {host}, but security.bind_localhost_only = true requires a loopback address"
            )
    if s.log_level.lower() not in LOG_LEVELS:
        p.append(f"service.log_level must be one of {', '.join(LOG_LEVELS)}")


def _storage(cfg: ElfConfig, p: list[str]) -> None:
    pg, q = cfg.storage.postgres, cfg.storage.qdrant
    if not _url_ok(pg.dsn, ("postgresql", "postgres")) or not urlsplit(pg.dsn).path.strip("/"):
        p.append("storage.postgres.dsn must be a postgresql://USER:PASSWORD@HOST:PORT/DATABASE URL")
    if pg.pool_max_conns <= 0:
        p.append("storage.postgres.pool_max_conns must be greater than zero")
    if not _url_ok(q.url, ("http", "https")):
        p.append("storage.qdrant.url must be an http(s):// URL with a host")
    if not q.collection.strip():
        p.append("storage.qdrant.collection must be non-empty")
    if not (q.docs_collection or "").strip():
        p.append("storage.qdrant.docs_collection must be non-empty when given")
    if q.docs_collection == q.collection:
        p.append("storage.qdrant.docs_collection must differ from storage.qdrant.collection")
    if q.vector_dim <= 0:
        p.append("storage.qdrant.vector_dim must be greater than zero")
    if q.dense_quantization not in DENSE_QUANTIZATIONS:
        p.append(f"storage.qdrant.dense_quantization must be one of {', '.join(DENSE_QUANTIZATIONS)}")


def _providers(cfg: ElfConfig, p: list[str]) -> None:
    for name in ("embedding", "rerank", "llm_extractor"):
        prov = getattr(cfg.providers, name)
        key = f"providers.{name}"
        if not prov.provider_id.strip():
            p.append(f"{key}.provider_id must be non-empty")
        if not prov.api_key.strip():
            p.append(f"{key}.api_key must be non-empty")
        if not prov.model.strip():
            p.append(f"{key}.model must be non-empty")
        if prov.timeout_ms <= 0:
            p.append(f"{key}.timeout_ms must be greater than zero")
        if prov.provider_id != LOCAL_PROVIDER:
            if not _url_ok(prov.api_base, ("http", "https")):
                p.append(f"{key}.api_base must be an http(s):// URL for provider_id {prov.provider_id!r}")
            if not prov.path.startswith("/"):
                p.append(f"{key}.path must start with '/'")
    emb = cfg.providers.embedding
    if emb.dimensions != cfg.storage.qdrant.vector_dim:
        p.append(
            f"providers.embedding.dimensions ({emb.dimensions}) must equal storage.qdrant.vector_dim "
            f"({cfg.storage.qdrant.vector_dim})"
        )
    if emb.provider_id == LOCAL_PROVIDER and emb.dimensions != LOCAL_EMBEDDING_DIM:
        p.append(f"providers.embedding.dimensions must be {LOCAL_EMBEDDING_DIM} for the local embedder")
    if emb.provider_id == LOCAL_PROVIDER and emb.model not in LOCAL_EMBEDDING_MODELS:
        p.append(
            f"providers.embedding.model must be one of {', '.join(map(repr, LOCAL_EMBEDDING_MODELS))} for the "
            f"local embedder (int8 products, or the bundled file's float32 products), not {emb.model!r}"
        )
    if cfg.providers.llm_extractor.temperature < 0:
        p.append("providers.llm_extractor.temperature must be zero or greater")


def _scopes(cfg: ElfConfig, p: list[str]) -> None:
    s = cfg.scopes
    if not s.allowed:
        p.append("scopes.allowed must list at least one scope")
    for i, scope in enumerate(s.allowed):
        if scope not in KNOWN_SCOPES:
            p.append(f"scopes.allowed[{i}] {scope!r} is not one of {', '.join(KNOWN_SCOPES)}")
    for prof in READ_PROFILES:
        if prof not in s.read_profiles:
            p.append(f"scopes.read_profiles.{prof} is required")
    for prof, scopes in s.read_profiles.items():
        if prof not in READ_PROFILES:
            p.append(f"scopes.read_profiles.{prof} is not one of {', '.join(READ_PROFILES)}")
        for i, scope in enumerate(scopes):
            if scope not in s.allowed:
                p.append(f"scopes.read_profiles.{prof}[{i}] {scope!r} is not in scopes.allowed")
    for table in ("precedence", "write_allowed"):
        entries = getattr(s, table)
        for scope in s.allowed:
            if scope not in entries:
                p.append(f"scopes.{table}.{scope} is required")
        for scope in entries:
            if scope not in s.allowed:
                p.append(f"scopes.{table}.{scope} is not in scopes.allowed")


def _memory(cfg: ElfConfig, p: list[str]) -> None:
    m = cfg.memory
    for name in ("max_notes_per_add_event", "max_note_chars", "candidate_k", "top_k"):
        if getattr(m, name) <= 0:
            p.append(f"memory.{name} must be greater than zero")
    for name in ("dup_sim_threshold", "update_sim_threshold"):
        if not 0.0 <= getattr(m, name) <= 1.0:
            p.append(f"memory.{name} must be in the range 0.0-1.0")
    if m.update_sim_threshold > m.dup_sim_threshold:
        p.append("memory.update_sim_threshold must not exceed memory.dup_sim_threshold")
    if m.top_k > m.candidate_k:
        p.append("memory.top_k must not exceed memory.candidate_k")
    for name in ("min_confidence", "min_importance"):
        if not 0.0 <= getattr(m.policy, name) <= 1.0:
            p.append(f"memory.policy.{name} must be in the range 0.0-1.0")


def _chunking(cfg: ElfConfig, p: list[str]) -> None:
    c = cfg.chunking
    if not c.enabled:
        p.append("chunking.enabled must be true")
    if c.max_tokens <= 0:
        p.append("chunking.max_tokens must be greater than zero")
    if c.overlap_tokens < 0:
        p.append("chunking.overlap_tokens must be zero or greater")
    if c.overlap_tokens >= c.max_tokens:
        p.append("chunking.overlap_tokens must be less than chunking.max_tokens")
    if cfg.providers.embedding.provider_id == LOCAL_PROVIDER and c.max_tokens > LOCAL_EMBEDDING_MAX_TOKENS:
        p.append(
            f"chunking.max_tokens ({c.max_tokens}) exceeds the local embedder's {LOCAL_EMBEDDING_MAX_TOKENS}-token "
            "window: the rest of each chunk would never be embedded"
        )
    # Spec v2 section 1: chunks are counted with chunking.tokenizer_repo's tokenizer, empty meaning the embedding
    # model's. An explicit name ELF has no tokenizer for is refused; an inherited one falls back (chunk_tokenizer).
    problem = explicit_tokenizer_problem(cfg)
    if problem:
        p.append(problem)
        return
    openai_model = openai_embedding_model(cfg.providers.embedding.model)
    if openai_model and c.max_tokens > OPENAI_EMBEDDING_MAX_INPUT_TOKENS:
        p.append(
            f"chunking.max_tokens ({c.max_tokens}) exceeds {openai_model}'s {OPENAI_EMBEDDING_MAX_INPUT_TOKENS}-token "
            "input limit: the provider would refuse every longer chunk"
        )


def _search(cfg: ElfConfig, p: list[str]) -> None:
    s = cfg.search
    if s.default_mode not in SEARCH_MODES:
        p.append(f"search.default_mode must be one of {', '.join(SEARCH_MODES)}")
    if s.expansion.mode not in EXPANSION_MODES:
        p.append(f"search.expansion.mode must be one of {', '.join(EXPANSION_MODES)}")
    if s.expansion.max_queries <= 0:
        p.append("search.expansion.max_queries must be greater than zero")
    if s.dynamic.min_candidates < 0:
        p.append("search.dynamic.min_candidates must be zero or greater")
    if s.prefilter.max_candidates < 0:
        p.append("search.prefilter.max_candidates must be zero or greater")
    for name in ("expansion_ttl_days", "rerank_ttl_days"):
        if getattr(s.cache, name) <= 0:
            p.append(f"search.cache.{name} must be greater than zero")
    if s.cache.max_payload_bytes is not None and s.cache.max_payload_bytes <= 0:
        p.append("search.cache.max_payload_bytes must be greater than zero (omit it to disable the limit)")
    if s.explain.retention_days <= 0:
        p.append("search.explain.retention_days must be greater than zero")
    crd = s.explain.candidate_retention_days
    if crd is not None and crd <= 0:
        p.append("search.explain.candidate_retention_days must be greater than zero")
    if s.explain.write_mode is not None and s.explain.write_mode not in TRACE_WRITE_MODES:
        p.append("search.explain.write_mode must be 'outbox' or 'inline'")
    g = s.graph_context
    if g is not None:
        for name, top in (("max_facts_per_item", MAX_GRAPH_FACTS_PER_ITEM), ("max_evidence_notes_per_fact", 64)):
            if not 1 <= getattr(g, name) <= top:
                p.append(f"search.graph_context.{name} must be in the range [1, {top}]")


def _lifecycle(cfg: ElfConfig, p: list[str]) -> None:
    lc = cfg.lifecycle
    for t in MEMORY_TYPES:
        if t not in lc.ttl_days:
            p.append(f"lifecycle.ttl_days.{t} is required")
    for t, days in lc.ttl_days.items():
        if t not in MEMORY_TYPES:
            p.append(f"lifecycle.ttl_days.{t} is not a memory type ({', '.join(MEMORY_TYPES)})")
        elif days < 0:
            p.append(f"lifecycle.ttl_days.{t} must be zero or greater")
    for name in ("purge_deleted_after_days", "purge_deprecated_after_days"):
        if getattr(lc, name) <= 0:
            p.append(f"lifecycle.{name} must be greater than zero")
    if cfg.ranking.recency_tau_days <= 0:
        p.append("ranking.recency_tau_days must be greater than zero")
    if cfg.ranking.tie_breaker_weight < 0:
        p.append("ranking.tie_breaker_weight must be zero or greater")
    if not 0 <= cfg.ranking.speaker_weight <= 1:
        p.append("ranking.speaker_weight must be between 0 and 1")
    if not 0 <= cfg.ranking.episode_pull < 1:
        p.append("ranking.episode_pull must be at least 0 and less than 1")
    if cfg.ranking.formula not in RANKING_FORMULAS:
        p.append(f"ranking.formula must be one of {', '.join(RANKING_FORMULAS)} (omit it for rank_blend)")


def _security(cfg: ElfConfig, p: list[str]) -> None:
    s = cfg.security
    if not s.reject_non_english:
        p.append("security.reject_non_english must be true")
    if not s.redact_secrets_on_write:
        p.append(
            "security.redact_secrets_on_write must be true: ELF has no mode that stores secrets (add_event "
            "messages and event-log events are redacted on write, and the WriteGate, always on per spec v2 "
            "section 9, rejects a note holding one)"
        )
    if s.evidence_min_quotes < 1:
        p.append("security.evidence_min_quotes must be at least 1")
    if s.evidence_max_quotes < s.evidence_min_quotes:
        p.append("security.evidence_max_quotes must be at least security.evidence_min_quotes")
    if s.evidence_max_quote_chars <= 0:
        p.append("security.evidence_max_quote_chars must be greater than zero")
    if s.encryption_key_file is not None and not s.encryption_key_file.strip():
        p.append("security.encryption_key_file must be a non-empty path (omit it for <stack.data_dir>/event_log_key)")


def _auth_keys(cfg: ElfConfig, p: list[str]) -> None:
    """Error messages name a key by its index and token_id, never by its token."""
    s = cfg.security
    if s.auth_mode not in AUTH_MODES:
        p.append(f"security.auth_mode must be one of {', '.join(AUTH_MODES)}")
    keys = s.auth_keys or []
    if s.static_keys and not keys:
        p.append('security.auth_keys must list at least one key when security.auth_mode = "static_keys"')
    first_id: dict[str, int] = {}
    first_token: dict[str, int] = {}
    for i, key in enumerate(keys):
        at = f"security.auth_keys[{i}]"
        _auth_key(cfg, key, at, p)
        if key.token_id in first_id:
            j = first_id[key.token_id]
            p.append(f"{at}.token_id {key.token_id!r} duplicates security.auth_keys[{j}].token_id")
        first_id.setdefault(key.token_id, i)
        if key.token in first_token:
            j = first_token[key.token]
            p.append(
                f"{at}.token (token_id {key.token_id!r}) duplicates the token of security.auth_keys[{j}] "
                f"(token_id {keys[j].token_id!r}); every key needs its own token"
            )
        first_token.setdefault(key.token, i)


def _auth_key(cfg: ElfConfig, key: AuthKeyConfig, at: str, p: list[str]) -> None:
    if not key.token_id.strip():
        p.append(f"{at}.token_id must be non-empty")
    named = f"{at}.token (token_id {key.token_id!r})"
    if len(key.token) < MIN_TOKEN_CHARS:
        p.append(f"{named} must be at least {MIN_TOKEN_CHARS} characters")
    if not all("!" <= ch <= "~" for ch in key.token):
        # What a client can send after "Bearer " in a header: visible ASCII, no spaces.
        p.append(f"{named} must contain only visible ASCII characters (no spaces)")
    for name in ("tenant_id", "project_id", "agent_id"):
        why = identifier_problem(getattr(key, name))
        if why:
            p.append(f"{at}.{name} {why}")
    if key.project_id == ORG_PROJECT_ID:
        p.append(f"{at}.project_id must not be the reserved project id {ORG_PROJECT_ID}")
    profiles = cfg.scopes.read_profiles
    if key.read_profile is not None and key.read_profile not in profiles:
        p.append(f"{at}.read_profile must be one of {', '.join(sorted(profiles))}")
    if key.role is not None and key.admin is not None:
        agree = (key.role == AuthRole.ADMIN) == key.admin
        p.append(
            f"{at} sets both role and admin{'' if agree else ', and they disagree'}; set exactly one "
            '(admin = true|false is the older spelling of role = "admin"|"user")'
        )
    elif key.role is None and key.admin is None:
        p.append(f'{at}.role is required: role = "user" or role = "admin" (or the older admin = true|false)')
    if key.role is not None and key.role not in AUTH_ROLES:
        p.append(f"{at}.role must be one of {', '.join(AUTH_ROLES)}")


def _rate_limits(cfg: ElfConfig, p: list[str]) -> None:
    r, at = cfg.security.rate_limits, "security.rate_limits"
    if r is None:
        return
    if r.requests_per_second <= 0:
        p.append(f"{at}.requests_per_second must be greater than zero")
    if r.burst < 1:
        p.append(f"{at}.burst must be at least 1")
    if (r.write_requests_per_second is None) != (r.write_burst is None):
        p.append(f"{at}.write_requests_per_second and {at}.write_burst must be set together (or both omitted)")
    if r.write_requests_per_second is not None and not 0 < r.write_requests_per_second <= r.requests_per_second:
        p.append(f"{at}.write_requests_per_second must be greater than zero and at most {at}.requests_per_second")
    if r.write_burst is not None and not 1 <= r.write_burst <= r.burst:
        p.append(f"{at}.write_burst must be at least 1 and at most {at}.burst")
    if r.redis_url is not None and not _url_ok(r.redis_url, ("redis", "rediss")):
        p.append(f"{at}.redis_url must be a redis:// URL with a host (omit it to use worker.broker_url)")


def _context(cfg: ElfConfig, p: list[str]) -> None:
    ctx = cfg.context
    if ctx is None or ctx.scope_boost_weight is None:
        return
    w = ctx.scope_boost_weight
    if not 0.0 <= w <= 1.0:
        p.append("context.scope_boost_weight must be a finite number in the range 0.0-1.0")
    elif w > 0 and not ctx.scope_descriptions:
        p.append("context.scope_descriptions must be present when context.scope_boost_weight is greater than zero")
    for scope in ctx.scope_descriptions or {}:
        if scope not in cfg.scopes.allowed:
            p.append(f"context.scope_descriptions.{scope} is not in scopes.allowed")


def _mcp(cfg: ElfConfig, p: list[str]) -> None:
    m = cfg.mcp
    if m is None:
        return
    for name in ("tenant_id", "project_id", "agent_id"):
        if not getattr(m, name).strip():
            p.append(f"mcp.{name} must be non-empty")
    if m.read_profile not in READ_PROFILES:
        p.append(f"mcp.read_profile must be one of {', '.join(READ_PROFILES)}")
