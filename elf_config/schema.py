"""Typed, frozen view of elf.toml.

Each dataclass is one TOML table; field names are the TOML keys. A field typed ``Optional[...]`` (or whose
dataclass is optional in its parent) may be omitted from the file; so may a field with a dataclass default,
which then applies. Every other field is required. There are no defaults for the keys of the spec v2 section 1
template: the loader fills nothing in for them, except the spec's own documented defaults (``mcp.read_profile``;
``chunking.tokenizer_repo`` inherits ``providers.embedding.model``). Keys added beyond the template are all
optional, each with the documented default next to it (README, Configuration reference), so that a config
written to the template alone starts.

One attribute per key: a key with a default holds its resolved value (never None for "omitted"), so no reader
resolves a default of its own and no second property spells the same key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, Literal

from elf_domain.vocabulary import RankingFormula, ReadProfile, SearchMode

DEFAULT_OUTBOX_LEASE_SECONDS = 30.0
# Defaults of the keys added beyond the section 1 template: the embedded stack as elf.toml.example runs it.
DEFAULT_STACK_DATA_DIR = "var/stack"
DENSE_QUANTIZATIONS = ("int8", "none")  # storage.qdrant.dense_quantization
DEFAULT_BROKER_URL = "redis://127.0.0.1:6389/0"
DEFAULT_SEARCH_MODE = SearchMode.PLANNED_SEARCH.value
DEFAULT_ENCRYPTION_KEY_FILE = "event_log_key"  # in stack.data_dir
# A count that may be "auto": derived from the cores this machine gives the process (elf_config.sizing).
AUTO: Final = "auto"
AutoInt = int | Literal["auto"]
# Sizing defaults (README, "Sizing"), measured on the 2-core reference machine.
DEFAULT_API_THREADS = 4
DEFAULT_WORKER_PREFETCH = 1
DEFAULT_WORKER_NICE = 10
# Indexing whose oldest row waited this long runs at catch_up_nice (memory.indexing.priority): half the 10 s lag
# issue 35 bounds, so a starved worker starts catching up with time to spare.
DEFAULT_CATCH_UP_AFTER_SECONDS = 5.0
DEFAULT_CATCH_UP_NICE = 0


@dataclass(frozen=True)
class ServiceConfig:
    http_bind: str
    mcp_bind: str
    admin_bind: str
    log_level: str
    # Not in the spec (README, "Sizing"): elf-api's gunicorn worker processes, the threads of each, and the local
    # embedder's ONNX threads in each. Omitted: "auto", 4 and "auto".
    api_workers: AutoInt = AUTO
    api_threads: int = DEFAULT_API_THREADS
    api_embed_threads: AutoInt = AUTO


@dataclass(frozen=True)
class PostgresConfig:
    dsn: str
    pool_max_conns: int


@dataclass(frozen=True)
class QdrantConfig:
    url: str
    collection: str
    vector_dim: int
    # The Doc Extension's chunk collection. Omitted: "<collection>_docs", filled in when the object is made, so
    # the attribute always holds the name (None only in the file).
    docs_collection: str | None
    # Not in the spec: how new collections store the dense vectors for search (elf_infra.index.hybrid): "int8"
    # (scalar quantization kept in RAM, HNSW walked on it, the candidates rescored with the float vectors) or
    # "none" (float only). An existing collection keeps what it was created with until rebuild_qdrant.
    dense_quantization: str = "int8"

    def __post_init__(self) -> None:
        if self.docs_collection is None:
            object.__setattr__(self, "docs_collection", f"{self.collection}_docs")


@dataclass(frozen=True)
class StorageConfig:
    postgres: PostgresConfig
    qdrant: QdrantConfig


@dataclass(frozen=True)
class StackConfig:
    """Embedded stack (not in the spec): where elf-stack keeps Postgres, Redis and Qdrant data (and the Django
    secret key). Omitted: ``var/stack`` beside the config file."""

    data_dir: str = DEFAULT_STACK_DATA_DIR
    # The embedded Postgres' memory (elf_config.postgres_sizing): "auto" (half the machine) or a size like "4GB",
    # and server settings by name that win over that rule.
    postgres_memory: str = AUTO
    postgres_settings: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkerConfig:
    """Celery (not in the spec): the broker URL the API and the worker share, and how long a claimed outbox
    row stays leased before another worker may take it over (a worker that died mid-job). Omitted: the
    embedded stack's Redis (``DEFAULT_BROKER_URL``, the port elf-stack starts it on).

    Sizing (README, "Sizing"): Celery pool processes, tasks each reserves ahead, the CPU niceness of the whole
    worker (indexing yields the cores to requests) and the local embedder's ONNX threads per pool process; and
    the catch-up: indexing whose oldest row waited ``catch_up_after_seconds`` runs at ``catch_up_nice`` until it
    caught up (memory.indexing.priority; needs the privilege to raise a priority)."""

    broker_url: str = DEFAULT_BROKER_URL
    outbox_lease_seconds: float = DEFAULT_OUTBOX_LEASE_SECONDS
    concurrency: AutoInt = AUTO
    prefetch_multiplier: int = DEFAULT_WORKER_PREFETCH
    nice: int = DEFAULT_WORKER_NICE
    embed_threads: AutoInt = AUTO
    catch_up_after_seconds: float = DEFAULT_CATCH_UP_AFTER_SECONDS
    catch_up_nice: int = DEFAULT_CATCH_UP_NICE


@dataclass(frozen=True)
class EmbeddingProviderConfig:
    provider_id: str
    api_base: str
    api_key: str = field(repr=False)
    path: str
    model: str
    dimensions: int
    timeout_ms: int
    default_headers: dict[str, str]


@dataclass(frozen=True)
class RerankProviderConfig:
    provider_id: str
    api_base: str
    api_key: str = field(repr=False)
    path: str
    model: str
    timeout_ms: int
    default_headers: dict[str, str]


@dataclass(frozen=True)
class ExtractorProviderConfig:
    provider_id: str
    api_base: str
    api_key: str = field(repr=False)
    path: str
    model: str
    temperature: float
    timeout_ms: int
    default_headers: dict[str, str]


@dataclass(frozen=True)
class ProvidersConfig:
    embedding: EmbeddingProviderConfig
    rerank: RerankProviderConfig
    llm_extractor: ExtractorProviderConfig


@dataclass(frozen=True)
class ScopesConfig:
    allowed: list[str]
    read_profiles: dict[str, list[str]]
    precedence: dict[str, int]
    write_allowed: dict[str, bool]


@dataclass(frozen=True)
class MemoryPolicyConfig:
    """Policy stage (spec v2 section 8.3): remember/update below these thresholds is downgraded to ignore.
    Not in the template (section 8.3 names ``memory.policy``): omitted, 0.0 each, nothing is downgraded."""

    min_confidence: float = 0.0
    min_importance: float = 0.0


@dataclass(frozen=True)
class MemoryConfig:
    max_notes_per_add_event: int
    max_note_chars: int
    dup_sim_threshold: float
    update_sim_threshold: float
    candidate_k: int
    top_k: int
    policy: MemoryPolicyConfig = field(default_factory=MemoryPolicyConfig)


@dataclass(frozen=True)
class ChunkingConfig:
    enabled: bool
    max_tokens: int
    overlap_tokens: int
    tokenizer_repo: str | None


@dataclass(frozen=True)
class ExpansionConfig:
    mode: str
    max_queries: int
    include_original: bool


@dataclass(frozen=True)
class DynamicConfig:
    min_candidates: int
    min_top_score: float


@dataclass(frozen=True)
class PrefilterConfig:
    max_candidates: int


@dataclass(frozen=True)
class CacheConfig:
    enabled: bool
    expansion_ttl_days: int
    rerank_ttl_days: int
    max_payload_bytes: int | None


@dataclass(frozen=True)
class ExplainConfig:
    retention_days: int
    capture_candidates: bool | None
    candidate_retention_days: int | None
    write_mode: str | None


@dataclass(frozen=True)
class GraphContextConfig:
    """relation_context in search explain (spec v2 section 13): the graph facts linked to a returned note."""

    enabled: bool
    max_facts_per_item: int
    max_evidence_notes_per_fact: int


@dataclass(frozen=True)
class SearchConfig:
    # Not in the spec: the search mode when a request names none (quick_find | planned_search); omitted:
    # planned_search, the section 13 pipeline.
    default_mode: str = field(default=DEFAULT_SEARCH_MODE, kw_only=True)
    expansion: ExpansionConfig
    dynamic: DynamicConfig
    prefilter: PrefilterConfig
    cache: CacheConfig
    explain: ExplainConfig
    # Named by sections 13-14 but not in the section 1 template: omitted means relation_context is off.
    graph_context: GraphContextConfig | None

    @property
    def relation_context_on(self) -> bool:
        return self.graph_context is not None and self.graph_context.enabled


@dataclass(frozen=True)
class RankingConfig:
    recency_tau_days: float
    tie_breaker_weight: float
    # Not in the spec: rank_blend | spec_additive (elf_domain.vocabulary.RankingFormula); omitted: rank_blend.
    formula: str = RankingFormula.RANK_BLEND.value
    # Not in the spec (issue 32, search.domain.conversation): the lift of a note whose speaker label the query
    # names, as a share of the candidates' score spread, and the share of the gap to its episode's best
    # candidate (the notes with its observed_at) that a candidate is pulled up by. 0 turns either off.
    speaker_weight: float = 0.3
    episode_pull: float = 0.6


@dataclass(frozen=True)
class LifecycleConfig:
    ttl_days: dict[str, int]
    purge_deleted_after_days: int
    purge_deprecated_after_days: int


class AuthMode(StrEnum):
    """security.auth_mode: no keys, or the static API keys of [[security.auth_keys]]."""

    OFF = "off"
    STATIC_KEYS = "static_keys"


class AuthRole(StrEnum):
    """An API key's role: an admin key may call the admin bind."""

    USER = "user"
    ADMIN = "admin"


