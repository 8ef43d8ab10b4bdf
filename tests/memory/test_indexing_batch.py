"""Multi-chunk notes and the worker's batched embedding (issue 18 item 4), on an isolated stack with small chunks
(16 tokens) so a note of a few sentences is several chunks. Every embedding call (API and worker) goes to the
fake HTTP provider and is counted.

A multi-chunk note is embedded once per chunk, by the worker; the API embeds its whole text only when the
resolver needs it (a key-less note), never the worker. Rows claimed together are embedded together: one
provider call for the chunks of several notes.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tests.conftest import EMBED_PATH
from tests.indexing_helpers import (  # noqa: F401
    count_points,
    execute,
    insert_note,
    module_services,
    parse_vector,
    rows,
    wait_for,
)
from tests.notes_helpers import ingest, note

MAX_TOKENS, OVERLAP = 16, 4
TEXTS = [
    "Backups run nightly at two. Restores are tested monthly. The runbook lives in the wiki.",
    "The staging cluster runs in Frankfurt. Deploys happen on Tuesdays. Rollbacks need approval.",
    "Alerts page the platform team first. Secrets rotate every ninety days. The VPN needs a token.",
    "Lunch is served at noon. The office closes at six on Fridays. Parking is behind the building.",
]


@pytest.fixture(scope="module")
def svc(module_services):
    s = module_services("indexing_batch",
                        mutate=lambda data: data["chunking"].update(max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP))
    s.start_api()
    s.start_worker()
    return s


def embed_inputs(svc) -> list[list[str]]:
    return [r.json["input"] for r in svc.fake.requests_to(EMBED_PATH)]


def drained(svc) -> None:
    wait_for(lambda: rows(svc, "SELECT count(*) FROM indexing_outbox WHERE status <> 'DONE'") == [(0,)], 60,
             "an empty indexing queue")


def chunk_texts(svc, note_id) -> list[str]:
    return [r[0] for r in rows(svc, "SELECT text FROM memory_note_chunks WHERE note_id = %s ORDER BY chunk_index",
                               (note_id,))]


def test_a_multi_chunk_note_is_embedded_once_per_chunk_and_its_text_never_twice(svc) -> None:
    drained(svc)
    before = len(embed_inputs(svc))
    keyless, keyed = TEXTS[0], TEXTS[1]
    results = ingest(svc, [note(keyless), note(keyed, key="staging")]).json()["results"]
    assert [r["op"] for r in results] == ["ADD", "ADD"]
    drained(svc)
    calls = embed_inputs(svc)[before:]
    # The API: the key-less note's whole text, for the resolver (nothing for the keyed one); the worker: chunks.
    assert calls[0] == [keyless]
    chunks = {r["note_id"]: chunk_texts(svc, r["note_id"]) for r in results}
    assert all(len(c) >= 2 for c in chunks.values())
    embedded = Counter(text for call in calls[1:] for text in call)
    assert embedded == Counter(text for c in chunks.values() for text in c)  # each chunk once, no whole text
    for r in results:
        vectors = rows(
            svc,
            "SELECT e.vec::text FROM note_chunk_embeddings e JOIN memory_note_chunks c USING (chunk_id) "
            "WHERE c.note_id = %s",
            (r["note_id"],),
        )
        ((pooled,),) = rows(svc, "SELECT vec::text FROM note_embeddings WHERE note_id = %s", (r["note_id"],))
        mean = np.mean([parse_vector(v) for (v,) in vectors], axis=0)  # pooled from the chunk vectors
        assert len(vectors) == len(chunks[r["note_id"]]) and np.allclose(parse_vector(pooled), mean, atol=1e-6)
        assert count_points(svc, r["note_id"]) == len(chunks[r["note_id"]])


def test_rows_claimed_together_share_one_embedding_call(svc) -> None:
    drained(svc)
    before = len(embed_inputs(svc))
    # Keyed, so the API embeds nothing: every call is the worker's.
    results = ingest(svc, [note(t, key=f"batch_{i}") for i, t in enumerate(TEXTS[1:])]).json()["results"]
    assert [r["op"] for r in results] == ["ADD"] * 3
    drained(svc)
    calls = embed_inputs(svc)[before:]
    chunks = {r["note_id"]: chunk_texts(svc, r["note_id"]) for r in results}
    assert Counter(t for call in calls for t in call) == Counter(t for c in chunks.values() for t in c)
    # One claim normally takes all three rows; a sweep racing the task may split them in two, never three.
    assert 1 <= len(calls) <= 2, [len(c) for c in calls]
    assert any(sum(any(t in call for t in c) for c in chunks.values()) >= 2 for call in calls)


def test_a_batch_failing_as_a_whole_goes_again_row_by_row(svc) -> None:
    """One note whose chunk write fails (a trigger injects the fault) must not hold back the notes claimed
    with it: the batch is processed again one row at a time, and only that row fails (and recovers)."""
    drained(svc)
    execute(
        svc,
        """
        CREATE FUNCTION poison_chunk() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF starts_with(NEW.text, 'Poison') THEN RAISE EXCEPTION 'poisoned chunk'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER poison_chunk BEFORE INSERT OR UPDATE ON memory_note_chunks
            FOR EACH ROW EXECUTE FUNCTION poison_chunk();""",
    )
    try:
        # Written by SQL (no stored vectors: the worker embeds them), the three rows in one transaction so
        # that one claim takes them together.
        notes = [
            insert_note(svc, t, upsert=False)
            for t in (
                "The canteen serves soup on Mondays.",
                "Poison note for the test.",
                "The lab door code changes weekly.",
            )
        ]
        outbox = rows(
            svc,
            "INSERT INTO indexing_outbox (outbox_id, note_id, op, embedding_version, status) "
            "SELECT gen_random_uuid(), n, 'UPSERT', %s, 'PENDING' FROM unnest(%s::uuid[]) AS n "
            "RETURNING note_id, outbox_id",
            (svc.cfg.embedding_version, notes),
        )
        ids = dict(outbox)

        def status(n):
            return rows(svc, "SELECT status, last_error FROM indexing_outbox WHERE outbox_id = %s", (ids[n],))[0]

        wait_for(
            lambda: status(notes[1])[0] == "FAILED" and status(notes[0])[0] == status(notes[2])[0] == "DONE",
            60,
            "the good rows DONE and the poisoned one FAILED",
        )
        assert "poisoned chunk" in status(notes[1])[1]
        assert count_points(svc, notes[0]) == count_points(svc, notes[2]) == 1
        assert "processing them one at a time" in svc.workers[0].output()
    finally:
        execute(svc, "DROP TRIGGER poison_chunk ON memory_note_chunks; DROP FUNCTION poison_chunk();")
    wait_for(lambda: status(notes[1])[0] == "DONE", 60, "the poisoned row DONE once the fault is gone")
    assert count_points(svc, notes[1]) == 1
