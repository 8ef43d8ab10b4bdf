"""Faults on the real stack: Postgres restarted under a write load, the Qdrant process killed, Redis stopped, a
worker SIGKILLed mid-batch. Each test asserts that nothing acknowledged is lost or duplicated, that clients only
ever see answers or clear 503s (never a 500), and that the service catches up once the dependency is back.

The module runs on a private stack (tests/fault_helpers.FaultStack: its own Postgres, Redis and Qdrant, elf-api
and elf-worker) so it can kill processes without touching the shared test stack. Its tally (faults injected,
acknowledged writes, writes lost) is printed at the end of the run.
"""

from __future__ import annotations

import os
import signal
import statistics
import time
import uuid

import pytest
import requests
from django.db import OperationalError
from qdrant_client.http.exceptions import ResponseHandlingException

from elf_infra.index.collection import IndexUnavailable
from elf_infra.stack.procs import wait_until
from elf_kernel.errors import exception_handler, json_500
from tests.conftest import EMBED_PATH, RecordedRequest, local_model_embeddings
from tests.fault_helpers import FaultStack, Tally, WriteLoad, is_clear_503, lost_writes
from tests.notes_helpers import headers

LEASE_S = 6.0  # worker.outbox_lease_seconds: longer than one slow embedding call below, short for the test
SLOW_EMBED_S = 1.5
TALLY = Tally()

TOPICS = {
    "ops.backup": "Database backups run nightly at two in the morning.",
    "ops.oncall": "The on-call rotation changes every Monday at noon.",
    "ops.deploy": "Deployments are frozen during the last week of the quarter.",
    "ops.vpn": "The office VPN requires a hardware token for every login.",
    "ops.coffee": "The espresso machine on the third floor is descaled every Friday.",
    "ops.parking": "Visitor parking must be booked one day ahead at the front desk.",
}

DOC_TEXT = "\n".join(
    f"Section {n}. The harbour office opens at nine and closes at five on weekdays. Boats moor at pier {n}, "
    "fuel is sold until four, and the harbour master logs every departure in the ledger by hand. " * 6
    for n in range(1, 7)
)


# --- the mapping, without a stack ---------------------------------------------------------------------------


def test_database_and_index_outages_map_to_clear_503s():
    r = exception_handler(OperationalError("connection to server failed: Connection refused"), {})
    assert (r.status_code, r.data["error_code"], r.data["fields"]) == (503, "DATABASE_UNAVAILABLE", [])
    for exc in (IndexUnavailable("Qdrant collection mem_notes_v2 is unavailable"),
                ResponseHandlingException(ConnectionRefusedError(111, "Connection refused"))):
        r = exception_handler(exc, {})
        assert (r.status_code, r.data["error_code"]) == (503, "INDEX_UNAVAILABLE")
    try:  # outside DRF (a middleware): Django calls handler500 inside its except block
        raise OperationalError("the connection is closed")
    except OperationalError:
        assert json_500(None).status_code == 503
    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        assert json_500(None).status_code == 500


# --- the stack ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stack(tmp_path_factory, request):
    def mutate(data):
        data["worker"]["outbox_lease_seconds"] = LEASE_S

    st = FaultStack(tmp_path_factory.mktemp("faults"), mutate)
    try:
        st.up()
        yield st
    finally:
        st.down()
        with request.config.pluginmanager.get_plugin("capturemanager").global_and_fixture_disabled():
            print(f"\ntests/test_faults.py: {TALLY.line()}")


def tenant() -> str:
    return f"f-{uuid.uuid4().hex[:8]}"


def record(stack: FaultStack, t: str, acked: dict) -> None:
    """Every acknowledged write of tenant ``t`` is in the database exactly once; counted into the tally."""
    lost = lost_writes(stack, t, acked)
    TALLY.acknowledged += len(acked)
    TALLY.lost.extend(lost)
    assert not lost, lost[:10]