AUTH_MODES = tuple(m.value for m in AuthMode)
AUTH_ROLES = tuple(r.value for r in AuthRole)


@dataclass(frozen=True)
class AuthKeyConfig:
    """One ``[[security.auth_keys]]`` entry: a bearer token bound to one tenant/project/agent context.

    ``admin = true|false`` is the spec's spelling (section 14), ``role = "user"|"admin"`` ours; a key sets
    exactly one of them. The token is left out of repr so it never reaches a log or an error message.
    """

    token_id: str
    token: str = field(repr=False)
    tenant_id: str
    project_id: str
    agent_id: str
    read_profile: str | None
    role: str | None
    admin: bool | None

    @property
    def is_admin(self) -> bool:
        return self.role == AuthRole.ADMIN if self.role is not None else bool(self.admin)


@dataclass(frozen=True)
class RateLimitsConfig:
    """``[security.rate_limits]`` (not in the spec): per-key token buckets, kept in Redis. Omitted: no limits.

    Every ``/v2``, ``/v1`` and ``/api/v1`` request takes a token from its caller's bucket (``requests_per_second``
    sustained, up to ``burst`` at once); a write also takes one from the caller's write bucket when
    ``write_requests_per_second`` and ``write_burst`` are set. ``redis_url`` omitted: ``worker.broker_url``.
    """

    requests_per_second: float
    burst: int
    write_requests_per_second: float | None
    write_burst: int | None
    redis_url: str | None

    @property
    def has_write_budget(self) -> bool:
        return self.write_requests_per_second is not None and self.write_burst is not None


