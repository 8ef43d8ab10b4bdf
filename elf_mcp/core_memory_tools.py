"""Core memory tools (docs/spec/core-memory-markdown.md): PROFILE.md and a run's SESSION.md on the
public API (service.http_bind), and POLICY.md on the admin API (service.admin_bind). One tool per endpoint, like
every other tool: the API validates, applies precedence (Policy > Profile > Session) and writes the audit trail."""

from __future__ import annotations

from .tool_spec import ADMIN, PUBLIC, Param, ToolSpec

CORE = "/v2/core-memory"
RUN = CORE + "/runs/{run_id}"
PENDING = RUN + "/memory/pending/{entry_id}"
ADMIN_CORE = "/v2/admin/core-memory"

# What a written line looks like in every document (core-memory-markdown section 5).
LINE_FORMAT = ("'# PROFILE' (or '# SESSION', '# POLICY'), '## <Section>' headings, and one bullet per entry: "
               "'- key:response.tone | value:professional-friendly | priority:70 | ttl:none | source:user_explicit "
               "| updated_at:2026-02-07T11:00:00Z'")
MARKDOWN_ERRORS = ("Errors: MARKDOWN_INVALID (422) naming the first bad line as $.line[N].field (e.g. "
                   "$.line[4].ttl), NON_ENGLISH_INPUT or REJECT_SECRET (422) with $.line[N].key|value; nothing is "
                   "stored then. Pass if_version (the version from the get tool with format=json) to refuse the "
                   "replace with VERSION_CONFLICT (412) when someone wrote in between.")
WRITE_ERRORS = ("Errors: NON_ENGLISH_INPUT (422, values must be English; fields name $.value or $.reason), "
                "REJECT_SECRET (422, a secret or personal identifier is never stored), INVALID_REQUEST (400, e.g. "
                "a bad ttl, or session without run_id), RUN_ENDED (409, the run's SESSION.md is closed).")


def core_memory_tools() -> list[ToolSpec]:
    """The public bind's core memory tools: entries, resolve, compact, utterances, the two documents, the run's
    end, audit and pending entries."""
    run_id = Param("run_id", {"type": "string"},
                   "The run (session) id SESSION.md belongs to: your conversation or task id, 1-128 visible ASCII "
                   "characters; use the same one for every call of the run.")
    return _entry_tools() + _document_tools(run_id) + _run_tools(run_id)


def _entry_tools() -> list[ToolSpec]:
    scope = Param("scope", {"type": "string", "enum": ["profile", "session"]},
                  "profile (PROFILE.md, lasting) or session (the run's SESSION.md; pass run_id too).")
    key = Param("key", {"type": "string"}, "The entry's key, e.g. response.tone (A-Z a-z 0-9 _ . -).")
    return [
        ToolSpec(
            "elf_core_memory_resolve",
            "Load core memory",
            bind=PUBLIC,
            method="POST",
            path=CORE + "/resolve",
            read_only=True,
            description="Load the effective core memory: the user's standing preferences and instructions (tone, "
            "language, format, verbosity...) and the current run's context, merged Policy > Profile > Session "
            "(then higher priority, then newer). Call it with no keys (and your run_id) before every turn and "
            "follow what it returns: without keys it lists the keys of your profile and this run's session "
            "(a key that only "
            "system policy sets is not listed: name it in keys to read its effective value); pass keys to read only "
            "some. Returns {resolved_at, items: [{key, found, "
            "value, provenance: {scope policy|profile|session, kind, priority, updated_at, source, ttl, "
            "expires_at} or null}]}; a key decided by system policy shows provenance scope=policy and nothing "
            "else of the policy. Expired entries (and session_end entries of an ended run) are never returned.",
        ),
        ToolSpec(
            "elf_core_memory_utterance",
            "Remember what the user said",
            bind=PUBLIC,
            method="POST",
            path=CORE + "/utterances",
            description="Pass the user's own words (English) when they tell you to remember or forget something: "
            "'remember that I prefer short answers', 'from now on answer in bullet points', 'set the reply tone to "
            "formal', 'change my preference for X to Y', 'forget my tone preference'; 'for this session' or 'for "
            "the next 2 hours' keeps it in SESSION.md only. Call it before doing the rest of the turn's work. An "
            "explicit, confident instruction is written at once (op upsert, with doc_version and audit_id as proof "
            "and verified=true once resolve returns it); a guess is staged (op pending, pending_entry_id: ask the "
            "user, then elf_core_memory_pending_confirm or _reject); 'forget' deletes (op delete, deleted "
            "[{scope, doc_version, audit_id}]); op none means no trigger was recognised and nothing was stored. "
            "Reply to the user with the returned acknowledgement. Errors: NON_ENGLISH_INPUT (422, $.text), "
            "REJECT_SECRET (422, never stored), RUN_ENDED (409).",
        ),
        ToolSpec(
            "elf_core_memory_upsert",
            "Write a core memory entry",
            bind=PUBLIC,
            method="POST",
            path=CORE + "/entries",
            description="Write one entry (key, English one-line value, kind preference|constraint|fact|instruction, "
            "priority default 50, ttl none|30m|8h|7d|ISO time|session_end) into PROFILE.md (scope profile: lasting "
            "user preferences) or the run's SESSION.md (scope session, with run_id: this task's goal and temporary "
            "constraints). Use when you formulate the entry yourself; for the user's own words prefer "
            "elf_core_memory_utterance. source user_explicit|system writes at once (status written, doc_version, "
            "audit_id: the proof it is stored); source user_inferred is staged (HTTP 202, status pending, "
            "pending_entry_id) until the user confirms it. " + WRITE_ERRORS,
        ),
        ToolSpec(
            "elf_core_memory_delete",
            "Forget a core memory entry",
            bind=PUBLIC,
            method="DELETE",
            path=CORE + "/entries/{scope}/{key}",
            path_params=(scope, key),
            destructive=True,
            description="Delete a key from PROFILE.md (scope profile) or a run's SESSION.md (scope session, with "
            "run_id). Use when the user says to forget something you can name by key; then call "
            "elf_core_memory_resolve to verify it no longer resolves from that scope. Returns {scope, key, "
            "doc_version, audit_id}. Errors: NOT_FOUND (404, no such key in that document), SCOPE_DENIED (403, "
            "scope policy is admin-only), RUN_ENDED (409).",
        ),
        ToolSpec(
            "elf_core_memory_compact",
            "Compact core memory",
            bind=PUBLIC,
            method="POST",
            path=CORE + "/compact",
            destructive=True,
            description="memory_compact: remove expired lines and the losing lines of duplicate keys from "
            "PROFILE.md (scope profile) or a run's SESSION.md (scope session, with run_id); the effective values do "
            "not change. Returns {scope, doc_version (null when nothing was removed), removed: [{line, key, "
            "reason}], audit_ids}.",
        ),
    ]


