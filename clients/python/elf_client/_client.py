"""ElfClient: typed methods for every public operation of ELF's HTTP API (v2, the event log, and v1).

Each method sends one request (``iter_notes`` pages through several) and returns the service's JSON body, typed
with the TypedDict of :mod:`elf_client.types` that the OpenAPI document names for it. Every failure raises
:class:`elf_client.ElfError`. ``elf_client/_async_client.py`` (AsyncElfClient) is generated from this file by
``clients/python/tools/generate.py``: edit here, then regenerate.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx

from ._common import UNSET, body, message, operation
from ._retry import RetryPolicy
from ._transport import Call, ClientConfig
from ._transport import SyncTransport as Transport
from .types import (
    ArtifactOut,
    BundleOut,
    CompactOut,
    DecisionOut,
    DecisionsOut,
    DeleteOut,
    DeprecateResponse,
    DocDeletedOut,
    DocOut,
    DocPutOut,
    DocumentOut,
    DocumentWriteOut,
    EndRunOut,
    EntityDetail,
    EventIngestResponse,
    EventMessageRequest,
    EventOut,
    ExcerptOut,
    FactList,
    GrantCreatedResponse,
    GrantListResponse,
    GrantRevokedResponse,
    Health,
    IngestNotesResponse,
    MovedOut,
    NoteInRequest,
    NoteListResponse,
    NoteOpResponse,
    NoteOut,
    NoteResult,
    PendingListOut,
    PublishResponse,
    RequestContext,
    ResolveOut,
    SearchL0Out,
    SearchSession,
    SessionNotesResponse,
    Timeline,
    UtteranceOut,
    V1AddEventResponse,
    V1AddNoteResponse,
    V1DeleteResponse,
    V1SearchResponse,
    V1UpdateResponse,
    WriteOut,
)


def _seq(values: Sequence[str] | None) -> list[str] | None:
    return list(values) if values is not None else None


# --- generated async from here: everything below is rewritten into _async_client.py -----------------------------


class ElfClient:
    """A client of one ELF service, acting as one (tenant, project, agent).

    >>> from elf_client import ElfClient
    >>> elf = ElfClient("http://127.0.0.1:8089", tenant_id="t1", project_id="p1", agent_id="a1")
    >>> elf.add_note("The user prefers short answers.", type="preference", key="answer_style")

    ``token``: the API key when the service runs with ``security.auth_mode = "static_keys"`` (the key then fixes
    tenant, project and agent; the ids may be left out). ``read_profile``: what search sessions read
    (``private_only``, ``private_plus_project`` or ``all_scopes``). ``retry``: a :class:`RetryPolicy` (429 and 503
    are retried honouring ``Retry-After``; ``RetryPolicy(max_attempts=1)`` turns retries off). ``headers``: extra
    headers sent with every request. ``http_client``: an httpx client to send through (its base_url must be the
    service's); ``transport``: an httpx transport for the client this one makes.
    """

    def __init__(self, base_url: str = "http://127.0.0.1:8089", *, tenant_id: str | None = None,
                 project_id: str | None = None, agent_id: str | None = None,
                 read_profile: str | None = "private_plus_project", token: str | None = None, timeout: float = 30.0,
                 retry: RetryPolicy | None = None, headers: Mapping[str, str] | None = None,
                 config: ClientConfig | None = None, http_client: httpx.Client | None = None,
                 transport: httpx.BaseTransport | None = None, _transport: Transport | None = None):
        if config is None:
            config = ClientConfig(base_url=base_url, tenant_id=tenant_id, project_id=project_id, agent_id=agent_id,
                                  read_profile=read_profile, token=token, timeout=timeout,
                                  retry=retry or RetryPolicy(), headers=dict(headers or {}))
        self._transport = _transport or Transport(config, http_client, transport)
        self.v1 = V1Api(self)

    @property
    def config(self) -> ClientConfig:
        return self._transport.config

    def with_context(self, **changes: Any) -> ElfClient:
        """A client with some settings changed (``agent_id=...``, ``read_profile=...``, ``retry=...``) that shares
        this one's connections. Closing it leaves them open."""
        return ElfClient(_transport=self._transport.derive(self.config.with_context(**changes)))

    def __repr__(self) -> str:
        c = self.config
        return (
            f"ElfClient({c.base_url!r}, tenant_id={c.tenant_id!r}, project_id={c.project_id!r}, "
            f"agent_id={c.agent_id!r})"
        )

    def _send(self, call: Call) -> Any:
        return self._transport.send(call)

    def close(self) -> None:
        """Close the connections this client opened."""
        self._transport.close()

    def __enter__(self) -> ElfClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- service -----------------------------------------------------------------------------------------------

    @operation("health_retrieve")
    def health(self) -> Health:
        """GET /health: whether Postgres, the search index and the broker answer (raises ElfError 503 when not)."""
        return self._send(Call("health_retrieve"))

    @operation("v2_context_retrieve")
    def context(self, *, read_profile: str | None = None) -> RequestContext:
        """GET /v2/context: the context the service sees for this client (the API key's when keys are on)."""
        return self._send(Call("v2_context_retrieve", read_profile=read_profile))

    # --- notes ---------------------------------------------------------------------------------------------------

    @operation("elf_notes_ingest")
    def add_note(
        self,
        text: str,
        *,
        type: str = "fact",
        key: str | None = None,
        scope: str = "agent_private",
        importance: float = 0.5,
        confidence: float = 0.9,
        ttl_days: int | None = None,
        structured: Mapping[str, Any] | None = None,
        source_ref: Mapping[str, Any] | None = None,
        write_policy: Mapping[str, Any] | None = None,
        context: str | None = None,
        observed_at: str | None = None,
    ) -> NoteResult:
        """add_note for one note: POST /v2/notes/ingest, deterministic (no LLM). Returns the note's result: ``op``
        ADD, UPDATE, NONE or REJECTED (with ``reason_code``, e.g. REJECT_TOO_LONG, and ``field_path``). A note
        with a ``key`` is updated in place by the next note with the same key (and type and scope)."""
        note = body(
            type=type,
            key=key,
            text=text,
            importance=importance,
            confidence=confidence,
            ttl_days=ttl_days,
            structured=structured,
            source_ref=source_ref,
            write_policy=write_policy,
            context=context,
            observed_at=observed_at,
        )
        result = self.add_notes([note], scope=scope)
        return result["results"][0]

    @operation("elf_notes_ingest")
    def add_notes(
        self, notes: Sequence[NoteInRequest | Mapping[str, Any]], *, scope: str = "agent_private"
    ) -> IngestNotesResponse:
        """add_note for up to 100 notes of one scope (each a NoteInRequest: type, text, importance, confidence,
        and optionally key, ttl_days, structured, source_ref, write_policy, context, observed_at)."""
        return self._send(Call("elf_notes_ingest", json={"scope": scope, "notes": [dict(n) for n in notes]}))

    @operation("elf_notes_get")
    def get_note(self, note_id: str) -> NoteOut:
        """GET /v2/notes/{note_id}: one readable note (ElfError 404 NOT_FOUND otherwise)."""
        return self._send(Call("elf_notes_get", path={"note_id": note_id}))

    @operation("elf_notes_list")
    def list_notes(
        self,
        *,
        scope: str | None = None,
        status: str | None = None,
        type: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> NoteListResponse:
        """GET /v2/notes: one page of readable notes, newest first (``next_cursor`` names the next page). Without
        ``scope`` the agent's private notes are left out."""
        return self._send(
            Call("elf_notes_list", params=dict(scope=scope, status=status, type=type, limit=limit, cursor=cursor))
        )

    @operation("elf_notes_list")
    def iter_notes(
        self, *, scope: str | None = None, status: str | None = None, type: str | None = None, page_size: int = 200
    ) -> Iterator[NoteOut]:
        """Every readable note (list_notes page after page)."""
        cursor = None
        while True:
            page = self.list_notes(scope=scope, status=status, type=type, limit=page_size, cursor=cursor)
            yield from page["notes"]
            cursor = page["next_cursor"]
            if not cursor:
                return

    @operation("elf_notes_patch")
    def update_note(
        self,
        note_id: str,
        *,
        text: str | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        ttl_days: int | None = UNSET,
    ) -> NoteOpResponse:
        """PATCH /v2/notes/{note_id}: change an owned note's text, importance, confidence or ttl_days (fields left
        out stay; ``ttl_days=None`` clears the TTL)."""
        patch = body(text=text, importance=importance, confidence=confidence)
        if ttl_days is not UNSET:
            patch["ttl_days"] = ttl_days
        return self._send(Call("elf_notes_patch", path={"note_id": note_id}, json=patch))

    @operation("elf_notes_delete")
    def delete_note(self, note_id: str) -> NoteOpResponse:
        """DELETE /v2/notes/{note_id}: soft-delete an owned note (``op`` DELETE, or NONE when it was already)."""
        return self._send(Call("elf_notes_delete", path={"note_id": note_id}))

    @operation("elf_notes_deprecate")
    def deprecate_note(self, note_id: str, *, superseded_by: str | None = None) -> DeprecateResponse:
        """POST /v2/notes/{note_id}/deprecate: keep an owned note readable by id but out of searches."""
        return self._send(
            Call("elf_notes_deprecate", path={"note_id": note_id}, json=body(superseded_by=superseded_by))
        )

    @operation("elf_notes_publish")
    def publish_note(self, note_id: str, space: str = "team_shared") -> PublishResponse:
        """POST /v2/notes/{note_id}/publish: move an owned note to team_shared or org_shared."""
        return self._send(Call("elf_notes_publish", path={"note_id": note_id}, json={"space": space}))

    @operation("elf_notes_unpublish")
    def unpublish_note(self, note_id: str, space: str = "team_shared") -> PublishResponse:
        """POST /v2/notes/{note_id}/unpublish: bring a published note back to agent_private."""
        return self._send(Call("elf_notes_unpublish", path={"note_id": note_id}, json={"space": space}))

    # --- events (add_event) ----------------------------------------------------------------------------------------

    @operation("elf_events_ingest")
    def add_event(
        self,
        messages: Sequence[EventMessageRequest | Mapping[str, Any] | str],
        *,
        scope: str | None = None,
        dry_run: bool | None = None,
        ingestion_profile: Mapping[str, Any] | None = None,
    ) -> EventIngestResponse:
        """add_event: POST /v2/events/ingest. One extractor call over the messages (``{"role", "content"}`` dicts;
        a plain string is a user message); every kept note is bound to a verbatim quote of them."""
        return self._send(
            Call(
                "elf_events_ingest",
                json=body(
                    messages=[message(m) for m in messages],
                    scope=scope,
                    dry_run=dry_run,
                    ingestion_profile=ingestion_profile,
                ),
            )
        )

    # --- search ------------------------------------------------------------------------------------------------------

    @operation("elf_searches_create")
    def search(
        self,
        query: str,
        *,
        mode: str | None = None,
        top_k: int | None = None,
        candidate_k: int | None = None,
        filter: Mapping[str, Any] | None = None,
        as_of: str | None = None,
        read_profile: str | None = None,
    ) -> SearchSession:
        """POST /v2/searches: search the notes and open a search session (a compact index of the hits, best first;
        ``search_id`` names the session for get_search, search_timeline and search_notes). ``mode``:
        ``quick_find`` (no expansion, no rerank) or ``planned_search`` (the full pipeline); the service's
        ``search.default_mode`` when left out. ``filter``: a ``search_filter_expr/v1`` envelope."""
        return self._send(
            Call(
                "elf_searches_create",
                read_profile=read_profile,
                json=body(query=query, mode=mode, top_k=top_k, candidate_k=candidate_k, filter=filter, as_of=as_of),
            )
        )

    @operation("elf_searches_create")
    def quick_find(
        self,
        query: str,
        *,
        top_k: int | None = None,
        candidate_k: int | None = None,
        filter: Mapping[str, Any] | None = None,
        as_of: str | None = None,
        read_profile: str | None = None,
    ) -> SearchSession:
        """search in mode ``quick_find``: no query expansion, no rerank (the fast path)."""
        return self.search(
            query,
            mode="quick_find",
            top_k=top_k,
            candidate_k=candidate_k,
            filter=filter,
            as_of=as_of,
            read_profile=read_profile,
        )

    @operation("elf_searches_create")
    def planned_search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        candidate_k: int | None = None,
        filter: Mapping[str, Any] | None = None,
        as_of: str | None = None,
        read_profile: str | None = None,
    ) -> SearchSession:
        """search in mode ``planned_search``: the full pipeline (expansion as configured, rerank)."""
        return self.search(
            query,
            mode="planned_search",
            top_k=top_k,
            candidate_k=candidate_k,
            filter=filter,
            as_of=as_of,
            read_profile=read_profile,
        )

    @operation("elf_searches_get")
    def get_search(self, search_id: str, *, top_k: int | None = None, touch: bool | None = None) -> SearchSession:
        """GET /v2/searches/{search_id}: read a search session again (``touch`` extends its TTL, the default)."""
        return self._send(
            Call("elf_searches_get", path={"search_id": search_id}, params=dict(top_k=top_k, touch=touch))
        )

    @operation("elf_searches_timeline")
    def search_timeline(self, search_id: str, *, group_by: str | None = None) -> Timeline:
        """GET /v2/searches/{search_id}/timeline: the session's items grouped by day (``group_by="none"``: one
        group)."""
        return self._send(
            Call("elf_searches_timeline", path={"search_id": search_id}, params=dict(group_by=group_by)),
        )

    @operation("elf_searches_notes")
    def search_notes(
        self,
        search_id: str,
        note_ids: Sequence[str],
        *,
        record_hits: bool | None = None,
        include_source_excerpts: bool | None = None,
    ) -> SessionNotesResponse:
        """POST /v2/searches/{search_id}/notes: the full notes for chosen ids of a session (records hits unless
        ``record_hits=False``)."""
        return self._send(
            Call(
                "elf_searches_notes",
                path={"search_id": search_id},
                json=body(
                    note_ids=list(note_ids), record_hits=record_hits, include_source_excerpts=include_source_excerpts
                ),
            )
        )

    # --- sharing -----------------------------------------------------------------------------------------------------

    @operation("elf_space_grants_list")
    def list_grants(
        self,
        space: str = "team_shared",
        *,
        include_revoked: bool | None = None,
    ) -> GrantListResponse:
        """GET /v2/spaces/{space}/grants: the grants of this agent's space."""
        return self._send(
            Call("elf_space_grants_list", path={"space": space}, params=dict(include_revoked=include_revoked))
        )

    @operation("elf_space_grant_upsert")
    def grant_space(
        self, space: str = "team_shared", *, grantee_kind: str = "project", grantee_agent_id: str | None = None
    ) -> GrantCreatedResponse:
        """POST /v2/spaces/{space}/grants: let the whole project (or one agent) read this agent's space."""
        return self._send(
            Call(
                "elf_space_grant_upsert",
                path={"space": space},
                json=body(grantee_kind=grantee_kind, grantee_agent_id=grantee_agent_id),
            )
        )

    @operation("elf_space_grant_revoke")
    def revoke_grant(
        self, space: str = "team_shared", *, grantee_kind: str = "project", grantee_agent_id: str | None = None
    ) -> GrantRevokedResponse:
        """POST /v2/spaces/{space}/grants/revoke: revoke a grant of this agent's space (history kept)."""
        return self._send(
            Call(
                "elf_space_grant_revoke",
                path={"space": space},
                json=body(grantee_kind=grantee_kind, grantee_agent_id=grantee_agent_id),
            )
        )

    # --- documents
    # -----------------------------------------------------------------------------------------------------

    @operation("elf_docs_put")
    def put_doc(
        self,
        content: str,
        *,
        scope: str = "agent_private",
        title: str | None = None,
        source_ref: Mapping[str, Any] | None = None,
    ) -> DocPutOut:
        """POST /v2/docs: store a long English document (chunked and indexed by the worker)."""
        return self._send(
            Call("elf_docs_put", json=body(scope=scope, title=title, content=content, source_ref=source_ref))
        )

    @operation("elf_docs_get")
    def get_doc(self, doc_id: str, *, include_content: bool | None = None) -> DocOut:
        """GET /v2/docs/{doc_id}: a document's metadata (and its content with ``include_content=True``)."""
        return self._send(
            Call("elf_docs_get", path={"doc_id": doc_id}, params=dict(include_content=include_content)),
        )

    @operation("elf_docs_delete")
    def delete_doc(self, doc_id: str) -> DocDeletedOut:
        """DELETE /v2/docs/{doc_id}: delete a document this agent owns."""
        return self._send(Call("elf_docs_delete", path={"doc_id": doc_id}))

    @operation("elf_docs_publish")
    def publish_doc(self, doc_id: str, space: str = "team_shared") -> MovedOut:
        """POST /v2/docs/{doc_id}/publish: move an owned document to team_shared or org_shared."""
        return self._send(Call("elf_docs_publish", path={"doc_id": doc_id}, json={"space": space}))

    @operation("elf_docs_unpublish")
    def unpublish_doc(self, doc_id: str, space: str = "team_shared") -> MovedOut:
        """POST /v2/docs/{doc_id}/unpublish: bring a published document back to agent_private."""
        return self._send(Call("elf_docs_unpublish", path={"doc_id": doc_id}, json={"space": space}))

    @operation("elf_docs_search_l0")
    def search_docs(
        self, query: str, *, top_k: int | None = None, candidate_k: int | None = None, scope: str | None = None
    ) -> SearchL0Out:
        """POST /v2/docs/search/l0: document chunks for a query, each with a preview and a ready-to-store
        ``source_ref`` pointer."""
        return self._send(
            Call("elf_docs_search_l0", json=body(query=query, top_k=top_k, candidate_k=candidate_k, scope=scope))
        )

    @operation("elf_docs_excerpts_get")
    def get_doc_excerpt(
        self,
        doc_id: str,
        *,
        level: str | None = None,
        chunk_id: str | None = None,
        quote: Mapping[str, Any] | None = None,
        position: Mapping[str, Any] | None = None,
        state: Mapping[str, Any] | None = None,
    ) -> ExcerptOut:
        """POST /v2/docs/excerpts: a bounded, verified excerpt (``level`` L0, L1 or L2) found by quote, position or
        chunk id."""
        return self._send(
            Call(
                "elf_docs_excerpts_get",
                json=body(doc_id=doc_id, level=level, chunk_id=chunk_id, quote=quote, position=position, state=state),
            )
        )

    # --- core memory (PROFILE.md, SESSION.md) ------------------------------------------------------------------------

    @operation("elf_core_memory_upsert")
    def core_upsert(
        self,
        key: str,
        value: str,
        *,
        scope: str = "profile",
        kind: str = "preference",
        source: str = "user_explicit",
        priority: int | None = None,
        ttl: str | None = None,
        run_id: str | None = None,
        reason: str | None = None,
    ) -> WriteOut:
        """memory_upsert: POST /v2/core-memory/entries. One entry into PROFILE.md (``scope="profile"``) or a run's
        SESSION.md (``scope="session"``, ``run_id``); ``source="user_inferred"`` is staged as pending."""
        return self._send(
            Call(
                "elf_core_memory_upsert",
                json=body(
                    scope=scope,
                    kind=kind,
                    key=key,
                    value=value,
                    priority=priority,
                    ttl=ttl,
                    source=source,
                    run_id=run_id,
                    reason=reason,
                ),
            )
        )

    @operation("elf_core_memory_delete")
    def core_delete(self, key: str, *, scope: str = "profile", run_id: str | None = None) -> DeleteOut:
        """memory_delete: DELETE /v2/core-memory/entries/{scope}/{key}."""
        return self._send(
            Call("elf_core_memory_delete", path={"scope": scope, "key": key}, params=dict(run_id=run_id)),
        )

    @operation("elf_core_memory_profile_get")
    def get_profile(self) -> DocumentOut:
        """GET /v2/core-memory/profile.md?format=json: PROFILE.md's markdown and version."""
        return self._send(Call("elf_core_memory_profile_get", params={"format": "json"}))

    @operation("elf_core_memory_profile_put")
    def put_profile(self, markdown: str, *, if_version: int | None = None) -> DocumentWriteOut:
        """PUT /v2/core-memory/profile.md: replace PROFILE.md (every line validated). ``if_version``: the version
        you edited (ElfError 412 VERSION_CONFLICT when it moved on)."""
        return self._send(
            Call("elf_core_memory_profile_put", json=body(markdown=markdown, if_version=if_version)),
        )

    @operation("elf_core_memory_session_get")
    def get_session_doc(self, run_id: str) -> DocumentOut:
        """GET /v2/core-memory/runs/{run_id}/session.md?format=json: a run's SESSION.md and version."""
        return self._send(Call("elf_core_memory_session_get", path={"run_id": run_id}, params={"format": "json"}))

    @operation("elf_core_memory_session_put")
    def put_session_doc(self, run_id: str, markdown: str, *, if_version: int | None = None) -> DocumentWriteOut:
        """PUT /v2/core-memory/runs/{run_id}/session.md: replace a run's SESSION.md."""
        return self._send(
            Call(
                "elf_core_memory_session_put",
                path={"run_id": run_id},
                json=body(markdown=markdown, if_version=if_version),
            )
        )

    @operation("elf_core_memory_resolve")
    def core_resolve(self, keys: Sequence[str] | None = None, *, run_id: str | None = None) -> ResolveOut:
        """memory_resolve: POST /v2/core-memory/resolve. Effective values (Policy > Profile > Session) with their
        provenance; all keys when ``keys`` is left out."""
        return self._send(
            Call("elf_core_memory_resolve", json=body(keys=list(keys) if keys is not None else None, run_id=run_id))
        )

    @operation("elf_core_memory_compact")
    def core_compact(self, scope: str = "profile", *, run_id: str | None = None) -> CompactOut:
        """memory_compact: POST /v2/core-memory/compact. Drop expired lines and the losing lines of duplicate keys."""
        return self._send(Call("elf_core_memory_compact", json=body(scope=scope, run_id=run_id)))

    @operation("elf_core_memory_utterance")
    def core_utterance(self, text: str, run_id: str) -> UtteranceOut:
        """POST /v2/core-memory/utterances: natural-language memory ("remember that ...", "from now on ...",
        "forget ...") applied to core memory."""
        return self._send(Call("elf_core_memory_utterance", json={"text": text, "run_id": run_id}))

    @operation("elf_core_memory_audit")
    def core_audit(self, run_id: str) -> list[dict[str, Any]]:
        """GET /v2/core-memory/runs/{run_id}/audit.jsonl: a run's audit trail, one dict per line."""
        return self._send(
            Call(
                "elf_core_memory_audit",
                path={"run_id": run_id},
                expect="ndjson",
                headers={"Accept": "application/x-ndjson"},
            )
        )

    @operation("elf_core_memory_run_end")
    def end_run(self, run_id: str) -> EndRunOut:
        """POST /v2/core-memory/runs/{run_id}/end: expire the run's session_end entries and close its SESSION.md."""
        return self._send(Call("elf_core_memory_run_end", path={"run_id": run_id}))

    @operation("elf_core_memory_pending_list")
    def list_pending(self, run_id: str) -> PendingListOut:
        """GET /v2/core-memory/runs/{run_id}/memory/pending: inferred entries waiting for confirmation."""
        return self._send(Call("elf_core_memory_pending_list", path={"run_id": run_id}))

    @operation("elf_core_memory_pending_confirm")
    def confirm_pending(self, run_id: str, entry_id: str) -> DecisionOut:
        """Confirm a pending entry: it is written into its document."""
        return self._send(Call("elf_core_memory_pending_confirm", path={"run_id": run_id, "entry_id": entry_id}))

    @operation("elf_core_memory_pending_reject")
    def reject_pending(self, run_id: str, entry_id: str) -> DecisionOut:
        """Reject a pending entry: nothing is written."""
        return self._send(Call("elf_core_memory_pending_reject", path={"run_id": run_id, "entry_id": entry_id}))

    # --- graph facts
    # -----------------------------------------------------------------------------------------------------

    @operation("elf_graph_facts_list")
    def graph_facts(
        self,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        state: str | None = None,
        as_of: str | None = None,
        limit: int | None = None,
    ) -> FactList:
        """GET /v2/graph/facts: facts by subject, predicate and time (``state``: current, historical, future, all;
        ``as_of``: what was true then)."""
        return self._send(
            Call(
                "elf_graph_facts_list",
                params=dict(subject=subject, predicate=predicate, state=state, as_of=as_of, limit=limit),
            )
        )

    @operation("elf_graph_entity_get")
    def graph_entity(self, entity_id: str) -> EntityDetail:
        """GET /v2/graph/entities/{entity_id}: one entity with its aliases, current facts and history."""
        return self._send(Call("elf_graph_entity_get", path={"entity_id": entity_id}))

    # --- event log and context bundles (/api/v1) ---------------------------------------------------------------------

    @operation("elf_acb_record_event")
    def record_event(
        self,
        session_id: str,
        *,
        kind: str,
        content: Mapping[str, Any],
        channel: str = "private",
        actor: Mapping[str, str] | None = None,
        sensitivity: str | None = None,
        tags: Sequence[str] | None = None,
        refs: Sequence[str] | None = None,
    ) -> EventOut:
        """record_event: POST /api/v1/events. Append one event of a session to the log. ``kind``: message
        (``content={"text": ...}``), tool_call, tool_result, decision, task_update or artifact; ``actor`` defaults
        to this client's agent."""
        if actor is None:
            actor = {"type": "agent", "id": self.config.agent_id or "agent"}
        return self._send(
            Call(
                "elf_acb_record_event",
                json=body(
                    **self.config.caller_ids(),
                    session_id=session_id,
                    channel=channel,
                    actor=dict(actor),
                    kind=kind,
                    sensitivity=sensitivity,
                    tags=list(tags) if tags is not None else None,
                    content=dict(content),
                    refs=list(refs) if refs is not None else None,
                ),
            )
        )

    @operation("elf_acb_record_decision")
    def record_decision(
        self,
        session_id: str,
        decision: str,
        *,
        rationale: Sequence[str] | None = None,
        constraints: Sequence[str] | None = None,
        alternatives: Sequence[str] | None = None,
        consequences: Sequence[str] | None = None,
        scope: str | None = None,
        supersedes: str | None = None,
        channel: str | None = None,
        sensitivity: str | None = None,
        refs: Sequence[str] | None = None,
    ) -> EventOut:
        """POST /api/v1/decisions: record a decision (``supersedes`` marks an older one superseded)."""
        return self._send(
            Call(
                "elf_acb_record_decision",
                json=body(
                    **self.config.caller_ids(),
                    session_id=session_id,
                    decision=decision,
                    rationale=_seq(rationale),
                    constraints=_seq(constraints),
                    alternatives=_seq(alternatives),
                    consequences=_seq(consequences),
                    scope=scope,
                    supersedes=supersedes,
                    channel=channel,
                    sensitivity=sensitivity,
                    refs=_seq(refs),
                ),
            )
        )

    @operation("elf_acb_task")
    def record_task(
        self,
        session_id: str,
        *,
        title: str | None = None,
        status: str | None = None,
        task_id: str | None = None,
        details: str | None = None,
        channel: str | None = None,
        refs: Sequence[str] | None = None,
    ) -> EventOut:
        """POST /api/v1/tasks: create a task (``title``) or update one (``task_id``; ``status`` open, doing,
        done)."""
        return self._send(
            Call(
                "elf_acb_task",
                json=body(
                    **self.config.caller_ids(),
                    session_id=session_id,
                    task_id=task_id,
                    title=title,
                    status=status,
                    details=details,
                    channel=channel,
                    refs=list(refs) if refs is not None else None,
                ),
            )
        )

    @operation("elf_acb_query_decisions")
    def query_decisions(
        self,
        *,
        q: str | None = None,
        session_id: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        channel: str | None = None,
    ) -> DecisionsOut:
        """GET /api/v1/decisions/query: the decision ledger (``status`` active, superseded or all)."""
        return self._send(
            Call(
                "elf_acb_query_decisions",
                params=dict(
                    **self.config.caller_ids(), q=q, session_id=session_id, status=status, limit=limit, channel=channel
                ),
            )
        )

    @operation("elf_acb_get_artifact")
    def get_artifact(self, artifact_id: str, *, channel: str | None = None) -> ArtifactOut:
        """GET /api/v1/artifacts/{artifact_id}: a tool output's full text."""
        return self._send(
            Call(
                "elf_acb_get_artifact",
                path={"artifact_id": artifact_id},
                params=dict(**self.config.caller_ids(), channel=channel),
            )
        )

    @operation("elf_acb_build")
    def build_bundle(
        self,
        session_id: str,
        *,
        intent: str | None = None,
        query_text: str | None = None,
        max_tokens: int | None = None,
        channel: str | None = None,
    ) -> BundleOut:
        """build_acb: POST /api/v1/acb/build. An Active Context Bundle for the next LLM call: the session's recent
        turns, decisions, tasks and relevant memory within ``max_tokens``."""
        return self._send(
            Call(
                "elf_acb_build",
                json=body(
                    **self.config.caller_ids(),
                    session_id=session_id,
                    intent=intent,
                    query_text=query_text,
                    max_tokens=max_tokens,
                    channel=channel,
                ),
            )
        )


class V1Api:
    """The deprecated v1 endpoints (``client.v1``), which take tenant, project and agent in the body or query:
    this client's ids are filled in. New code should use the v2 methods of the client."""

    def __init__(self, client: ElfClient):
        self._client = client

    def _ids(self) -> dict[str, str]:
        return self._client.config.caller_ids()

    @operation("elf_v1_memory_add_note")
    def add_note(self, notes: Sequence[Mapping[str, Any]], *, scope: str = "agent_private") -> V1AddNoteResponse:
        """POST /v1/memory/add_note."""
        return self._client._send(
            Call("elf_v1_memory_add_note", json={**self._ids(), "scope": scope, "notes": [dict(n) for n in notes]})
        )

    @operation("elf_v1_memory_add_event")
    def add_event(
        self, messages: Sequence[Mapping[str, Any] | str], *, scope: str | None = None, dry_run: bool | None = None
    ) -> V1AddEventResponse:
        """POST /v1/memory/add_event."""
        return self._client._send(
            Call(
                "elf_v1_memory_add_event",
                json=body(**self._ids(), scope=scope, dry_run=dry_run, messages=[message(m) for m in messages]),
            )
        )

    @operation("elf_v1_memory_search")
    def search(
        self, query: str, *, top_k: int | None = None, candidate_k: int | None = None, read_profile: str | None = None
    ) -> V1SearchResponse:
        """POST /v1/memory/search (planned_search, full notes, hits recorded)."""
        return self._client._send(
            Call(
                "elf_v1_memory_search",
                json=body(
                    **self._ids(),
                    query=query,
                    top_k=top_k,
                    candidate_k=candidate_k,
                    read_profile=read_profile or self._client.config.read_profile,
                ),
            )
        )

    @operation("elf_v1_memory_list")
    def list(
        self,
        *,
        scope: str | None = None,
        status: str | None = None,
        type: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> NoteListResponse:
        """GET /v1/memory/list."""
        return self._client._send(
            Call(
                "elf_v1_memory_list",
                params=dict(**self._ids(), scope=scope, status=status, type=type, limit=limit, cursor=cursor),
            )
        )

    @operation("elf_v1_memory_update")
    def update(
        self,
        note_id: str,
        *,
        text: str | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        ttl_days: int | None = None,
    ) -> V1UpdateResponse:
        """POST /v1/memory/update."""
        return self._client._send(
            Call(
                "elf_v1_memory_update",
                json=body(
                    **self._ids(),
                    note_id=note_id,
                    text=text,
                    importance=importance,
                    confidence=confidence,
                    ttl_days=ttl_days,
                ),
            )
        )

    @operation("elf_v1_memory_delete")
    def delete(self, note_id: str) -> V1DeleteResponse:
        """POST /v1/memory/delete."""
        return self._client._send(Call("elf_v1_memory_delete", json={**self._ids(), "note_id": note_id}))