@dataclass(frozen=True)
class SecurityConfig:
    bind_localhost_only: bool
    reject_non_english: bool
    redact_secrets_on_write: bool
    evidence_min_quotes: int
    evidence_max_quotes: int
    evidence_max_quote_chars: int
    # Not in the spec's template (sections 14-15 name them): omitted, no keys.
    auth_mode: str = field(default=AuthMode.OFF.value, kw_only=True)
    auth_keys: list[AuthKeyConfig] | None
    # Not in the spec: omitted, no request is rate limited.
    rate_limits: RateLimitsConfig | None = None
    # Not in the spec: the AES-256 key that seals sensitivity-high event-log content (PRD 9.2), created on first
    # start. Omitted: <stack.data_dir>/event_log_key. Relative paths resolve against the config file's folder.
    encryption_key_file: str | None = None

    @property
    def static_keys(self) -> bool:
        return self.auth_mode == AuthMode.STATIC_KEYS


@dataclass(frozen=True)
class ContextConfig:
    project_descriptions: dict[str, str] | None
    scope_descriptions: dict[str, str] | None
    scope_boost_weight: float | None


@dataclass(frozen=True)
class McpConfig:
    tenant_id: str
    project_id: str
    agent_id: str
    # Spec v2 section 1, [mcp]: "read_profile ... Optional. Default is private_plus_project."
    read_profile: str = field(default=ReadProfile.PRIVATE_PLUS_PROJECT.value, kw_only=True)
    # Not in the spec: with security.auth_mode = "static_keys", the token_id of the security.auth_keys entry
    # whose token elf-mcp sends as `Authorization: Bearer <token>`.
    auth_token_id: str | None


