"""A worker killed in the middle of an indexing job: the lease runs out, another worker takes the row, and
the note ends up indexed exactly once."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

from tests.conftest import EMBED_PATH, RecordedRequest, local_model_embeddings
from tests.indexing_helpers import (
    chunk_ids,
    count_points,
    embed_requests,
    insert_note,
    module_services,  # noqa: F401
    note_points,
    outbox,
    rows,
    wait_done,
    wait_for,
)

SLOW_S = 4.0
# The lease comes from config (worker.outbox_lease_seconds, 30 s by default): a short one keeps this test's
# wait short, and it is still longer than the job, so a live worker never loses its row.
LEASE_S = 8.0


def slow_embeddings(request: RecordedRequest):
    time.sleep(SLOW_S)
    return local_model_embeddings(request)


def test_a_job_killed_mid_way_is_taken_again_after_its_lease_and_indexed_once(module_services) -> None:
    def mutate(data):
        data["chunking"].update(max_tokens=12, overlap_tokens=3)
        data["worker"]["outbox_lease_seconds"] = LEASE_S

    s = module_services("indexing_crash", mutate=mutate)
    worker = s.start_worker()
    s.fake.handle(EMBED_PATH, slow_embeddings)
    note_id = insert_note(
        s, "Backups run nightly at two. Restores are tested monthly. The runbook lives in the wiki. "
           "Escalate to the storage team after an hour.")
    (outbox_id,) = [r[0] for r in rows(s, "SELECT outbox_id FROM indexing_outbox WHERE note_id = %s", (note_id,))]

    wait_for(lambda: embed_requests(s) >= 1, 20, "the embedding request of the job")
    os.killpg(worker.proc.pid, signal.SIGKILL)
    worker.proc.wait(10)
    s.fake.handle(EMBED_PATH, local_model_embeddings)

    row = outbox(s, outbox_id)
    assert row["status"] == "PENDING" and row["attempts"] == 0  # leased, not failed: a crash is no attempt
    first_lease_ends = row["available_at"]  # the killed worker's lease token: claim time + LEASE_S
    assert chunk_ids(s, note_id) == [] and count_points(s, note_id) == 0

    s.start_worker()
    done = wait_done(s, outbox_id, timeout=60)
    # The second claim's token is its claim time + LEASE_S (settling DONE keeps available_at): the row was
    # claimed again only once the first lease had run out, measured on the database's clock.
    second_claim_at = done["available_at"] - timedelta(seconds=LEASE_S)
    assert second_claim_at >= first_lease_ends, f"taken again before the {LEASE_S:g} s lease ran out"
    assert done["attempts"] == 0
    chunks = chunk_ids(s, note_id)
    assert len(chunks) >= 2
    assert count_points(s, note_id) == len(chunks)
    assert sorted(p.id for p in note_points(s, note_id)) == sorted(str(c) for c in chunks)
    assert embed_requests(s) == 2  # the killed call and the one that completed
