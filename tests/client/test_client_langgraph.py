"""elf_client.langgraph.ElfStore, a LangGraph BaseStore kept in ELF, against the live test stack: the item <-> note
mapping, get/put/delete, search with and without a query (ELF search) and with filters, list_namespaces, the
limits ELF puts on values (raised as ElfError), a shared scope between two agents, the async path, and a compiled
LangGraph graph that reads and writes through it. LangGraph's own store tests run in
tests/client/test_client_langgraph_conformance.py."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import TypedDict

import pytest
from elf_client import ElfClient, ElfError
from elf_client.langgraph import SCHEMA, ElfStore, note_key
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from tests.client.test_client_python import wait_for


@pytest.fixture(scope="module")
def client(live_api, live_worker):
    with ElfClient(live_api[0], tenant_id=f"lgs-{uuid.uuid4().hex[:8]}", project_id="p1", agent_id="a1") as c:
        yield c


@pytest.fixture
def store(client):
    """A fresh, empty store: its own agent (items live in that agent's private scope)."""
    s = ElfStore(client.with_context(agent_id=f"lg-{uuid.uuid4().hex[:10]}"))
    yield s
    s.close()


def store_notes(store: ElfStore) -> list[dict]:
    return list(store.client.iter_notes(scope="agent_private"))


def test_put_get_update_delete_round_trip_values(store):
    ns = ("users", "u1", "memories")
    value = {"food": "spicy ramen", "cafe": "Café Noir", "visits": 3, "rating": 4.5, "vegan": False,
             "tags": ["dinner", "late"], "address": {"city": "Lyon", "zip": None}}
    assert store.get(ns, "food") is None
    before = datetime.now(UTC) - timedelta(seconds=5)
    store.put(ns, "food", value)
    item = store.get(ns, "food")
    assert (item.namespace, item.key, item.value) == (ns, "food", value)
    assert before <= item.created_at <= item.updated_at

    store.put(ns, "food", {"food": "udon"})
    again = store.get(ns, "food")
    assert again.value == {"food": "udon"} and again.created_at == item.created_at
    assert again.updated_at >= item.updated_at
    assert len(store_notes(store)) == 1  # put again: the same note, updated in place

    assert store.get(("users", "u1"), "food") is None and store.get(ns, "drink") is None
    store.delete(ns, "food")
    assert store.get(ns, "food") is None and store_notes(store) == []
    store.delete(ns, "food")  # deleting what is not there is no error


def test_an_item_is_one_note_with_the_documented_fields(store):
    ns = ("users", "u1", "prefs")
    store.put(ns, "theme", {"mode": "dark"})
    (note,) = store_notes(store)
    assert note["text"] == '{"mode":"dark"}' and json.loads(note["text"]) == {"mode": "dark"}
    assert note["key"] == note_key(ns, "theme") and note["key"].startswith("lg:") and len(note["key"]) == 3 + 18 + 21
    assert note["source_ref"] == {"schema": SCHEMA, "namespace": list(ns), "key": "theme"}
    assert (note["type"], note["scope"], note["importance"], note["confidence"]) == ("fact", "agent_private", 0.5, 1.0)
    expires = datetime.fromisoformat(note["expires_at"].replace("Z", "+00:00"))
    assert expires > datetime.now(UTC) + timedelta(days=365 * 99)
    deep = tuple(f"level{i}" for i in range(20))
    assert len(note_key(deep, "k" * 500)) == 120  # 16 levels hashed, whatever the depth and key length
    # A note the store did not write (or whose source_ref does not match its key) is not an item.
    store.client.add_note("A plain note beside the store's items.", key="plain_note")
    store.client.add_note('{"mode":"light"}', key=note_key(ns, "other"),
                          source_ref={"schema": SCHEMA, "namespace": list(ns), "key": "forged"})
    assert [i.key for i in store.search(())] == ["theme"]


def test_search_without_a_query_filters_and_pages(store):
    for i in range(5):
        store.put(("docs", "a" if i % 2 else "b"), f"d{i}", {"n": i, "kind": "even" if i % 2 == 0 else "odd",
                                                              "meta": {"lang": "en"}})
        time.sleep(0.01)
    everything = store.search(("docs",), limit=10)
    assert [i.key for i in everything] == ["d4", "d3", "d2", "d1", "d0"]  # newest first
    assert all(i.score is None for i in everything)
    assert [i.key for i in store.search(("docs",), limit=2, offset=1)] == ["d3", "d2"]
    assert {i.key for i in store.search(("docs", "a"))} == {"d1", "d3"}
    assert {i.key for i in store.search((), filter={"kind": "even"})} == {"d0", "d2", "d4"}
    assert {i.key for i in store.search(("docs",), filter={"n": {"$gte": 1, "$lt": 3}})} == {"d1", "d2"}
    assert {i.key for i in store.search(("docs",), filter={"n": {"$ne": 0}, "meta.lang": "en"})} == {
        "d1", "d2", "d3", "d4"}
    assert store.search(("doc",)) == []  # a prefix is whole labels


def test_search_with_a_query_is_an_elf_search_within_the_prefix(store):
    store.put(("kb", "travel"), "passport", {"fact": "The passport renewal takes six weeks at the city office."})
    store.put(("kb", "travel"), "visa", {"fact": "A visa for Japan is not needed for short tourist stays."})
    store.put(("kb", "cooking"), "bread", {"fact": "Sourdough bread needs a long cold proof overnight."})
    store.put(("other",), "passport", {"fact": "Passport photos must be taken against a white background."})

    def found():
        hits = store.search(("kb",), query="how long does renewing a passport take?", limit=3)
        return hits if hits and hits[0].key == "passport" else None

    hits = wait_for(found, what="the passport item found by a query search")
    assert all(h.namespace[0] == "kb" for h in hits) and isinstance(hits[0].score, float)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].value == {"fact": "The passport renewal takes six weeks at the city office."}
    in_cooking = store.search(("kb", "cooking"), query="passport renewal")
    assert [h.key for h in in_cooking] in ([], ["bread"])
    filtered = store.search(("kb",), query="travel rules", filter={"fact": {"$ne": "x"}}, limit=1)
    assert len(filtered) == 1
    planned = ElfStore(store.client, search_mode="planned_search")
    assert planned.search(("kb",), query="how long does renewing a passport take?")[0].key == "passport"
    with pytest.raises(ElfError) as foreign:
        store.search(("kb",), query="Сколько времени занимает продление паспорта?")
    assert (foreign.value.status, foreign.value.error_code) == (422, "NON_ENGLISH_INPUT")