def write_keyed(stack: FaultStack, t: str, keys: list[str], *, agent: str = "a1") -> tuple[dict, list[float]]:
    """One request per key (all must be acknowledged ADD); returns {key: (note_id, op, 1)} and the latencies."""
    acked, took = {}, []
    for key in keys:
        started = time.monotonic()
        r = requests.post(stack.services.public + "/v2/notes/ingest", headers=headers(agent, tenant=t), timeout=30,
                          json={"scope": "agent_private", "notes": [{"type": "fact", "key": key, "text": TOPICS[key],
                                                                     "importance": 0.5, "confidence": 0.9}]})
        took.append(time.monotonic() - started)
        assert r.status_code == 200, r.text
        (result,) = r.json()["results"]
        assert result["op"] == "ADD", result
        acked[key] = (result["note_id"], result["op"], 1)
    return acked, took


def search(stack: FaultStack, t: str, query: str, mode: str = "quick_find") -> requests.Response:
    return requests.post(stack.services.public + "/v2/searches", json={"query": query, "mode": mode, "top_k": 20},
                         headers={**headers(tenant=t), "X-ELF-Read-Profile": "private_only"}, timeout=30)


def pending(stack: FaultStack, note_ids: list[str]) -> list[str]:
    return [r[0] for r in stack.rows("SELECT status FROM indexing_outbox WHERE note_id = ANY(%s::uuid[])",
                                     (note_ids,))]


def assert_indexed_once(stack: FaultStack, table: str, owner: str, owner_id: str, collection: str) -> None:
    """The owner's Qdrant points are exactly its chunk rows: none missing, none twice."""
    from qdrant_client import QdrantClient, models

    chunks = sorted(str(r[0]) for r in stack.rows(f"SELECT chunk_id FROM {table} WHERE {owner} = %s", (owner_id,)))
    client = QdrantClient(url=stack.cfg.storage.qdrant.url, timeout=10)
    try:
        flt = models.Filter(must=[models.FieldCondition(key=owner, match=models.MatchValue(value=owner_id))])
        points, _ = client.scroll(collection, scroll_filter=flt, limit=1000)
    finally:
        client.close()
    assert chunks and sorted(str(p.id) for p in points) == chunks, (owner_id, chunks, [p.id for p in points])


# --- 1. Postgres ------------------------------------------------------------------------------------------------


def test_postgres_restarted_under_a_write_load(stack):
    """Postgres stays down a little longer than a request waits for a pooled connection: requests in flight lose
    their session, requests arriving wait for the pool and then answer 503, and the pool and the worker reconnect
    once Postgres is back."""
    from django.conf import settings

    pool_wait_s = settings.DATABASES["default"]["OPTIONS"]["pool"]["timeout"]
    t = tenant()
    load = WriteLoad(stack.services, t, codes={"DATABASE_UNAVAILABLE"}).start()
    assert wait_until(lambda: len(load.acked) >= 12, 30), load.statuses
    before = len(load.acked)
    stack.postgres.down()  # pg_ctl stop -m fast: the sessions of requests in flight are terminated
    TALLY.faults.append("postgres restart")
    time.sleep(pool_wait_s + 1.0)
    stack.postgres.up()
    assert wait_until(lambda: len(load.acked) >= before + 20, 60), f"writes did not resume: {load.statuses}"
    load.stop()

    assert not load.bad, load.bad[:10]  # every answer was a 200 or a clear 503 DATABASE_UNAVAILABLE: never a 500
    assert load.count("write 503") + load.count("search 503") > 0, f"the restart was never seen: {load.statuses}"
    # A retried request replays its keyed notes: those committed before the failure answer NONE, never twice.
    assert all(op == "ADD" for _, op, attempts in load.acked.values() if attempts == 1)
    assert all(op in ("ADD", "NONE") for _, op, _ in load.acked.values())
    assert any(attempts > 1 for _, _, attempts in load.acked.values()), "no write needed a retry"
    record(stack, t, load.acked)
    # The API's pool and the worker recovered their connections: new writes and the indexing go on.
    stack.wait_outboxes_done(60)
    assert search(stack, t, "fault drill ledger entry").status_code == 200


# --- 2. Qdrant ---------------------------------------------------------------------------------------------------


