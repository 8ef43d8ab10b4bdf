"""The v1 MCP tools (elf-memory-service-v1.md section 17: memory_add_note, memory_add_event, memory_search,
memory_list, memory_update, memory_delete), so that an agent set up for a v1 server works unchanged. Each maps
1:1 to its v1 route (section 15) and takes v1's arguments; the v1 routes are thin views over the functions the v2
routes call, so each tool is an alias of a v2 tool (named in its description) with v1's shapes.

v1 takes the caller's tenant_id, project_id and agent_id in the body (the query string for the list): every tool
is ``body_context``, so elf-mcp fills them in from [mcp] and refuses another identity's, nothing sent; with static
keys elf-api checks them against the key as well (403). The search's read_profile, also a body field in v1, is
[mcp].read_profile when left out (``read_profile_in_body``).
"""

from __future__ import annotations

from .tool_spec import PUBLIC, ToolSpec

V1 = "/v1/memory"

CONTEXT = ("v1 alias of {tool}. tenant_id, project_id and agent_id are optional: elf-mcp fills in its own [mcp] "
           "context and refuses another (ELF_MCP_TENANT_MISMATCH, ELF_MCP_CONTEXT_MISMATCH), nothing sent.")
ENGLISH = ("English only: CJK anywhere fails the whole call with NON_ENGLISH_INPUT (422, the JSONPath of each "
           "field), and so does other non-English text.")


def v1_tools() -> list[ToolSpec]:
    return [
        ToolSpec(
            "memory_add_note", "Remember notes (v1)", bind=PUBLIC, method="POST", path=V1 + "/add_note",
            body_context=True,
            description="Store short English notes exactly as given; deterministic, never an LLM. scope: "
            "agent_private, project_shared or org_shared; each note: type (preference|constraint|decision|profile|"
            "fact|plan), key (a stable key updates in place) or null, text (one short English sentence), "
            "importance and confidence (0-1), ttl_days (null: the type's default), source_ref. Returns {results: "
            "[{note_id, op (ADD|UPDATE|NONE|REJECTED), reason_code (e.g. REJECT_TOO_LONG, REJECT_SECRET)}]}. "
            + ENGLISH + " " + CONTEXT.format(tool="elf_notes_ingest"),
        ),
        ToolSpec(
            "memory_add_event", "Remember from a conversation (v1)", bind=PUBLIC, method="POST",
            path=V1 + "/add_event", body_context=True,
            description="Let the service extract notes from messages ({role: user|assistant|tool, content, ts?, "
            "msg_id?}): one extractor call, and only notes with verbatim evidence are kept. scope is optional; "
            "dry_run: true stores nothing. Returns {extracted: [the candidates], results: [{note_id, op, "
            "reason_code, reason}]}; a candidate whose text is CJK is REJECTED with REJECT_CJK, one failing its "
            "evidence REJECT_EVIDENCE_MISMATCH. " + ENGLISH + " " + CONTEXT.format(tool="elf_events_ingest"),
        ),
        ToolSpec(
            "memory_search", "Search memory (v1)", bind=PUBLIC, method="POST", path=V1 + "/search",
            read_profile_in_body=True, body_context=True, read_only=True,
            description="Search memory with an English query and get the full notes, best first: {items: "
            "[{note_id, type, key, scope, text, importance, confidence, updated_at, expires_at, final_score, "
            "source_ref}]} (top_k, candidate_k optional; expansion as configured, one rerank; a hit is recorded "
            "on each note returned). read_profile (private_only|private_plus_project|all_scopes) is optional. "
            + ENGLISH + " " + CONTEXT.format(tool="elf_searches_create + elf_searches_notes"),
        ),
        ToolSpec(
            "memory_list", "List notes (v1)", bind=PUBLIC, method="GET", path=V1 + "/list", body_context=True,
            read_only=True,
            description="List readable notes, newest first, filtered by scope (omitted: agent_private notes are "
            "left out), status (default active) and type; limit and cursor page through them. Returns {notes, "
            "next_cursor}. " + CONTEXT.format(tool="elf_notes_list"),
        ),
        ToolSpec(
            "memory_update", "Change a note (v1)", bind=PUBLIC, method="POST", path=V1 + "/update",
            body_context=True, destructive=True,
            description="Change a note you own in place: note_id and any of text, importance, confidence, ttl_days "
            "(omitted: expires_at kept; <= 0 or null: the type's default). Returns {note_id, op (UPDATE|NONE|"
            "REJECTED), reason_code}. " + ENGLISH + " " + CONTEXT.format(tool="elf_notes_patch"),
        ),
        ToolSpec(
            "memory_delete", "Delete a note (v1)", bind=PUBLIC, method="POST", path=V1 + "/delete",
            body_context=True, destructive=True,
            description="Delete a note you own by note_id (soft delete: it leaves searches and lists). Returns "
            "{note_id, op: DELETE|NONE}. Not core memory's memory_delete: that is elf_core_memory_delete. "
            + CONTEXT.format(tool="elf_notes_delete"),
        ),
    ]
