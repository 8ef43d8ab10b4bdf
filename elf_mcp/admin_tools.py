"""Tools on the admin API (service.admin_bind): ingestion profiles (spec v2 section 17), the trace readbacks,
the raw explain search and the graph predicate registry (spec v2 section 14)."""

from __future__ import annotations

from elf_domain.limits import MAX_PROFILE_ID_CHARS

from .tool_spec import ADMIN, Param, ToolSpec

UUID = {"type": "string", "format": "uuid"}
PROFILES = "/v2/admin/events/ingestion-profiles"
PREDICATES = "/v2/admin/graph/predicates"


def admin_tools() -> list[ToolSpec]:
    profile_id = Param("profile_id", {"type": "string", "maxLength": MAX_PROFILE_ID_CHARS},
                           "The ingestion profile's id.")
    trace_id = Param("trace_id", UUID, "The search trace's id (trace_id from a search or elf_admin_traces_recent).")
    item_id = Param("item_id", UUID, "A trace item's id (item_id in a trace's items).")
    return _profile_and_trace_tools(profile_id, trace_id, item_id) + _predicate_tools()


def _profile_and_trace_tools(profile_id: Param, trace_id: Param, item_id: Param) -> list[ToolSpec]:
    return [
        ToolSpec(
            "elf_admin_events_ingestion_profiles_list", "List ingestion profiles", bind=ADMIN, method="GET",
            path=PROFILES, read_only=True,
            description="Admin: list this project's add_event ingestion profiles, the latest version of each. A "
            "profile is a versioned extractor prompt/model setting used by elf_events_ingest. Returns {profiles: "
            "[{profile_id, version, created_at, created_by}]}.",
        ),
        ToolSpec(
            "elf_admin_events_ingestion_profiles_create", "Create an ingestion profile", bind=ADMIN, method="POST",
            path=PROFILES,
            description="Admin: create an immutable ingestion profile version (profile_id, optional version, and "
            "the profile JSON: prompt templates, model, temperature, timeout_ms). Returns the stored profile; "
            "CONFLICT when that version already exists.",
        ),
        ToolSpec(
            "elf_admin_events_ingestion_profile_get", "Read an ingestion profile", bind=ADMIN, method="GET",
            path=PROFILES + "/{profile_id}", path_params=(profile_id,), read_only=True,
            description="Admin: read one ingestion profile, the given version or else the latest. Returns "
            "{profile_id, version, profile, created_at, created_by}.",
        ),
        ToolSpec(
            "elf_admin_events_ingestion_profile_versions_list", "List ingestion profile versions", bind=ADMIN,
            method="GET", path=PROFILES + "/{profile_id}/versions", path_params=(profile_id,), read_only=True,
            description="Admin: every version of one ingestion profile, oldest first. Returns {profiles: [...]}.",
        ),
        ToolSpec(
            "elf_admin_events_ingestion_profile_default_get", "Read the default ingestion profile", bind=ADMIN,
            method="GET", path=PROFILES + "/default", read_only=True,
            description="Admin: the project's default ingestion profile, used by elf_events_ingest when a call "
            "names none. Returns {profile_id, version (null: always the latest), updated_at}; NOT_FOUND when none "
            "is set (the built-in extractor prompt is used then).",
        ),
        ToolSpec(
            "elf_admin_events_ingestion_profile_default_set", "Set the default ingestion profile", bind=ADMIN,
            method="POST", path=PROFILES + "/default",
            description="Admin: set the project's default ingestion profile (profile_id; version, or null to "
            "follow the latest). Returns {profile_id, version, updated_at}.",
        ),
        ToolSpec(
            "elf_admin_traces_recent", "Recent search traces", bind=ADMIN, method="GET",
            path="/v2/admin/traces/recent", read_only=True,
            description="Admin: this project's recent search traces, newest first; filter by agent_id, "
            "read_profile, created_after/created_before; page with next_cursor's created_at and trace_id passed "
            "as cursor_created_at and cursor_trace_id. Use to find the trace of a search you want explained. "
            "Returns {schema, traces: [{trace_id, agent_id, read_profile, query, created_at, ...}], next_cursor}.",
        ),
        ToolSpec(
            "elf_admin_trace_get", "Read a search trace", bind=ADMIN, method="GET",
            path="/v2/admin/traces/{trace_id}", path_params=(trace_id,), read_only=True,
            description="Admin: one search trace: its header, its result items with the full ranking explain "
            "(score terms summing to final_score) and a stage summary. Use to understand why a note ranked where "
            "it did.",
        ),
        ToolSpec(
            "elf_admin_trace_bundle_get", "Read a trace bundle", bind=ADMIN, method="GET",
            path="/v2/admin/traces/{trace_id}/bundle", path_params=(trace_id,), read_only=True,
            description="Admin: a trace with its stages and, on request, its candidates in one bundle (mode "
            "bounded|full; stage_items_limit and candidates_limit override the mode's sizes). Use for deep "
            "debugging or offline replay.",
        ),
        ToolSpec(
            "elf_admin_trajectory_get", "Read a retrieval trajectory", bind=ADMIN, method="GET",
            path="/v2/admin/trajectories/{trace_id}", path_params=(trace_id,), read_only=True,
            description="Admin: the retrieval trajectory of a trace: every pipeline stage with its payload and "
            "per-item metrics. Returns {trace, trajectory, stages}.",
        ),
        ToolSpec(
            "elf_admin_trace_item_get", "Read a trace item", bind=ADMIN, method="GET",
            path="/v2/admin/trace-items/{item_id}", path_params=(item_id,), read_only=True,
            description="Admin: one result item of a trace with its explain and its path through every stage. "
            "Returns {trace, item, trajectory}.",
        ),
        ToolSpec(
            "elf_admin_searches_raw", "Raw explain search", bind=ADMIN, method="POST", path="/v2/admin/searches/raw",
            read_profile_override=True, read_only=True,
            description="Admin: chunk-level search with the full explain of every result, for debugging and "
            "evaluation; opens no session. Same arguments as elf_searches_create plus record_hits (default "
            "false). Returns {trace_id, items: [{note_id, chunk_id, snippet, final_score, explain, ...}]}.",
        ),
    ]