def _document_tools(run_id: Param) -> list[ToolSpec]:
    return [
        ToolSpec(
            "elf_core_memory_profile_get",
            "Read PROFILE.md",
            bind=PUBLIC,
            method="GET",
            path=CORE + "/profile.md",
            read_only=True,
            description="Read the user's PROFILE.md (this project's lasting preferences) as raw markdown text, "
            "exactly as stored: " + LINE_FORMAT + ". Use to show the user what is remembered or before editing "
            "it with elf_core_memory_profile_put (format=json returns {markdown, version, run_ended}: pass that "
            "version as if_version); to act on memory use elf_core_memory_resolve.",
        ),
        ToolSpec(
            "elf_core_memory_profile_put",
            "Replace PROFILE.md",
            bind=PUBLIC,
            method="PUT",
            path=CORE + "/profile.md",
            destructive=True,
            description="Replace the whole PROFILE.md with markdown (the document text, stored exactly as given; "
            "every line is validated first): " + LINE_FORMAT + ". Use when the user edits their profile as a "
            "file. Keys whose effective value changed are audited. Returns {scope, run_id, doc_version, changed, "
            "entries, audit_ids}. " + MARKDOWN_ERRORS,
        ),
        ToolSpec(
            "elf_core_memory_session_get",
            "Read SESSION.md",
            bind=PUBLIC,
            method="GET",
            path=RUN + "/session.md",
            path_params=(run_id,),
            read_only=True,
            description="Read a run's SESSION.md (this task's goal, temporary constraints and run-only context) "
            "as raw markdown text, exactly as stored (an empty '# SESSION' document for a new run); format=json "
            "returns {markdown, version, run_ended}.",
        ),
        ToolSpec(
            "elf_core_memory_session_put",
            "Replace SESSION.md",
            bind=PUBLIC,
            method="PUT",
            path=RUN + "/session.md",
            path_params=(run_id,),
            destructive=True,
            description="Replace a run's whole SESSION.md with markdown (stored exactly as given; every line "
            "validated first): " + LINE_FORMAT.replace("PROFILE", "SESSION", 1) + "; ttl session_end expires "
            "the line when the run ends. Returns {scope, run_id, doc_version, changed, entries, audit_ids}. "
            "RUN_ENDED (409) once the run was ended. " + MARKDOWN_ERRORS,
        ),
    ]


