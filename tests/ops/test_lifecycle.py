"""Lifecycle GC (spec 11) run by the worker: expired notes become deleted and leave the index; old deleted
and deprecated notes are purged."""

from __future__ import annotations

import time

import pytest

from tests.indexing_helpers import (
    chunk_ids,
    count_points,
    db_now,
    enqueue,
    execute,
    insert_note,
    module_services,  # noqa: F401
    rows,
    send_task,
    wait_done,
    wait_for,
)

GC_TASK = "memory.lifecycle_gc"


@pytest.fixture(scope="module")
def svc(module_services):
    s = module_services("lifecycle_gc")
    s.start_worker()
    return s


def _outbox_ids(svc, note_id, op: str) -> list:
    return [r[0] for r in rows(svc, "SELECT outbox_id FROM indexing_outbox WHERE note_id = %s AND op = %s "
                                    "ORDER BY created_at", (note_id, op))]


def test_an_expired_note_becomes_deleted_with_a_version_row_and_leaves_the_index(svc) -> None:
    expiring = insert_note(svc, "The sprint demo is this Thursday.", expires_at="now() + interval '3 seconds'")
    lasting = insert_note(svc, "The team prefers Postgres for new services.")
    for note_id in (expiring, lasting):
        wait_done(svc, _outbox_ids(svc, note_id, "UPSERT")[0])
        assert count_points(svc, note_id) == 1
    ((expires_at,),) = rows(svc, "SELECT expires_at FROM memory_notes WHERE note_id = %s", (expiring,))
    time.sleep(max(0.0, (expires_at - db_now(svc)).total_seconds()) + 0.2)

    send_task(svc, GC_TASK)
    wait_for(lambda: rows(svc, "SELECT status FROM memory_notes WHERE note_id = %s", (expiring,)) == [("deleted",)],
             20, "the expired note to be deleted")
    ((op, reason, actor, prev, new),) = rows(
        svc, "SELECT op, reason, actor, prev_snapshot, new_snapshot FROM memory_note_versions WHERE note_id = %s",
        (expiring,))
    assert (op, reason, actor) == ("DELETE", "expired", "system:lifecycle")
    assert (prev["status"], new["status"]) == ("active", "deleted")
    (delete_job,) = _outbox_ids(svc, expiring, "DELETE")
    wait_done(svc, delete_job)
    assert count_points(svc, expiring) == 0
    assert chunk_ids(svc, expiring), "expiry is a soft delete: rows stay until the purge"

    assert rows(svc, "SELECT status FROM memory_notes WHERE note_id = %s", (lasting,)) == [("active",)]
    assert count_points(svc, lasting) == 1


def test_purge_removes_old_deleted_and_deprecated_notes(svc) -> None:
    # The test config purges deleted notes after 30 days and deprecated ones after 180 days without a hit.
    old_deleted = insert_note(svc, "The old VPN host was retired.", status="deleted",
                              updated_at="now() - interval '31 days'", upsert=False)
    wait_done(svc, enqueue(svc, old_deleted, "DELETE"))  # its points are already gone
    stale_deprecated = insert_note(svc, "Builds used to run on Jenkins.", status="deprecated",
                                   updated_at="now() - interval '400 days'",
                                   last_hit_at="now() - interval '200 days'", upsert=False)
    # Indexed while active, deprecated since (with no outbox job): its chunks, vectors and points remain.
    never_hit = insert_note(svc, "The wiki moved to Confluence.", updated_at="now() - interval '181 days'")
    wait_done(svc, _outbox_ids(svc, never_hit, "UPSERT")[0])
    execute(svc, "UPDATE memory_notes SET status = 'deprecated' WHERE note_id = %s", (never_hit,))
    assert chunk_ids(svc, never_hit) and count_points(svc, never_hit) == 1
    recent_deleted = insert_note(svc, "The cafeteria closes early.", status="deleted",
                                 updated_at="now() - interval '5 days'", upsert=False)
    recently_hit = insert_note(svc, "Builds ran on Travis for a while.", status="deprecated",
                               updated_at="now() - interval '400 days'", last_hit_at="now() - interval '10 days'",
                               upsert=False)
    purged = (old_deleted, stale_deprecated, never_hit)

    send_task(svc, GC_TASK)
    wait_for(lambda: rows(svc, "SELECT count(*) FROM memory_notes WHERE note_id = ANY(%s)", (list(purged),)) == [(0,)],
             20, "the purge")
    kept = rows(svc, "SELECT note_id FROM memory_notes WHERE note_id = ANY(%s)", ([recent_deleted, recently_hit],))
    assert {r[0] for r in kept} == {recent_deleted, recently_hit}
    # Chunks and vectors cascade with the note.
    assert rows(svc, "SELECT count(*) FROM memory_note_chunks WHERE note_id = ANY(%s)", (list(purged),)) == [(0,)]
    assert rows(svc, "SELECT count(*) FROM note_embeddings WHERE note_id = ANY(%s)", (list(purged),)) == [(0,)]

    # A DELETE job for the points of purged notes that had none after their last UPSERT; not a second one.
    assert len(_outbox_ids(svc, old_deleted, "DELETE")) == 1
    for note_id in (stale_deprecated, never_hit):
        (job,) = _outbox_ids(svc, note_id, "DELETE")
        wait_done(svc, job)
        assert count_points(svc, note_id) == 0
