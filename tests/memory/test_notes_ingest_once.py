"""add_note embeds each note once and writes a request in one transaction (issue 18 item 4), over real HTTP on
an isolated stack whose embedding provider is the fake HTTP server (vectors from the local MiniLM), so every
embedding call of the API and of the worker is counted.

With the test config's chunking (256 tokens) every note of at most 240 characters is a single chunk: the API
embeds it (keyed or not) in the request's one provider call and stores the chunk row, chunk vector and pooled
vector with the note; the worker only upserts its point.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from tests.conftest import EMBED_PATH, FakeResponse, local_model_embeddings
from tests.indexing_helpers import execute, note_points, parse_vector, wait_for
from tests.notes_helpers import ingest, note, rows


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("ingest_once")
    s.start_api()
    s.start_worker()
    return s


def embed_inputs(svc) -> list[list[str]]:
    """The inputs of every embedding call made so far (API and worker), in order."""
    return [r.json["input"] for r in svc.fake.requests_to(EMBED_PATH)]


def drained(svc) -> None:
    wait_for(lambda: rows(svc, "SELECT count(*) FROM indexing_outbox WHERE status <> 'DONE'") == [(0,)], 60,
             "an empty indexing queue")


def test_n_single_chunk_notes_are_one_provider_call_and_no_worker_embedding(svc) -> None:
    drained(svc)
    before = len(embed_inputs(svc))
    texts = ["Fact: the nightly backup runs at two in the morning.", "Fact: the team lunch is on Fridays.",
             "Fact: the staging cluster lives in Frankfurt.", "Preference: the user wants short answers.",
             "Plan: move the CI runners to the new rack in May."]
    notes = [note(t) for t in texts[:3]] + [note(texts[3], type="preference", key="answer_length"),
                                            note(texts[4], type="plan", key="ci_runners_move")]
    results = ingest(svc, notes).json()["results"]
    assert [r["op"] for r in results] == ["ADD"] * 5
    ids = [r["note_id"] for r in results]
    wait_for(lambda: all(note_points(svc, i) for i in ids), 60, "a point for every note")
    drained(svc)
    # One call with the five texts (the keyed ones too), and nothing from the worker.
    assert embed_inputs(svc)[before:] == [texts]

    version = svc.cfg.embedding_version
    for note_id, text in zip(ids, texts, strict=False):
        ((chunk_id, index, start, end, chunk_text, chunk_version, vec),) = rows(svc, """
            SELECT c.chunk_id, c.chunk_index, c.start_offset, c.end_offset, c.text, c.embedding_version, e.vec::text
              FROM memory_note_chunks c JOIN note_chunk_embeddings e USING (chunk_id)
             WHERE c.note_id = %s""", (note_id,))
        assert (index, start, end, chunk_text, chunk_version) == (0, 0, len(text.encode()), text, version)
        ((pooled,),) = rows(svc, "SELECT vec::text FROM note_embeddings WHERE note_id = %s AND embedding_version = %s",
                            (note_id, version))
        assert np.allclose(parse_vector(vec), parse_vector(pooled), atol=1e-6)
        (point,) = note_points(svc, note_id)
        assert point.id == str(chunk_id)


def test_a_keyed_update_stores_the_new_vector_without_a_worker_call(svc) -> None:
    first = ingest(svc, [note("Preference: the user likes tabs.", type="preference", key="indent")])
    first = first.json()["results"][0]
    drained(svc)
    before = len(embed_inputs(svc))
    new_text = "Preference: the user likes four spaces for indentation."
    res = ingest(svc, [note(new_text, type="preference", key="indent")]).json()["results"][0]
    assert (res["op"], res["note_id"]) == ("UPDATE", first["note_id"])
    drained(svc)
    assert embed_inputs(svc)[before:] == [[new_text]]
    assert rows(svc, "SELECT chunk_index, text FROM memory_note_chunks WHERE note_id = %s", (res["note_id"],)) == [
        (0, new_text)]
    ((vec,),) = rows(svc, "SELECT e.vec::text FROM note_chunk_embeddings e JOIN memory_note_chunks c USING (chunk_id) "
                          "WHERE c.note_id = %s", (res["note_id"],))
    from elf_infra.providers.local_embedder import LOCAL_EMBEDDING_MODEL, LocalEmbedder

    (expected,) = LocalEmbedder(LOCAL_EMBEDDING_MODEL).embed([new_text])
    assert np.allclose(parse_vector(vec), expected, atol=1e-4)


def test_a_batch_is_one_transaction_with_every_decision_in_order(svc) -> None:
    notes = [note("Fact: the wiki moved to the new server."), note(""), note("Fact: the printer is on floor two.")]
    results = ingest(svc, notes).json()["results"]
    assert [(r["op"], r["reason_code"]) for r in results] == [
        ("ADD", None), ("REJECTED", "REJECT_EMPTY"), ("ADD", None)]
    ids = [results[0]["note_id"], results[2]["note_id"]]
    # Every row the request wrote, the rejected note's decision too, carries one inserting transaction id
    # (outbox rows are updated by the worker since: their created_at, the transaction's start, is shared).
    xids = rows(svc, """
        SELECT xmin::text FROM memory_notes WHERE note_id = ANY(%(ids)s::uuid[])
        UNION SELECT xmin::text FROM memory_note_versions WHERE note_id = ANY(%(ids)s::uuid[])
        UNION SELECT xmin::text FROM memory_note_chunks WHERE note_id = ANY(%(ids)s::uuid[])
        UNION SELECT xmin::text FROM memory_ingest_decisions
               WHERE note_id = ANY(%(ids)s::uuid[]) OR reason_code = 'REJECT_EMPTY'""", {"ids": ids})
    assert len(xids) == 1, xids
    assert rows(svc, "SELECT count(DISTINCT created_at), count(*) FROM indexing_outbox WHERE note_id = ANY(%s::uuid[])",
                (ids,)) == [(1, 2)]


def test_notes_of_one_batch_resolve_against_the_ones_before_them(svc) -> None:
    text = "Fact: the release train leaves every second Tuesday."
    results = ingest(svc, [
        note(text),
        note(text),  # the same text: a duplicate of the first
        note(text.replace(".", "!")),  # near-identical: the first note's pooled vector, stored in this transaction
        note("Preference: the user wants dark mode.", type="preference", key="theme"),
        note("Preference: the user wants light mode.", type="preference", key="theme"),  # same key: an update
    ]).json()["results"]
    assert [r["op"] for r in results] == ["ADD", "NONE", "NONE", "ADD", "UPDATE"]
    assert results[1]["note_id"] == results[2]["note_id"] == results[0]["note_id"]
    assert results[1]["reason_code"] == results[2]["reason_code"] == "IGNORE_DUPLICATE"
    assert results[4]["note_id"] == results[3]["note_id"]
    decisions = rows(svc, "SELECT details FROM memory_ingest_decisions WHERE note_id = %s ORDER BY ts",
                     (results[0]["note_id"],))
    near = decisions[2][0]  # the third note's
    assert near["similarity_best"] >= svc.cfg.memory.dup_sim_threshold and near["matched_dup"] is True
    ops = rows(svc, "SELECT op, ts FROM memory_note_versions WHERE note_id = %s ORDER BY ts", (results[3]["note_id"],))
    assert [op for op, _ in ops] == ["ADD", "UPDATE"] and ops[0][1] < ops[1][1]  # each change at its own time


def test_concurrent_batches_over_the_same_groups_serialise_without_deadlock(svc) -> None:
    """Batches naming the same keyed groups in opposite orders: every request succeeds and each key ends as
    one note, added once."""
    kinds = [("fact", "office"), ("plan", "launch"), ("preference", "editor"), ("decision", "database")]
    barrier = threading.Barrier(6)

    def batch(n: int):
        order = kinds if n % 2 else kinds[::-1]
        body = [note(f"{t.capitalize()}: value {n} for {k}.", type=t, key=f"conc_{k}") for t, k in order]
        barrier.wait()
        r = ingest(svc, body, agent="concurrent")
        assert r.status_code == 200, r.text
        return {res["note_id"]: res["op"] for res in r.json()["results"]}

    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(batch, range(6)))
    notes = rows(svc, "SELECT key, note_id::text FROM memory_notes WHERE agent_id = 'concurrent'")
    assert sorted(k for k, _ in notes) == sorted(f"conc_{k}" for _, k in kinds)
    for _, note_id in notes:
        ops = [o[note_id] for o in outcomes]
        assert ops.count("ADD") == 1 and ops.count("UPDATE") == 5, ops


def test_keyed_notes_are_written_during_an_embedding_outage_and_indexed_after_it(svc) -> None:
    drained(svc)
    svc.fake.respond(EMBED_PATH, FakeResponse(status=503, json={"error": "embedding backend unavailable"}))
    try:
        keyed = ingest(svc, [note("Plan: rotate the on-call rota every Monday.", type="plan", key="oncall_rota")])
        assert keyed.status_code == 200 and keyed.json()["results"][0]["op"] == "ADD", keyed.text
        before = rows(svc, "SELECT count(*) FROM memory_notes")
        keyless = ingest(svc, [note("Fact: the status page is hosted outside our cloud.")])
        assert keyless.status_code >= 500, keyless.text  # its resolution needs the vector: nothing is written
        assert rows(svc, "SELECT count(*) FROM memory_notes") == before
    finally:
        svc.fake.handle(EMBED_PATH, local_model_embeddings)
    note_id = keyed.json()["results"][0]["note_id"]
    wait_for(lambda: note_points(svc, note_id), 60, "the keyed note indexed by the worker once the provider is back")


def test_a_request_that_deadlocks_runs_again_and_writes_once(svc) -> None:
    """A deadlock (here injected once by a trigger, as Postgres reports one) rolls the request back and it
    runs again: the results are those of one run, every row written once."""
    execute(svc, """
        CREATE SEQUENCE deadlock_once;
        CREATE FUNCTION deadlock_once() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.note_key = 'deadlock_once' THEN
                IF nextval('deadlock_once') = 1 THEN
                    RAISE EXCEPTION 'deadlock detected (simulated)' USING ERRCODE = 'deadlock_detected';
                END IF;
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER deadlock_once BEFORE INSERT ON memory_ingest_decisions
            FOR EACH ROW EXECUTE FUNCTION deadlock_once();""")
    try:
        r = ingest(svc, [note("Fact: the coffee machine is descaled on Sundays."),
                         note("Plan: replace the coffee machine in spring.", type="plan", key="deadlock_once")])
        assert r.status_code == 200, r.text
        results = r.json()["results"]
    finally:
        execute(svc, "DROP TRIGGER deadlock_once ON memory_ingest_decisions; DROP FUNCTION deadlock_once(); ")
    assert [res["op"] for res in results] == ["ADD", "ADD"]
    assert rows(svc, "SELECT last_value FROM deadlock_once") == [(2,)]  # the second run passed the trigger
    ids = [res["note_id"] for res in results]
    assert rows(svc, "SELECT count(*) FROM memory_notes WHERE note_id = ANY(%s::uuid[])", (ids,)) == [(2,)]
    assert rows(svc, "SELECT count(*) FROM memory_ingest_decisions WHERE note_id = ANY(%s::uuid[])", (ids,)) == [(2,)]
    assert rows(svc, "SELECT count(*) FROM memory_notes WHERE text = 'Fact: the coffee machine is descaled on Sundays.'"
                ) == [(1,)]
    execute(svc, "DROP SEQUENCE deadlock_once")