def test_qdrant_killed_writes_succeed_search_is_503_and_indexing_catches_up(stack):
    t = tenant()
    keys = list(TOPICS)
    stack.kill_qdrant()
    TALLY.faults.append("qdrant SIGKILL")
    try:
        acked, _ = write_keyed(stack, t, keys)  # Postgres and the outbox only: no Qdrant in the write path
        note_ids = [v[0] for v in acked.values()]
        for mode in ("quick_find", "planned_search"):
            r = search(stack, t, TOPICS["ops.vpn"], mode)
            assert is_clear_503(r, {"INDEX_UNAVAILABLE"}), (mode, r.status_code, r.text)
        r = requests.post(stack.services.public + "/v2/docs/search/l0", json={"query": "VPN token"},
                          headers=headers(tenant=t), timeout=30)
        assert is_clear_503(r, {"INDEX_UNAVAILABLE"}), (r.status_code, r.text)
        time.sleep(1.5)  # the worker has tried (and failed) the jobs by now
        assert "DONE" not in pending(stack, note_ids), pending(stack, note_ids)
    finally:
        stack.qdrant.up()
    record(stack, t, acked)
    stack.wait_outboxes_done(45)
    for key, (note_id, _, _) in acked.items():
        assert_indexed_once(stack, "memory_note_chunks", "note_id", note_id, stack.cfg.storage.qdrant.collection)
        r = search(stack, t, TOPICS[key])
        assert r.status_code == 200, r.text
        assert note_id in [i["note_id"] for i in r.json()["items"]], (key, r.json()["items"])


# --- 3. Redis ----------------------------------------------------------------------------------------------------


def test_redis_stopped_writes_succeed_and_the_sweep_processes_them_after(stack):
    """Redis goes away while the worker holds a task (a slow doc job, acknowledged late): writes still succeed
    without waiting on the broker, their outbox rows wait, and once Redis is back the worker (restarted in place
    if Celery gave up on the lost connection) and its beat sweep process every row."""
    t = tenant()
    stack.fake.handle(EMBED_PATH, slow_embeddings)
    try:
        first = put_doc(stack, t, "Broker drill one")
        assert wait_until(lambda: leased_docs(stack, [first]), 20), "the worker never took the doc job"
        stack.redis.down()
        TALLY.faults.append("redis stop")
        stack.fake.handle(EMBED_PATH, local_model_embeddings)  # the held job's slow call is already under way
        acked, took = write_keyed(stack, t, list(TOPICS))
        second = put_doc(stack, t, "Broker drill two")
        # The enqueue after commit failed quietly and fast: at most the first send of an API process pays the
        # Redis client's reconnect attempts (about 2 s), and no write waits for the broker beyond that.
        assert max(took) < 5.0 and statistics.median(took) < 1.0, took
        time.sleep(2.5)  # more than a beat interval: nothing reaches the worker
        note_ids = [v[0] for v in acked.values()]
        assert set(pending(stack, note_ids)) == {"PENDING"}
    finally:
        stack.fake.handle(EMBED_PATH, local_model_embeddings)
        stack.redis.up()
    record(stack, t, acked)
    stack.wait_outboxes_done(60)  # the beat sweep picks the rows up once the worker is connected again
    for note_id, _, _ in acked.values():
        assert_indexed_once(stack, "memory_note_chunks", "note_id", note_id, stack.cfg.storage.qdrant.collection)
    for doc_id in (first, second):
        assert_indexed_once(stack, "doc_chunks", "doc_id", doc_id, stack.cfg.storage.qdrant.docs_collection)
    log = stack.services.workers[-1].output()  # if Celery gave up on the connection, elf-worker started again
    assert "Unrecoverable error" not in log or "restarting" in log, log[-3000:]


def put_doc(stack: FaultStack, t: str, title: str) -> str:
    r = requests.post(stack.services.public + "/v2/docs", headers=headers(tenant=t), timeout=30,
                      json={"scope": "agent_private", "title": title, "content": f"{title}.\n" + DOC_TEXT})
    assert r.status_code == 200 and r.json()["chunk_count"] >= 2, r.text
    return r.json()["doc_id"]