def test_list_namespaces(store):
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "e"), ("x", "b", "c")]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == [("a", "b", "c"), ("a", "b", "d"), ("a", "e"), ("x", "b", "c")]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "b", "c"), ("x", "b", "c")]
    assert store.list_namespaces(prefix=("*", "b")) == [("a", "b", "c"), ("a", "b", "d"), ("x", "b", "c")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "e"), ("x", "b")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d"), ("a", "e")]
    assert store.batch([ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("a",)),
                                                           MatchCondition("suffix", ("d",))))]) == [[("a", "b", "d")]]


def test_a_batch_runs_in_order_and_writes_together(store):
    results = store.batch([
        PutOp(("t",), "k1", {"v": 1}), PutOp(("t",), "k2", {"v": 2}), PutOp(("t",), "k1", {"v": 3}),
        GetOp(("t",), "k1"), SearchOp(("t",)), PutOp(("t",), "k2", None), GetOp(("t",), "k2"),
        ListNamespacesOp(),
    ])
    assert results[:3] == [None, None, None] and results[3].value == {"v": 3}
    assert {i.key for i in results[4]} == {"k1", "k2"}
    assert results[5:] == [None, None, [("t",)]]


def test_elf_limits_raise_elf_error_naming_the_reason(store):
    # Refused inside a 200 (the note's reason_code; status None), or by the request's English gate (422).
    cases = [({"text": "x" * 300}, None, "REJECT_TOO_LONG"),
             ({"note": "my api_key = sk-abcdefghijklmnopqrstuvwx1234"}, None, "REJECT_SECRET"),
             ({"text": "Пользователь любит острую еду"}, 422, "NON_ENGLISH_INPUT")]
    for value, status, code in cases:
        with pytest.raises(ElfError) as refused:
            store.put(("limits",), "k", value)
        e = refused.value
        assert (e.status, e.error_code) == (status, code) and e.fields == ["$.notes[0].text"], e
    assert store.get(("limits",), "k") is None
    with pytest.raises(NotImplementedError):
        store.put(("limits",), "k", {"v": 1}, ttl=5)
    with pytest.raises(ValueError):
        store.put(("limits",), "k", {"v": float("nan")})