def _run_tools(run_id: Param) -> list[ToolSpec]:
    entry_id = Param(
        "entry_id",
        {"type": "string", "format": "uuid"},
        "The pending entry's id (pending_entry_id from a staged write, or entry_id from elf_core_memory_pending_list).",
    )
    return [
        ToolSpec(
            "elf_core_memory_run_end",
            "End a run",
            bind=PUBLIC,
            method="POST",
            path=RUN + "/end",
            path_params=(run_id,),
            destructive=True,
            description="End a run when its task or conversation is over: its ttl session_end entries expire at "
            "once (resolve stops returning them) and its SESSION.md closes to writes (later writes: RUN_ENDED). "
            "Ending again is harmless. Returns {run_id, already_ended, expired (entries expired now), "
            "doc_version, audit_ids}.",
        ),
        ToolSpec(
            "elf_core_memory_audit",
            "Read a run's memory audit",
            bind=PUBLIC,
            method="GET",
            path=RUN + "/audit.jsonl",
            path_params=(run_id,),
            read_only=True,
            description="A run's core memory audit trail as JSON lines (text, one JSON object per line, oldest "
            "first): {ts, op (upsert|delete|stage|confirm|reject|expire|compact|tie_break|end_run|edit), scope, key, "
            "old, new, actor, reason, run_id, audit_id, doc_version}. Use as proof that a memory write or forget "
            "really happened before you report a "
            "task done. Policy changes are not included.",
        ),
        ToolSpec(
            "elf_core_memory_pending_list",
            "List pending memory",
            bind=PUBLIC,
            method="GET",
            path=RUN + "/memory/pending",
            path_params=(run_id,),
            read_only=True,
            description="A run's inferred entries waiting for the user's confirmation. Use to ask the user about "
            "them. Returns {items: [{entry_id, scope, kind, key, value, priority, ttl, source, confidence, "
            "reason, status, created_at}]}.",
        ),
        ToolSpec(
            "elf_core_memory_pending_confirm",
            "Confirm pending memory",
            bind=PUBLIC,
            method="POST",
            path=PENDING + "/confirm",
            path_params=(run_id, entry_id),
            description="The user confirmed a pending entry: write it into its document (PROFILE.md or the "
            "run's SESSION.md). Returns {entry_id, status: confirmed, doc_version, audit_id}. Errors: NOT_FOUND "
            "(404, no such pending entry in this run), ALREADY_DECIDED (409, confirmed or rejected before), "
            "RUN_ENDED (409).",
        ),
        ToolSpec(
            "elf_core_memory_pending_reject",
            "Reject pending memory",
            bind=PUBLIC,
            method="POST",
            path=PENDING + "/reject",
            path_params=(run_id, entry_id),
            destructive=True,
            description="The user declined a pending entry: drop it, nothing is written (the decision is "
            "audited). Returns {entry_id, status: rejected, doc_version: null, audit_id}. Errors: NOT_FOUND (404), "
            "ALREADY_DECIDED (409).",
        ),
    ]


def admin_core_memory_tools() -> list[ToolSpec]:
    """POLICY.md on the admin bind: no public tool reads or writes it."""
    scope = Param("scope", {"type": "string", "enum": ["policy"]}, "Always policy.")
    key = Param("key", {"type": "string"}, "The policy entry's key, e.g. policy.allow.tools.")
    return [
        ToolSpec(
            "elf_admin_core_memory_policy_get",
            "Read POLICY.md",
            bind=ADMIN,
            method="GET",
            path=ADMIN_CORE + "/policy.md",
            read_only=True,
            description="Admin: the tenant's POLICY.md (system rules that outrank every profile and session "
            "entry) as raw markdown text, exactly as stored (format=json: {markdown, version}). Never exposed on "
            "the public API.",
        ),
        ToolSpec(
            "elf_admin_core_memory_policy_put",
            "Replace POLICY.md",
            bind=ADMIN,
            method="PUT",
            path=ADMIN_CORE + "/policy.md",
            destructive=True,
            description="Admin: replace the tenant's whole POLICY.md with markdown (stored exactly as given; every "
            "line validated first): " + LINE_FORMAT.replace("PROFILE", "POLICY", 1) + ". Takes effect on the "
            "next resolve, where a policy-decided key shows provenance scope=policy only. Returns {scope, run_id: "
            "null, doc_version, changed, entries, audit_ids}. " + MARKDOWN_ERRORS,
        ),
        ToolSpec(
            "elf_admin_core_memory_upsert",
            "Write a policy entry",
            bind=ADMIN,
            method="POST",
            path=ADMIN_CORE + "/entries",
            description="Admin: write one POLICY.md entry (scope policy, key, English one-line value; kind default "
            "constraint, priority default 100, ttl default none, source admin). Returns {status: written, scope, "
            "key, value, doc_version, audit_id}. Errors: NON_ENGLISH_INPUT, REJECT_SECRET (422), INVALID_REQUEST "
            "(400).",
        ),
        ToolSpec(
            "elf_admin_core_memory_delete",
            "Delete a policy entry",
            bind=ADMIN,
            method="DELETE",
            path=ADMIN_CORE + "/entries/{scope}/{key}",
            path_params=(scope, key),
            destructive=True,
            description="Admin: delete a key from the tenant's POLICY.md (scope is always policy). Returns {scope, "
            "key, doc_version, audit_id}; NOT_FOUND (404) when POLICY.md has no such key.",
        ),
    ]
