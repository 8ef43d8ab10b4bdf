"""The Python client (clients/python, import name elf_client) against the live test stack: every public operation
of the OpenAPI document has a client method, and real calls through ElfClient and AsyncElfClient write and read
notes, search in both modes, store and search documents, use core memory, graph facts, the event log and its
bundles, sharing and v1; errors carry error_code and fields; a real rate limiter's 429 is retried after its
Retry-After. The client never imports the server's packages (.importlinter), so it is driven over HTTP only."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from elf_client import NO_RETRY, AsyncElfClient, AsyncV1Api, ElfClient, ElfError, RetryPolicy, V1Api
from elf_client._operations import OPERATIONS

REPO = Path(__file__).resolve().parents[2]
OPENAPI = REPO / "elf_mcp" / "openapi.json"

# Operations of the public document the client leaves out on purpose, each with its reason. Empty: the client
# covers every public operation, the deprecated v1 ones included (client.v1). The admin document (the admin
# bind: debugging, traces, predicates, ingestion profiles, rebuilds) is an operator's surface, not an agent's,
# and is not walked.
EXCLUDED: dict[str, str] = {}


def covered(*classes: type) -> dict[str, list[str]]:
    """operationId -> the client methods that call it (from their @operation marks)."""
    found: dict[str, list[str]] = {}
    for cls in classes:
        for name in dir(cls):
            for op in getattr(getattr(cls, name), "__elf_operations__", ()):
                found.setdefault(op, []).append(f"{cls.__name__}.{name}")
    return found


def public_operations() -> dict[str, tuple[str, str]]:
    import json

    doc = json.loads(OPENAPI.read_text())["public"]
    return {op["operationId"]: (method.upper(), path) for path, item in doc["paths"].items()
            for method, op in item.items() if method in ("get", "put", "post", "patch", "delete")}


def wait_for(check: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    """Poll ``check`` until it returns something truthy (the worker indexes notes and documents after the write)."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout}s")
        time.sleep(0.3)


# --- coverage, without a service --------------------------------------------------------------------------------


def test_every_public_operation_has_a_client_method_sync_and_async():
    operations = public_operations()
    assert operations == OPERATIONS, "elf_client/_operations.py is stale: run clients/python/tools/generate.py"
    for classes in ((ElfClient, V1Api), (AsyncElfClient, AsyncV1Api)):
        found = covered(*classes)
        missing = sorted(set(operations) - set(found) - set(EXCLUDED))
        assert not missing, f"public operations without a {classes[0].__name__} method: {missing}"
        assert not set(found) - set(operations), "methods marked with operations the API does not have"
    assert not set(EXCLUDED) - set(operations), "exclusions of operations the API no longer has"