def test_a_shared_scope_between_two_agents(client):
    ns = ("team", "runbooks")
    alice = ElfStore(client.with_context(agent_id=f"alice-{uuid.uuid4().hex[:6]}"), scope="team_shared")
    bob = ElfStore(client.with_context(agent_id=f"bob-{uuid.uuid4().hex[:6]}"), scope="team_shared")
    alice.put(ns, "deploy", {"step": "Run the smoke tests before every deploy."})
    assert bob.get(ns, "deploy") is None  # shared notes need a grant from their owner
    alice.client.grant_space("team_shared", grantee_kind="project")
    assert bob.get(ns, "deploy").value == {"step": "Run the smoke tests before every deploy."}
    bob.put(ns, "deploy", {"step": "Run the smoke tests and the migrations check before a deploy."})
    bob.client.grant_space("team_shared", grantee_kind="project")
    assert alice.get(ns, "deploy").value["step"].startswith("Run the smoke tests and the migrations")
    bob.delete(ns, "deploy")  # removes bob's own note: alice's is read again
    assert bob.get(ns, "deploy").value == {"step": "Run the smoke tests before every deploy."}


def test_the_async_path(client):
    async def run():
        store = ElfStore(client.with_context(agent_id=f"lga-{uuid.uuid4().hex[:8]}"))
        await store.aput(("async", "ns"), "k1", {"v": "one"})
        await asyncio.gather(*(store.aput(("async", "ns"), f"k{i}", {"v": i}) for i in range(2, 5)))
        assert (await store.aget(("async", "ns"), "k1")).value == {"v": "one"}
        assert {i.key for i in await store.asearch(("async",))} == {"k1", "k2", "k3", "k4"}
        assert await store.alist_namespaces(prefix=("async",)) == [("async", "ns")]
        await store.adelete(("async", "ns"), "k1")
        got = await store.abatch([GetOp(("async", "ns"), "k1"), GetOp(("async", "ns"), "k2")])
        assert got[0] is None and got[1].value == {"v": 2}
        hits = await asyncio.wait_for(_until_found(store), 30)
        assert hits[0].key == "k2"
        await store.aclose()

    async def _until_found(store):
        while True:
            hits = await store.asearch(("async",), query="v 2", filter={"v": 2})
            if hits:
                return hits
            await asyncio.sleep(0.3)

    asyncio.run(run())


def test_a_langgraph_graph_remembers_through_the_store(store):
    class State(TypedDict):
        user: str
        said: str
        reply: str

    def remember(state: State, *, store: BaseStore) -> dict:
        store.put(("users", state["user"], "facts"), "latest", {"said": state["said"]})
        return {}

    def recall(state: State, *, store: BaseStore) -> dict:
        item = store.get(("users", state["user"], "facts"), "latest")
        return {"reply": f"You told me: {item.value['said']}"}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=store)
    out = graph.invoke({"user": "u7", "said": "I moved to Porto last spring.", "reply": ""})
    assert out["reply"] == "You told me: I moved to Porto last spring."
    assert store.get(("users", "u7", "facts"), "latest").value == {"said": "I moved to Porto last spring."}
