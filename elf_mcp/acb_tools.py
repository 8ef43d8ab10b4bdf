"""The event log and Active Context Bundle tools (agent-memory-acb-prd section 11; endpoints of section 7) on the
public API (service.http_bind). Unlike the /v2 tools, these operations take the caller's tenant_id, agent_id and
project_id in the body or query (PRD 9.3): every one is ``body_context``, so elf-mcp fills them in from [mcp]
when the caller leaves them out and refuses another tenant. session_id (the conversation) is always the caller's."""

from __future__ import annotations

from .tool_spec import PUBLIC, Param, ToolSpec

V1 = "/api/v1"

CONTEXT = ("tenant_id, agent_id and project_id are optional: elf-mcp fills in its own [mcp] context, and refuses "
           "another tenant (ELF_MCP_TENANT_MISMATCH) or another project or agent (ELF_MCP_CONTEXT_MISMATCH), nothing "
           "sent. session_id is required: your conversation or task id (named within the project), the same on "
           "every call of it.")
ERRORS = ("Errors: INVALID_REQUEST (400, fields are the JSONPaths of what is wrong, e.g. $.refs[0] for an unknown "
          "ref), FORBIDDEN (403, an id differs from the API key's context)")
ENGLISH = ("NON_ENGLISH_INPUT (422, with the JSONPath of each non-English field; nothing is stored). Secrets in the "
           "text are stored as [REDACTED:<kind>] (counted in redactions).")
RECORDED = "Returns {event_id, chunk_ids, created_at, redactions, withheld, artifact_id, decision_id, task_id}"