DEFAULT_MAX_DOC_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class DocsConfig:
    """The Doc Extension (doc-extension-v1): omitted or disabled, its endpoints answer 403 DOCS_DISABLED."""

    enabled: bool
    max_doc_bytes: int = DEFAULT_MAX_DOC_BYTES  # the body limit of /v2/docs is 4 MiB too


DEFAULT_INFERRED_MIN_CONFIDENCE = 0.8


@dataclass(frozen=True)
class CoreMemoryConfig:
    """Core memory (core-memory-markdown): omitted, the defaults below apply."""

    # An utterance classified below this confidence is staged as pending instead of written (section 6 rule 2).
    inferred_min_confidence: float = DEFAULT_INFERRED_MIN_CONFIDENCE


DEFAULT_BUNDLE_RETENTION_DAYS = 7


@dataclass(frozen=True)
class AcbConfig:
    """The event log and Active Context Bundles (agent-memory-acb-prd): omitted, the defaults below apply."""

    # Built bundles (acb_bundles, kept for the operators) older than this are deleted; events are never deleted.
    bundle_retention_days: int = DEFAULT_BUNDLE_RETENTION_DAYS


@dataclass(frozen=True)
class ElfConfig:
    service: ServiceConfig
    storage: StorageConfig
    # Not in the template: omitted, every key of the table takes its default.
    stack: StackConfig = field(default_factory=StackConfig, kw_only=True)
    worker: WorkerConfig = field(default_factory=WorkerConfig, kw_only=True)
    providers: ProvidersConfig
    scopes: ScopesConfig
    memory: MemoryConfig
    chunking: ChunkingConfig
    search: SearchConfig
    ranking: RankingConfig
    lifecycle: LifecycleConfig
    security: SecurityConfig
    context: ContextConfig | None
    mcp: McpConfig | None
    docs: DocsConfig | None
    # Not in the template: omitted, every key of the table takes its default.
    core_memory: CoreMemoryConfig = field(default_factory=CoreMemoryConfig, kw_only=True)
    acb: AcbConfig = field(default_factory=AcbConfig, kw_only=True)
    # Absolute path of the file this was loaded from; relative paths in the file resolve against its folder.
    source_path: str = ""

    @property
    def embedding_version(self) -> str:
        e = self.providers.embedding
        return f"{e.provider_id}:{e.model}:{self.storage.qdrant.vector_dim}"

    @property
    def encryption_key_path(self) -> str:
        """The event log's encryption key file: ``security.encryption_key_file``, or ``event_log_key`` in the
        stack's data folder."""
        from pathlib import Path

        if self.security.encryption_key_file is not None:
            return self.resolve_path(self.security.encryption_key_file)
        return str(Path(self.resolve_path(self.stack.data_dir)) / DEFAULT_ENCRYPTION_KEY_FILE)

    @property
    def docs_enabled(self) -> bool:
        return self.docs is not None and self.docs.enabled

    def resolve_path(self, value: str) -> str:
        """Resolve a path from the file against the config file's folder."""
        from pathlib import Path

        p = Path(value)
        if p.is_absolute():
            return str(p)
        return str((Path(self.source_path).parent / p).resolve())