def _predicate_tools() -> list[ToolSpec]:
    predicate_id = Param(
        "predicate_id", UUID, "The predicate's id (predicate_id from elf_admin_graph_predicates_list)."
    )
    return [
        ToolSpec(
            "elf_admin_graph_predicates_list",
            "List graph predicates",
            bind=ADMIN,
            method="GET",
            path=PREDICATES,
            read_only=True,
            description="Admin: the graph fact predicates (relation names such as 'works for') this tenant and "
            "project see: scope tenant_project (its own), project (shared by the project), global, or all "
            "(default). New predicates start pending/multi. Returns {predicates: [{predicate_id, scope_key, "
            "canonical, canonical_norm, cardinality single|multi, status pending|active|deprecated, ...}]}.",
        ),
        ToolSpec(
            "elf_admin_graph_predicate_patch",
            "Change a graph predicate",
            bind=ADMIN,
            method="PATCH",
            path=PREDICATES + "/{predicate_id}",
            path_params=(predicate_id,),
            description="Admin: set a predicate's status (pending->active, pending->deprecated, "
            "active->deprecated) and/or cardinality (single: a new fact closes the subject's previous one). "
            "FORBIDDEN for global predicates, PREDICATE_DEPRECATED once deprecated. Returns the predicate.",
        ),
        ToolSpec(
            "elf_admin_graph_predicate_aliases_add",
            "Add a graph predicate alias",
            bind=ADMIN,
            method="POST",
            path=PREDICATES + "/{predicate_id}/aliases",
            path_params=(predicate_id,),
            description="Admin: make another phrase resolve to this predicate within its scope (idempotent). "
            "ALIAS_CONFLICT when the phrase already names another predicate there. Returns {predicate_id, "
            "aliases: [{alias_id, alias, alias_norm, scope_key, created_at, ...}]}.",
        ),
        ToolSpec(
            "elf_admin_graph_predicate_aliases_list",
            "List graph predicate aliases",
            bind=ADMIN,
            method="GET",
            path=PREDICATES + "/{predicate_id}/aliases",
            path_params=(predicate_id,),
            read_only=True,
            description="Admin: every alias of one predicate, oldest first. Returns {predicate_id, aliases: [...]}.",
        ),
    ]