def leased_docs(stack: FaultStack, docs: list[str]) -> int:
    """How many of ``docs`` have a claimed, unsettled outbox row (a worker holds the job)."""
    return stack.rows("SELECT count(*) FROM doc_indexing_outbox WHERE status = 'PENDING' AND available_at > now() "
                      "AND doc_id = ANY(%s::uuid[])", (docs,))[0][0]


# --- 4. a worker SIGKILLed mid-batch: docs and graph ----------------------------------------------------------------


def test_worker_killed_mid_batch_loses_no_doc_index_and_no_graph_fact(stack):
    """Docs are indexed through their own outbox (doc_indexing_outbox): a worker SIGKILLed while it embeds a batch
    of documents leaves leased rows that the next worker takes over once the lease runs out; each document ends
    up indexed exactly once. Graph facts are not asynchronous: they are written in the note's own transaction
    (memory.services.add_note -> the graph note hook), so an acknowledged note has its facts before any worker
    runs, and the kill must not cost one of them, nor the note's own indexing."""
    t = tenant()
    notes = {}
    for who, team in (("Alice", "data team"), ("Bruno", "platform team"), ("Chen", "billing team")):
        rel = {"subject": {"canonical": who, "kind": "person"}, "predicate": "works with",
               "object": {"entity": {"canonical": team}, "value": None}}
        r = requests.post(stack.services.public + "/v2/notes/ingest", headers=headers(tenant=t), timeout=30,
                          json={"scope": "agent_private", "notes": [{
                              "type": "fact", "key": f"team.{who}", "text": f"{who} works with the {team}.",
                              "importance": 0.5, "confidence": 0.9, "structured": {"relations": [rel]}}]})
        assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD", r.text
        notes[who] = r.json()["results"][0]["note_id"]
    facts_before = graph_facts(stack, t)
    assert facts_before == {n: 1 for n in notes.values()}, facts_before  # one fact per note, at once

    stack.fake.handle(EMBED_PATH, slow_embeddings)
    try:
        docs = [put_doc(stack, t, f"Handbook {n}") for n in range(4)]
        assert wait_until(lambda: leased_docs(stack, docs), 20), "the worker never took a doc job"
        time.sleep(SLOW_EMBED_S / 2)  # inside the embedding call
        worker = stack.services.workers[-1]
        os.killpg(worker.proc.pid, signal.SIGKILL)  # the worker and its pool children, mid-batch
        worker.proc.wait(10)
        TALLY.faults.append("worker SIGKILL mid-batch")
        done = stack.rows("SELECT count(*) FROM doc_indexing_outbox WHERE status = 'DONE' AND doc_id = ANY(%s::uuid[])",
                          (docs,))[0][0]
        assert done < len(docs) and leased_docs(stack, docs) >= 1, "no doc job was in flight at the kill"
    finally:
        stack.fake.handle(EMBED_PATH, local_model_embeddings)
    stack.services.start_worker()
    stack.wait_outboxes_done(45)
    for doc_id in docs:
        assert_indexed_once(stack, "doc_chunks", "doc_id", doc_id, stack.cfg.storage.qdrant.docs_collection)
    for note_id in notes.values():
        assert_indexed_once(stack, "memory_note_chunks", "note_id", note_id, stack.cfg.storage.qdrant.collection)
    assert graph_facts(stack, t) == facts_before
    record(stack, t, {f"team.{who}": (note_id, "ADD", 1) for who, note_id in notes.items()})
    lost_docs = [d for d in docs if stack.rows("SELECT count(*) FROM doc_documents WHERE doc_id = %s", (d,)) != [(1,)]]
    TALLY.acknowledged += len(docs)
    TALLY.lost.extend(lost_docs)
    assert not lost_docs


def slow_embeddings(request: RecordedRequest):
    time.sleep(SLOW_EMBED_S)
    return local_model_embeddings(request)


def graph_facts(stack: FaultStack, t: str) -> dict[str, int]:
    """Evidence note id -> number of facts it supports, for tenant ``t``."""
    return dict(stack.rows("SELECT e.note_id::text, count(*) FROM graph_fact_evidence e JOIN graph_facts f "
                           "USING (fact_id) WHERE f.tenant_id = %s GROUP BY 1", (t,)))