def acb_tools() -> list[ToolSpec]:
    """record_event, build_acb, get_artifact and query_decisions of PRD 11, and the decision and task writes of 7.3."""
    artifact_id = Param("artifact_id", {"type": "string"},
                        "The artifact's id (artifact_id of a recorded tool_result, or of a bundle omission with "
                        "reason truncated_tool_output).")
    return [
        ToolSpec(
            "elf_acb_record_event", "Record an event", bind=PUBLIC, method="POST", path=V1 + "/events",
            body_context=True,
            description="memory.record_event: append one event to the session's log. Record every turn as it "
            "happens: each user and assistant message (kind message, content {text}), each tool call (tool_call, "
            "{tool, args}) and its result (tool_result, {tool, output, path?, line_range?, exit_code?}), each "
            "decision (decision, {decision, rationale[], ...}) and task update (task_update, {task_id?, title, "
            "status open|doing|done, details?}); actor {type human|agent|tool, id}, channel private|public|team|"
            "agent, sensitivity none|low|high|secret (secret: the content is never stored, withheld=true). A tool "
            "output over 64 KB is kept whole as an artifact (artifact_id) and only a 64 KB excerpt enters the log. "
            "refs: ids of earlier events, chunks, decisions, tasks or artifacts this one cites. " + RECORDED + ". "
            + CONTEXT + " " + ERRORS + ", and for the text of messages, decisions, task updates and artifacts (tool "
            "calls and results are data, not checked; e.g. $.content.text) " + ENGLISH + " A decision with "
            "supersedes: NOT_FOUND (404) or DECISION_SUPERSEDED (409), as elf_acb_record_decision.",
        ),
        ToolSpec(
            "elf_acb_build", "Build a context bundle", bind=PUBLIC, method="POST", path=V1 + "/acb/build",
            body_context=True,
            description="memory.build_acb: build the Active Context Bundle for your next LLM call. Call it before "
            "each LLM call with query_text = the user's latest request (English) and use the bundle as that call's "
            "context; without query_text retrieved_evidence stays empty (fast path). max_tokens (500-65000, "
            "default 65000) is the budget; channel (default private) decides what may be loaded (public and agent "
            "bundles leave private and team content out). Returns {acb_id, budget_tokens, token_used_est, "
            "reserve_tokens, bundle_hash, sections: [{name (identity, rules, task_state, decision_ledger, "
            "handoff_packet, retrieved_evidence, recent_window), cap, token_est, items: [{type, text, refs, "
            "token_est, ...}]}], omissions: [{reason, candidates, ...}], provenance}. An omission with reason "
            "truncated_tool_output names the artifact_id of a tool output cut to 64 KB: read it whole with "
            "elf_acb_get_artifact when you need the rest. " + CONTEXT + " " + ERRORS + ", NON_ENGLISH_INPUT (422, "
            "$.query_text).",
        ),
        ToolSpec(
            "elf_acb_get_artifact", "Read an artifact", bind=PUBLIC, method="GET", path=V1 + "/artifacts/{artifact_id}",
            path_params=(artifact_id,), body_context=True, read_only=True,
            description="memory.get_artifact: the full text of a tool output that was too long for the log. Use "
            "when a bundle's omission says truncated_tool_output (or a recorded tool_result returned an "
            "artifact_id) and the 64 KB excerpt is not enough. Returns {artifact_id, kind, session_id, ts, meta "
            "{tool, path, bytes, media_type}, refs (the event it came from), text}. channel (default private): "
            "read as a bundle of that channel would (an artifact follows its event's channel and sensitivity). "
            "tenant_id, project_id and agent_id are optional: elf-mcp fills in its own and refuses others "
            "(ELF_MCP_TENANT_MISMATCH, ELF_MCP_CONTEXT_MISMATCH). Errors: NOT_FOUND (404, $.path.artifact_id: no "
            "such artifact in this project for this channel), FORBIDDEN (403), INVALID_REQUEST (400, "
            "$.query.<name>).",
        ),
        ToolSpec(
            "elf_acb_record_decision", "Record a decision", bind=PUBLIC, method="POST", path=V1 + "/decisions",
            body_context=True,
            description="Record a decision in the ledger (an event of kind decision): decision (one English "
            "statement), rationale[], constraints[], alternatives[], consequences[], scope project|user|global, "
            "refs (the evidence: event, chunk or artifact ids). Record each decision you or the user make, so later "
            "bundles carry it in decision_ledger. To change a decision, record the new one with supersedes = the "
            "old decision_id: the old one is kept, marked superseded. " + RECORDED + " (decision_id set). "
            + CONTEXT + " " + ERRORS + ", " + ENGLISH + " NOT_FOUND (404: supersedes names no decision of the tenant), "
            "DECISION_SUPERSEDED (409: the decision in supersedes was already superseded; supersede the newer one).",
        ),
        ToolSpec(
            "elf_acb_query_decisions", "Query decisions", bind=PUBLIC, method="GET", path=V1 + "/decisions/query",
            body_context=True, read_only=True,
            description="memory.query_decisions: search the tenant's decision ledger. q: English full-text query "
            "(omit to list); status active (default), superseded or all; session_id to keep one conversation's; "
            "limit 1-200 (default 50). Use before deciding something that may have been decided already. Returns "
            "{decisions: [{decision_id, ts, status, scope, decision, rationale, constraints, alternatives, "
            "consequences, refs, session_id, agent_id, event_id, supersedes, superseded_by}]}: the project's "
            "decisions a bundle of channel (default private) may load. tenant_id, project_id and agent_id are "
            "optional: elf-mcp fills in its own and refuses others (ELF_MCP_TENANT_MISMATCH, "
            "ELF_MCP_CONTEXT_MISMATCH). Errors: "
            "INVALID_REQUEST (400, $.query.<name>), FORBIDDEN (403), NON_ENGLISH_INPUT (422, $.query.q).",
        ),
        ToolSpec(
            "elf_acb_task", "Create or update a task", bind=PUBLIC, method="POST", path=V1 + "/tasks",
            body_context=True,
            description="Create a task (title, status open|doing|done, details) or update one (task_id with the "
            "fields that change): an event of kind task_update. Record every change of what you are working on, "
            "so the task_state section of later bundles shows the open tasks. " + RECORDED + " (task_id set: keep "
            "it for later updates). " + CONTEXT + " " + ERRORS + ", " + ENGLISH + " A new task without a title is "
            "INVALID_REQUEST ($.title), and so is a task_id that names no task of this project ($.task_id).",
        ),
    ]