def test_generated_modules_are_current():
    r = subprocess.run([sys.executable, str(REPO / "clients/python/tools/generate.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_async_client_has_the_same_methods_as_coroutines():
    for sync_cls, async_cls in ((ElfClient, AsyncElfClient), (V1Api, AsyncV1Api)):
        public = {n for n in dir(sync_cls) if not n.startswith("_")}
        assert public - {"close"} == {n for n in dir(async_cls) if not n.startswith("_")} - {"aclose"}
        for name in public - {"close", "config", "with_context"}:
            fn = getattr(async_cls, name)
            assert asyncio.iscoroutinefunction(fn) or name == "iter_notes", name


# --- the live stack -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base_url(live_api, live_worker) -> str:
    return live_api[0]


@pytest.fixture(scope="module")
def tenant() -> str:
    return f"pyc-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def elf(base_url, tenant):
    with ElfClient(base_url, tenant_id=tenant, project_id="p1", agent_id="a1") as client:
        yield client


def test_health_and_context(elf, tenant):
    assert elf.health()["status"] == "ok"
    assert elf.context() == {"tenant_id": tenant, "project_id": "p1", "agent_id": "a1",
                             "read_profile": "private_plus_project"}
    assert elf.context(read_profile="private_only")["read_profile"] == "private_only"
    other = elf.with_context(agent_id="a2")
    assert other.context()["agent_id"] == "a2" and elf.config.agent_id == "a1"
    other.close()  # shares elf's connections: elf still works
    assert elf.context()["agent_id"] == "a1"


def test_notes_add_get_list_update_delete(elf):
    added = elf.add_note("The deploy window for the billing service is Tuesday morning.", type="fact",
                         key="deploy_window", importance=0.7, confidence=0.9)
    assert added["op"] == "ADD" and added["policy_decision"] == "remember", added
    note_id = added["note_id"]
    note = elf.get_note(note_id)
    assert (note["text"], note["key"], note["type"], note["scope"], note["status"]) == (
        "The deploy window for the billing service is Tuesday morning.", "deploy_window", "fact", "agent_private",
        "active")
    page = elf.list_notes(scope="agent_private", type="fact", limit=1)
    assert len(page["notes"]) == 1 and "next_cursor" in page
    assert note_id in {n["note_id"] for n in elf.iter_notes(scope="agent_private", page_size=1)}

    again = elf.add_note("The deploy window for the billing service is Thursday afternoon.", key="deploy_window")
    assert (again["op"], again["note_id"]) == ("UPDATE", note_id), again  # keyed: updated in place
    patched = elf.update_note(note_id, text="The deploy window for the billing service is Friday at noon.",
                              importance=0.8)
    assert (patched["op"], patched["note_id"]) == ("UPDATE", note_id)
    assert elf.get_note(note_id)["text"] == "The deploy window for the billing service is Friday at noon."
    assert elf.update_note(note_id, ttl_days=30)["op"] == "UPDATE"
    assert elf.get_note(note_id)["expires_at"] is not None

    batch = elf.add_notes([
        {"type": "preference", "text": "The user likes concise status updates.", "importance": 0.5,
         "confidence": 0.9},
        {"type": "plan", "text": "Migrate the billing database next quarter.", "importance": 0.5, "confidence": 0.9},
    ])
    assert [r["op"] for r in batch["results"]] == ["ADD", "ADD"]
    old = batch["results"][1]["note_id"]
    deprecated = elf.deprecate_note(old)
    assert (deprecated["op"], deprecated["status"]) == ("DEPRECATE", "deprecated")

    deleted = elf.delete_note(note_id)
    assert (deleted["op"], deleted["note_id"]) == ("DELETE", note_id)
    assert note_id not in {n["note_id"] for n in elf.iter_notes(scope="agent_private")}


def test_search_in_both_modes_and_its_session(elf):
    text = "The staging cluster runs on three arm64 nodes in the Frankfurt region."
    note_id = elf.add_note(text, type="fact", key="staging_cluster")["note_id"]
    elf.add_note("Lunch orders for the team go out every Friday before eleven.", type="fact")

    def hit(mode):
        found = elf.search("Where does the staging cluster run?", mode=mode, top_k=5)
        return found if found["items"] and found["items"][0]["note_id"] == note_id else None

    quick = wait_for(lambda: hit("quick_find"), what="the note found by quick_find")
    planned = elf.planned_search("Where does the staging cluster run?", top_k=5)
    assert planned["items"][0]["note_id"] == note_id
    assert elf.quick_find("Where does the staging cluster run?", top_k=5)["items"][0]["note_id"] == note_id
    item = quick["items"][0]
    assert item["key"] == "staging_cluster" and item["summary"] and isinstance(item["final_score"], float)

    filtered = elf.search("staging cluster region", mode="quick_find", filter={
        "schema": "search_filter_expr/v1", "expr": {"op": "eq", "field": "key", "value": "no_such_key"}})
    assert filtered["items"] == []

    session = elf.get_search(quick["search_id"], top_k=1, touch=True)
    assert session["search_id"] == quick["search_id"] and len(session["items"]) == 1
    timeline = elf.search_timeline(quick["search_id"], group_by="none")
    assert timeline["groups"][0]["date"] == "all"
    full = elf.search_notes(quick["search_id"], [note_id], record_hits=False)
    assert full["results"][0]["note"]["text"] == text and full["results"][0]["error"] is None


def test_add_event_extracts_notes_bound_to_evidence(elf):
    done = elf.add_event([
        "I prefer dark mode in every editor I use.",
        {"role": "assistant", "content": "Noted, dark mode it is."},
    ], dry_run=True)
    assert done["dry_run"] is True and done["ingestion_profile"]["id"]
    assert isinstance(done["results"], list)


def test_documents_put_get_search_excerpt_delete(elf):
    content = ("Runbook for the payments gateway.\n\nWhen the gateway returns timeouts, first check the "
               "connection pool of the ledger database, then restart the gateway workers one at a time.\n")
    doc = elf.put_doc(content, title="Payments runbook")
    doc_id = doc["doc_id"]
    assert doc["chunk_count"] >= 1 and doc["scope"] == "agent_private"
    got = elf.get_doc(doc_id, include_content=True)
    assert got["content"] == content and got["title"] == "Payments runbook"

    def found():
        items = elf.search_docs("what to check when the payments gateway times out", top_k=3)["items"]
        return [i for i in items if i["doc_id"] == doc_id]

    (hit, *_) = wait_for(found, what="the document found by docs_search_l0")
    assert hit["source_ref"]["ref"]["doc_id"] == doc_id
    excerpt = elf.get_doc_excerpt(doc_id, level="L1", quote={"exact": "restart the gateway workers"})
    assert excerpt["verified"] is True and "restart the gateway workers" in excerpt["excerpt"]
    published = elf.publish_doc(doc_id, "team_shared")
    assert published["scope"] == "project_shared"
    assert elf.unpublish_doc(doc_id, "team_shared")["scope"] == "agent_private"
    assert elf.delete_doc(doc_id)["doc_id"] == doc_id
    with pytest.raises(ElfError) as gone:
        elf.get_doc(doc_id)
    assert gone.value.status == 404 and gone.value.error_code == "NOT_FOUND"


def test_core_memory_profile_session_and_pending(elf):
    written = elf.core_upsert("response.tone", "friendly", priority=70, reason="the user asked")
    assert written["status"] == "written" and written["doc_version"] >= 1
    profile = elf.get_profile()
    assert "key:response.tone" in profile["markdown"] and profile["version"] == written["doc_version"]
    resolved = {i["key"]: i for i in elf.core_resolve(["response.tone"])["items"]}
    assert resolved["response.tone"]["value"] == "friendly"
    with pytest.raises(ElfError) as stale:
        elf.put_profile(profile["markdown"], if_version=profile["version"] - 1)
    assert stale.value.status == 412 and stale.value.error_code == "VERSION_CONFLICT"
    assert elf.put_profile(profile["markdown"], if_version=profile["version"])["changed"] is False
    assert elf.core_delete("response.tone")["key"] == "response.tone"
    assert elf.core_compact("profile")["scope"] == "profile"

    run = f"run-{uuid.uuid4().hex[:6]}"
    session = "# SESSION\r\n\r\n## Preferences\r\n- key:answer.length | value:short\r\n"
    assert elf.put_session_doc(run, session)["doc_version"] == 1
    assert elf.get_session_doc(run)["markdown"] == session
    said = elf.core_utterance("Remember that I prefer short answers", run)
    assert said["op"] == "upsert" and said["verified"] is True
    staged = elf.core_upsert("preference.font", "serif", source="user_inferred", run_id=run)
    assert staged["status"] == "pending"
    other = elf.core_upsert("preference.color", "green", source="user_inferred", run_id=run)
    pending = {p["key"]: p for p in elf.list_pending(run)["items"]}
    assert {"preference.font", "preference.color"} <= set(pending)
    assert elf.confirm_pending(run, staged["pending_entry_id"])["status"] == "confirmed"
    assert elf.reject_pending(run, other["pending_entry_id"])["status"] == "rejected"
    trail = elf.core_audit(run)
    assert {"stage", "confirm", "reject"} <= {a["op"] for a in trail} and all(a["run_id"] == run for a in trail)
    ended = elf.end_run(run)
    assert ended["run_id"] == run and ended["already_ended"] is False


def test_graph_facts_and_entities(elf):
    subject = f"Dana {uuid.uuid4().hex[:6]}"
    relation = {"subject": {"canonical": subject, "kind": "person"}, "predicate": "works_on",
                "object": {"entity": {"canonical": "search relevance"}, "value": None}}
    added = elf.add_note(f"{subject} works on search relevance.", structured={"relations": [relation]})
    assert added["op"] == "ADD", added
    (fact,) = elf.graph_facts(subject=subject)["facts"]
    assert fact["object"]["entity"]["canonical"] == "search relevance"
    assert fact["evidence_note_ids"] == [added["note_id"]] and fact["state"] == "current"
    entity = elf.graph_entity(fact["subject"]["entity_id"])
    assert entity["canonical"].lower() == subject.lower() and entity["current_facts"]
    assert elf.graph_facts(subject=subject, state="historical")["facts"] == []


def test_event_log_and_context_bundle(elf):
    session = f"s-{uuid.uuid4().hex[:6]}"
    said = elf.record_event(session, kind="message", content={"text": "Please keep the API backwards compatible."},
                            actor={"type": "human", "id": "user"})
    assert said["event_id"] and said["chunk_ids"]
    decision = elf.record_decision(session, "Keep the v1 endpoints until the end of the year.",
                                   rationale=["Two customers still call them."])
    assert decision["decision_id"]
    task = elf.record_task(session, title="Write the v1 sunset notice")
    assert task["task_id"]
    assert elf.record_task(session, task_id=task["task_id"], status="doing")["task_id"] == task["task_id"]
    ledger = elf.query_decisions(session_id=session)
    assert [d["decision_id"] for d in ledger["decisions"]] == [decision["decision_id"]]

    output = "".join(f"line {i}: the harbour log entry for berth {i % 17}\n" for i in range(1, 3001))
    tool = elf.record_event(session, kind="tool_result", actor={"type": "tool", "id": "fs"},
                            content={"tool": "read_file", "path": "harbour.log", "output": output})
    assert tool["artifact_id"]
    assert elf.get_artifact(tool["artifact_id"])["text"] == output

    bundle = elf.build_bundle(session, query_text="API compatibility", max_tokens=4000)
    assert bundle["token_used_est"] <= bundle["budget_tokens"] and bundle["sections"]
    texts = [i["text"] for s in bundle["sections"] for i in s["items"]]
    assert any("backwards compatible" in t for t in texts) and any("v1 endpoints" in t for t in texts)


def test_sharing_a_note_and_space_grants(elf):
    note_id = elf.add_note("The on-call rotation changes every Monday at nine.", key="oncall_rotation")["note_id"]
    assert elf.publish_note(note_id, "team_shared") == {"note_id": note_id, "space": "team_shared"}
    grants = elf.list_grants("team_shared")["grants"]
    assert any(g["grantee_kind"] == "project" for g in grants)
    assert elf.grant_space("team_shared", grantee_kind="agent", grantee_agent_id="a9")["granted"] is True
    reader = elf.with_context(agent_id="a9")
    assert reader.get_note(note_id)["text"].startswith("The on-call rotation")
    assert elf.revoke_grant("team_shared", grantee_kind="agent", grantee_agent_id="a9")["revoked"] is True
    assert elf.unpublish_note(note_id, "team_shared")["space"] == "agent_private"
    with pytest.raises(ElfError) as hidden:
        reader.get_note(note_id)
    assert hidden.value.status in (403, 404)


def test_errors_carry_error_code_message_and_fields(elf):
    with pytest.raises(ElfError) as bad:
        elf.add_notes([{"type": "fact", "text": "A note without its importance.", "confidence": 0.5}])
    e = bad.value
    assert (e.status, e.error_code) == (400, "INVALID_REQUEST") and e.fields == ["$.notes[0].importance"]
    assert e.message and e.body["error_code"] == "INVALID_REQUEST" and "INVALID_REQUEST" in str(e)

    with pytest.raises(ElfError) as foreign:
        elf.add_note("Пользователь предпочитает короткие ответы на все вопросы.")
    assert (foreign.value.status, foreign.value.error_code) == (422, "NON_ENGLISH_INPUT")
    assert foreign.value.fields == ["$.notes[0].text"]

    with pytest.raises(ElfError) as missing:
        elf.get_note(str(uuid.uuid4()))
    assert (missing.value.status, missing.value.error_code) == (404, "NOT_FOUND")

    with pytest.raises(ElfError) as no_headers:
        elf.with_context(tenant_id=None).list_notes()
    assert no_headers.value.status == 400 and "$.headers.X-ELF-Tenant-Id" in no_headers.value.fields

    rejected = elf.add_note("x" * 500)  # a write the service answers with 200: the op says why
    assert (rejected["op"], rejected["reason_code"]) == ("REJECTED", "REJECT_TOO_LONG")


def test_v1_endpoints(elf):
    added = elf.v1.add_note([{"type": "fact", "key": "v1_probe", "text": "The v1 probe note is stored by v1.",
                              "importance": 0.5, "confidence": 0.9}])
    note_id = added["results"][0]["note_id"]
    assert added["results"][0]["op"] == "ADD"
    assert note_id in {n["note_id"] for n in elf.v1.list(scope="agent_private", limit=200)["notes"]}
    assert elf.v1.update(note_id, text="The v1 probe note was updated by v1.")["op"] == "UPDATE"
    wait_for(lambda: any(i["note_id"] == note_id for i in elf.v1.search("v1 probe note", top_k=5)["items"]),
             what="the v1 note found by v1 search")
    assert elf.v1.add_event(["I prefer tea over coffee in the morning."], dry_run=True)["results"] is not None
    assert elf.v1.delete(note_id)["op"] == "DELETE"


def test_async_client(base_url, tenant):
    async def run():
        async with AsyncElfClient(base_url, tenant_id=tenant, project_id="p1", agent_id="async") as elf:
            added = await elf.add_note("The async client stores this note about the kiosk printer.",
                                       key="kiosk_printer")
            assert added["op"] == "ADD"
            assert (await elf.get_note(added["note_id"]))["key"] == "kiosk_printer"
            notes = [n async for n in elf.iter_notes(scope="agent_private", page_size=1)]
            assert [n["note_id"] for n in notes] == [added["note_id"]]
            found = await elf.quick_find("kiosk printer", top_k=3)
            assert "search_id" in found
            with pytest.raises(ElfError) as missing:
                await elf.get_note(str(uuid.uuid4()))
            assert missing.value.error_code == "NOT_FOUND"
            other = elf.with_context(agent_id="async2")
            assert (await other.context())["agent_id"] == "async2"
            assert (await elf.v1.list(scope="agent_private"))["notes"]

    asyncio.run(run())


# --- retries: a real rate limiter, and a transport for 503 and refused connections ---------------------------------

TOKEN = secrets.token_urlsafe(24)


@pytest.fixture(scope="module")
def limited(isolated_services_module):
    """An elf-api with static API keys and [security.rate_limits]: one request a second, bursts of one."""

    def mutate(data):
        data["security"]["rate_limits"] = {"requests_per_second": 1, "burst": 1}
        data["security"].update(auth_mode="static_keys", auth_keys=[{
            "token_id": "client-key", "token": TOKEN, "tenant_id": "rt", "project_id": "p1", "agent_id": "limited",
            "role": "user"}])

    s = isolated_services_module("client_retry", mutate=mutate)
    s.start_api()
    return s


def test_the_bearer_token_fixes_the_context(limited):
    with ElfClient(limited.public, token=TOKEN, retry=RetryPolicy(max_attempts=5)) as elf:
        assert elf.context() == {"tenant_id": "rt", "project_id": "p1", "agent_id": "limited",
                                 "read_profile": "private_plus_project"}
    with ElfClient(limited.public, token="not-a-key", tenant_id="rt", project_id="p1", agent_id="limited",
                   retry=RetryPolicy(max_attempts=5)) as stranger:
        with pytest.raises(ElfError) as denied:
            stranger.context()
        assert denied.value.status == 401 and denied.value.error_code == "UNAUTHENTICATED"


def test_a_429_is_retried_after_its_retry_after(limited):
    waits: list[tuple[int, float, ElfError]] = []
    policy = RetryPolicy(max_attempts=4, on_retry=lambda attempt, delay, error: waits.append((attempt, delay, error)))
    with ElfClient(limited.public, token=TOKEN, retry=policy) as elf:
        start = time.monotonic()
        answers = [elf.context() for _ in range(3)]  # a burst of one: the second and third wait for a token
        elapsed = time.monotonic() - start
    assert all(a["agent_id"] == "limited" for a in answers)
    assert waits, "no call was rate limited"
    for _attempt, delay, error in waits:
        assert (error.status, error.error_code) == (429, "RATE_LIMITED") and error.retry_after == 1.0
        assert delay == 1.0  # the server's Retry-After, not the backoff
    assert elapsed >= len(waits) * 1.0

    with ElfClient(limited.public, token=TOKEN, retry=NO_RETRY) as elf, pytest.raises(ElfError) as limited_error:
        for _ in range(5):
            elf.context()
    e = limited_error.value
    assert (e.status, e.error_code, e.retry_after) == (429, "RATE_LIMITED", 1.0) and e.fields == []
    assert e.message.startswith("Rate limit exceeded for this caller")


def test_a_retry_after_longer_than_the_cap_raises_at_once(limited):
    policy = RetryPolicy(max_attempts=5, max_retry_after=0.5)
    with ElfClient(limited.public, token=TOKEN, retry=policy) as elf:
        start = time.monotonic()
        with pytest.raises(ElfError) as capped:
            for _ in range(5):
                elf.context()
        assert capped.value.status == 429 and time.monotonic() - start < 1.0


def test_503_with_retry_after_and_refused_connections_are_retried():
    """A transport standing in for the network (retry behaviour only): 503 with Retry-After, then 200."""
    answers = iter([
        httpx.Response(503, json={"error_code": "DATABASE_UNAVAILABLE", "message": "retry", "fields": []},
                       headers={"Retry-After": "0"}),
        httpx.Response(503, json={"error_code": "DATABASE_UNAVAILABLE", "message": "retry", "fields": []}),
        httpx.Response(200, json={"tenant_id": "t", "project_id": "p", "agent_id": "a", "read_profile": "x"}),
    ])
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return next(answers)

    waits = []
    policy = RetryPolicy(max_attempts=3, backoff=0.01, on_retry=lambda a, d, e: waits.append((a, d, e.error_code)))
    with ElfClient("http://elf.test", tenant_id="t", project_id="p", agent_id="a", retry=policy,
                   transport=httpx.MockTransport(handler)) as elf:
        assert elf.context()["agent_id"] == "a"
    # The first wait is the answer's Retry-After (0); the second, without one, is backoff * 2 with jitter.
    assert [w[0] for w in waits] == [1, 2] and waits[0][1] == 0.0 and 0.01 <= waits[1][1] <= 0.02
    assert all(r.headers["X-ELF-Tenant-Id"] == "t" and r.headers["X-ELF-Read-Profile"] == "private_plus_project"
               for r in seen)

    from elf_infra.qdrant_server.launcher import free_port

    tries = []
    policy = RetryPolicy(max_attempts=2, backoff=0.01, on_retry=lambda a, d, e: tries.append(e.error_code))
    with ElfClient(f"http://127.0.0.1:{free_port()}", tenant_id="t", project_id="p", agent_id="a",
                   retry=policy) as nowhere, pytest.raises(ElfError) as refused:
        nowhere.health()
    assert refused.value.status is None and refused.value.error_code == "CONNECTION_ERROR"
    assert tries == ["CONNECTION_ERROR"]
