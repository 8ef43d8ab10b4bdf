"""Tools on the public API (service.http_bind): spec v2 section 17, plus publish/unpublish and space grants."""

from __future__ import annotations

from elf_domain.spaces import SPACE_SCOPES

from .tool_spec import PUBLIC, Param, ToolSpec

UUID = {"type": "string", "format": "uuid"}


def public_tools() -> list[ToolSpec]:
    note_id = Param("note_id", UUID, "The note's id (note_id in ingest results, searches and lists).")
    doc_id = Param("doc_id", UUID, "The document's id (doc_id from elf_docs_put or a source_ref pointer).")
    entity_id = Param("entity_id", UUID, "The entity's id (subject.entity_id or object.entity.entity_id of a fact).")
    search_id = Param("search_id", UUID, "The search session's id (search_id from elf_searches_create).")
    space = Param("space", {"type": "string", "enum": list(SPACE_SCOPES)},
                      "The shared space: team_shared (this project) or org_shared (organisation-wide).")
    return [
        ToolSpec(
            "elf_notes_ingest", "Remember notes", bind=PUBLIC, method="POST", path="/v2/notes/ingest",
            description="Store short English facts (notes) in memory exactly as given; deterministic, no LLM. Use "
            "when you already know what to remember: a preference, constraint, decision, profile detail, fact or "
            "plan. Each note needs type, text (one short English sentence), importance and confidence (0-1); a "
            "stable key (e.g. 'editor_theme') makes a later note with the same key update it in place. An optional "
            "context (e.g. the conversation turns around a turn you store) is embedded with the note so that it "
            "is found by what it answers; it is never part of the note's text. scope: "
            "agent_private (only you), project_shared (alias team_shared) or org_shared. Returns one result per "
            "note: note_id, op (ADD|UPDATE|NONE|REJECTED), policy_decision and reason_code (e.g. REJECT_TOO_LONG, "
            "REJECT_SECRET, IGNORE_DUPLICATE). Any non-English text fails the whole call with NON_ENGLISH_INPUT "
            "and the JSONPath of each offending field; nothing is stored then.",
        ),
        ToolSpec(
            "elf_events_ingest", "Remember from a conversation", bind=PUBLIC, method="POST",
            path="/v2/events/ingest",
            description="Let the memory service extract notes from conversation messages (role user|assistant|"
            "tool, English content): it keeps only facts it can quote verbatim from the messages as evidence. Use "
            "after an exchange in which the user stated preferences, decisions or facts worth keeping, when you "
            "do not want to write the notes yourself. dry_run: true returns what would be stored without storing "
            "it. Returns the extracted candidates and one result per candidate (note_id, op, reason_code).",
        ),
        ToolSpec(
            "elf_searches_create", "Search memory", bind=PUBLIC, method="POST", path="/v2/searches",
            read_profile_override=True, read_only=True,
            description="Search memory and open a search session. Use before answering anything that may depend "
            "on remembered context (user preferences, project decisions, earlier facts). query: an English "
            "question or keywords; mode: quick_find (fast) or planned_search (expansion and rerank). Returns "
            "search_id, trace_id and a compact index of matching notes, best first (note_id, type, key, scope, "
            "summary, final_score); no full notes and no hits recorded. Next, call elf_searches_notes with the "
            "note_ids you want to read in full.",
        ),
        ToolSpec(
            "elf_searches_get", "Read a search session", bind=PUBLIC, method="GET",
            path="/v2/searches/{search_id}", path_params=(search_id,), read_only=True,
            description="Read an open search session's items again, best first (top_k limits them; touch, "
            "default true, extends the session's lifetime). Returns the same shape as elf_searches_create. "
            "NOT_FOUND once the session has expired: search again.",
        ),
        ToolSpec(
            "elf_searches_timeline", "Search session timeline", bind=PUBLIC, method="GET",
            path="/v2/searches/{search_id}/timeline", path_params=(search_id,), read_only=True,
            description="A search session's items grouped by day (group_by=day, the default) or in one group "
            "(none). Use to see when remembered facts were written or changed. Returns search_id, expires_at and "
            "groups [{date, items}].",
        ),
        ToolSpec(
            "elf_searches_notes", "Read notes from a search", bind=PUBLIC, method="POST",
            path="/v2/searches/{search_id}/notes", path_params=(search_id,),
            description="Fetch the full notes for chosen note_ids of a search session (ids from its items). Use "
            "after elf_searches_create to read the notes you will rely on; records a hit on each returned note "
            "unless record_hits is false. Returns results in the order asked: {note_id, note (text, type, key, "
            "scope, importance, confidence, timestamps, source_ref, structured) or null, error ({error_code: "
            "NOT_IN_SESSION|NOTE_UNAVAILABLE}) or null}.",
        ),
        ToolSpec(
            "elf_notes_list", "List notes", bind=PUBLIC, method="GET", path="/v2/notes",
            read_only=True,
            description="List readable notes, newest first, filtered by scope, status (default active) and type; "
            "limit (default 50) and cursor (next_cursor of the previous page) page through them. Without scope "
            "your agent_private notes are left out: pass scope=agent_private to list them. Use to browse or "
            "audit memory; to answer a question use elf_searches_create. Returns {notes: [...], next_cursor}.",
        ),
        ToolSpec(
            "elf_notes_get", "Read a note", bind=PUBLIC, method="GET", path="/v2/notes/{note_id}",
            path_params=(note_id,), read_only=True,
            description="Read one note by note_id: text, type, key, scope, importance, confidence, status, "
            "timestamps, source_ref and structured fields. NOT_FOUND when it does not exist or is not readable "
            "by this agent.",
        ),
        ToolSpec(
            "elf_notes_patch", "Change a note", bind=PUBLIC, method="PATCH", path="/v2/notes/{note_id}",
            path_params=(note_id,), destructive=True,
            description="Change a note you own in place: text, importance, confidence and/or ttl_days (at least "
            "one). Use to correct or refresh a fact. Returns {note_id, op (UPDATE|NONE|REJECTED), reason_code, "
            "field_path}.",
        ),
        ToolSpec(
            "elf_notes_delete", "Delete a note", bind=PUBLIC, method="DELETE", path="/v2/notes/{note_id}",
            path_params=(note_id,), destructive=True,
            description="Delete a note you own (it stops appearing in searches and lists). Use when a remembered "
            "fact is wrong or withdrawn. Returns {note_id, op: DELETE}.",
        ),
        ToolSpec(
            "elf_notes_deprecate", "Deprecate a note", bind=PUBLIC, method="POST",
            path="/v2/notes/{note_id}/deprecate", path_params=(note_id,), destructive=True,
            description="Mark a note you own as outdated without deleting it: it stays readable by note_id (and "
            "in elf_notes_list with status=deprecated) but no longer appears in searches. Give superseded_by "
            "(the note_id of the active note that replaces it) when a newer fact supersedes it. Returns "
            "{note_id, op (DEPRECATE|NONE), status}.",
        ),
        ToolSpec(
            "elf_notes_publish", "Publish a note", bind=PUBLIC, method="POST", path="/v2/notes/{note_id}/publish",
            path_params=(note_id,),
            description="Publish one of your notes to a shared space: team_shared (the agents of this project) "
            "or org_shared (organisation-wide), so that agents granted that space can read it. Returns "
            "{note_id, space}.",
        ),
        ToolSpec(
            "elf_notes_unpublish", "Unpublish a note", bind=PUBLIC, method="POST",
            path="/v2/notes/{note_id}/unpublish", path_params=(note_id,),
            destructive=True,
            description="Take a published note back to agent_private (readable by you only); space names the "
            "space it was published to. Returns {note_id, space: agent_private}.",
        ),
        ToolSpec(
            "elf_space_grants_list", "List space grants", bind=PUBLIC, method="GET", path="/v2/spaces/{space}/grants",
            path_params=(space,), read_only=True,
            description="List the active grants of a shared space: who may read the notes published there. "
            "Returns {grants: [{space, grantee_kind (project|agent), grantee_agent_id, granted_by_agent_id, "
            "granted_at}]}.",
        ),
        ToolSpec(
            "elf_space_grant_upsert", "Grant a space", bind=PUBLIC, method="POST", path="/v2/spaces/{space}/grants",
            path_params=(space,),
            description="Let others read a shared space: grantee_kind=project (every agent of this project) or "
            "grantee_kind=agent with grantee_agent_id (one other agent). Granting again is harmless. Returns "
            "{space, grantee_kind, grantee_agent_id, granted}.",
        ),
        ToolSpec(
            "elf_space_grant_revoke", "Revoke a space grant", bind=PUBLIC, method="POST",
            path="/v2/spaces/{space}/grants/revoke", path_params=(space,),
            destructive=True,
            description="Revoke a grant on a shared space (same arguments as elf_space_grant_upsert). Returns "
            "{revoked: true}, or false when there was no active grant.",
        ),
        ToolSpec(
            "elf_docs_put", "Store a document", bind=PUBLIC, method="POST", path="/v2/docs",
            description="Store a long English document (a README, a design doc, a transcript; at most 4 MiB) as "
            "evidence you can quote later. scope: agent_private, project_shared (alias team_shared) or org_shared. "
            "Returns doc_id, content_hash (blake3), content_bytes and chunk_count; it is searchable once indexed. "
            "Notes stay the facts; a document is their source.",
        ),
        ToolSpec(
            "elf_docs_get", "Read a document's metadata", bind=PUBLIC, method="GET", path="/v2/docs/{doc_id}",
            path_params=(doc_id,), read_only=True,
            description="A document's metadata (title, scope, content_hash, content_bytes, chunk_count); the full "
            "content only with include_content=true. Prefer elf_docs_excerpts_get to read a part of it.",
        ),
        ToolSpec(
            "elf_docs_delete", "Delete a document", bind=PUBLIC, method="DELETE", path="/v2/docs/{doc_id}",
            path_params=(doc_id,), destructive=True,
            description="Delete a document you own; its chunks leave the search index. Returns {doc_id, status}.",
        ),
        ToolSpec(
            "elf_docs_publish", "Publish a document", bind=PUBLIC, method="POST", path="/v2/docs/{doc_id}/publish",
            path_params=(doc_id,),
            description="Move a document you own to team_shared (this project) or org_shared (the organisation). "
            "Other agents read it once you grant them the space (elf_space_grant_upsert). Returns {doc_id, scope}.",
        ),
        ToolSpec(
            "elf_docs_unpublish", "Unpublish a document", bind=PUBLIC, method="POST",
            path="/v2/docs/{doc_id}/unpublish", path_params=(doc_id,), destructive=True,
            description="Bring a published document back to agent_private (space names where it is now). Returns "
            "{doc_id, scope}.",
        ),
        ToolSpec(
            "elf_docs_search_l0", "Find in documents", bind=PUBLIC, method="POST", path="/v2/docs/search/l0",
            read_only=True,
            description="Find the chunks of stored documents that match an English query (dense + BM25): up to "
            "top_k (at most 32) hits with a ~256-byte preview and a source_ref pointer (schema source_ref/v1, "
            "resolver elf_doc_ext/v1) you can store as a note's source_ref and later read with "
            "elf_docs_excerpts_get. Discovery only: quote documents through excerpts.",
        ),
        ToolSpec(
            "elf_docs_excerpts_get", "Quote a document", bind=PUBLIC, method="POST", path="/v2/docs/excerpts",
            read_only=True,
            description="A bounded excerpt of a document (level L0 ~256 bytes, L1 up to 8 KiB, L2 up to 32 KiB) "
            "around a quote (exact, with optional prefix/suffix), a byte position, or a chunk_id. Pass the "
            "pointer's state (content_hash, chunk_hash) to check it still holds. verified=true only when the "
            "locator resolved as given and the hashes match; otherwise verification_errors says why (e.g. "
            "QUOTE_NOT_FOUND, CONTENT_HASH_MISMATCH) and the excerpt is not evidence.",
        ),
        ToolSpec(
            "elf_graph_facts_list", "Look up facts", bind=PUBLIC, method="GET", path="/v2/graph/facts",
            read_only=True,
            description="Look up what memory knows as subject-predicate-object facts with validity windows, e.g. "
            "subject='Alice', predicate='leads'. state=current (default) answers what is true now, or at as_of "
            "(an ISO time: what was true then); historical lists facts that have ended (superseded by a later "
            "note), all lists every one. Each fact cites its evidence note_ids (read them with elf_notes_get) and "
            "the facts it superseded or was superseded by. Use when a question is about the current state of "
            "something that may have changed.",
        ),
        ToolSpec(
            "elf_graph_entity_get", "Read an entity", bind=PUBLIC, method="GET", path="/v2/graph/entities/{entity_id}",
            path_params=(entity_id,), read_only=True,
            description="One entity (a person, team, system...) by entity_id from elf_graph_facts_list: its "
            "aliases, its current facts and its history, newest first. NOT_FOUND when no fact about it is "
            "readable for you.",
        ),
    ]
