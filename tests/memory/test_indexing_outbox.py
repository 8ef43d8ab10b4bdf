"""The indexing outbox on a real worker (isolated services): retries after an outage (spec 19 G), source of
truth vectors (19 E), idempotent re-processing, stale chunk removal, DELETE, non-indexable notes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import EMBED_PATH, FakeResponse, local_model_embeddings
from tests.indexing_helpers import (
    chunk_ids,
    count_points,
    db_now,
    embed_requests,
    enqueue,
    execute,
    insert_note,
    module_services,  # noqa: F401
    note_points,
    outbox,
    parse_vector,
    rows,
    wait_done,
    wait_for,
)

MAX_TOKENS, OVERLAP = 16, 4
LONG_TEXT = (
    "The staging cluster runs in the Frankfurt region. Deploys happen on Tuesdays after the standup. "
    "Rollbacks need approval from the on-call engineer. The database is backed up every night at two. "
    "Secrets rotate every ninety days through the vault. Alerts page the platform team first."
)
SECTION_6_FIELDS = {
    "note_id", "chunk_id", "chunk_index", "start_offset", "end_offset", "tenant_id", "project_id", "agent_id",
    "scope", "type", "key", "status", "updated_at", "expires_at", "importance", "confidence", "embedding_version",
    "lexical_scope",  # BM25's IDF corpus key (issue 36), not in section 6
    "read_key",  # who may find it, one keyword (issue 35), not in section 6
    "read_tag",  # the same with the tenant, as one integer: what searches match (issue 35), not in section 6
}


def small_chunks(data: dict) -> None:
    data["chunking"].update(max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP)


@pytest.fixture(scope="module")
def svc(module_services):
    s = module_services("indexing_outbox", mutate=small_chunks)
    s.start_worker()
    return s


def indexed(svc, text: str, **kw):
    note_id = insert_note(svc, text, **kw)
    (outbox_id,) = [r[0] for r in rows(svc, "SELECT outbox_id FROM indexing_outbox WHERE note_id = %s", (note_id,))]
    wait_done(svc, outbox_id)
    return note_id, outbox_id


def test_outbox_retries_to_done_after_embedding_outage(svc) -> None:
    svc.fake.respond(EMBED_PATH, FakeResponse(status=500, json={"error": "embedding backend unavailable"}))
    try:
        # What an ingest commits (note row + PENDING UPSERT row), then the task it dispatches on commit.
        note_id = insert_note(svc, "The deploy window is Tuesday at noon.")
        (outbox_id,) = [r[0] for r in rows(svc, "SELECT outbox_id FROM indexing_outbox WHERE note_id = %s", (note_id,))]
        failed = wait_for(lambda: (row := outbox(svc, outbox_id))["status"] == "FAILED" and row, 20, "FAILED row")
        assert failed["attempts"] >= 1
        assert "500" in failed["last_error"] and len(failed["last_error"]) <= 1024
        assert "test-key" not in failed["last_error"]
        assert count_points(svc, note_id) == 0
    finally:
        svc.fake.handle(EMBED_PATH, local_model_embeddings)
    done = wait_done(svc, outbox_id, timeout=45)
    assert done["attempts"] >= 1
    chunks = chunk_ids(svc, note_id)
    assert len(chunks) == 1 and count_points(svc, note_id) == 1
    assert {p.id for p in note_points(svc, note_id)} == {str(c) for c in chunks}


def test_every_active_chunk_has_its_vector_and_every_note_its_pooled_mean(svc) -> None:
    long_id, _ = indexed(svc, LONG_TEXT)
    short_id, _ = indexed(svc, "I prefer tea over coffee.")
    # A row written under another embedding version is indexed with the configured one.
    old_version_id = insert_note(svc, "The office closes at six on Fridays.", upsert=False)
    wait_done(svc, enqueue(svc, old_version_id, "UPSERT", embedding_version="other:model:384", dispatch=False))
    assert len(chunk_ids(svc, long_id)) >= 3

    dim, version = svc.cfg.storage.qdrant.vector_dim, svc.cfg.embedding_version
    active = [r[0] for r in rows(svc, "SELECT note_id FROM memory_notes WHERE status = 'active'")]
    assert {long_id, short_id, old_version_id} <= set(active)
    for note_id in active:
        chunks = rows(svc, """
            SELECT c.chunk_id, c.embedding_version, e.embedding_dim, vector_dims(e.vec), e.vec::text
              FROM memory_note_chunks c
              LEFT JOIN note_chunk_embeddings e ON e.chunk_id = c.chunk_id AND e.embedding_version = %s
             WHERE c.note_id = %s ORDER BY c.chunk_index""", (version, note_id))
        assert chunks, f"note {note_id} has no chunks"
        for _, chunk_version, embedding_dim, vec_dims, _ in chunks:
            assert chunk_version == version and embedding_dim == vec_dims == dim
        ((pooled_dim, pooled),) = rows(svc, "SELECT embedding_dim, vec::text FROM note_embeddings "
                                            "WHERE note_id = %s AND embedding_version = %s", (note_id, version))
        mean = np.mean([parse_vector(c[4]) for c in chunks], axis=0)
        assert pooled_dim == dim and np.allclose(parse_vector(pooled), mean, atol=1e-6)

    points = note_points(svc, long_id)
    assert len(points) == len(chunk_ids(svc, long_id))
    for p in points:
        assert set(p.payload) == SECTION_6_FIELDS  # no chunk text in Qdrant
        assert p.payload["embedding_version"] == version and p.payload["note_id"] == str(long_id)


def test_processing_the_same_upsert_twice_changes_nothing(svc) -> None:
    note_id, outbox_id = indexed(svc, LONG_TEXT + " Lunch is served at noon.")
    chunks = chunk_ids(svc, note_id)
    points = sorted(p.id for p in note_points(svc, note_id))
    requests_before = embed_requests(svc)

    reset_at = db_now(svc)
    execute(svc, "UPDATE indexing_outbox SET status = 'PENDING', available_at = now() WHERE outbox_id = %s",
            (outbox_id,))
    wait_done(svc, outbox_id, after=reset_at)

    assert chunk_ids(svc, note_id) == chunks
    assert sorted(p.id for p in note_points(svc, note_id)) == points == sorted(str(c) for c in chunks)
    assert embed_requests(svc) == requests_before  # unchanged chunk text reuses its stored vector


def test_a_note_whose_text_shrinks_loses_its_stale_chunks_and_points(svc) -> None:
    note_id, _ = indexed(svc, LONG_TEXT)
    before = chunk_ids(svc, note_id)
    assert len(before) >= 3 and count_points(svc, note_id) == len(before)

    execute(svc, "UPDATE memory_notes SET text = %s, updated_at = now() WHERE note_id = %s",
            ("The staging cluster moved to Dublin.", note_id))
    wait_done(svc, enqueue(svc, note_id, "UPSERT"))

    after = chunk_ids(svc, note_id)
    assert after == before[:1]  # index 0 keeps its chunk_id, so its point id is stable
    assert [p.id for p in note_points(svc, note_id)] == [str(after[0])]
    assert rows(svc, "SELECT count(*) FROM note_chunk_embeddings WHERE chunk_id = ANY(%s)", (before[1:],)) == [(0,)]
    ((text,),) = rows(svc, "SELECT text FROM memory_note_chunks WHERE chunk_id = %s", (after[0],))
    assert text == "The staging cluster moved to Dublin."


def test_delete_removes_the_note_points(svc) -> None:
    note_id, _ = indexed(svc, "The VPN certificate expires in March.")
    assert count_points(svc, note_id) == 1
    execute(svc, "UPDATE memory_notes SET status = 'deleted', updated_at = now() WHERE note_id = %s", (note_id,))
    wait_done(svc, enqueue(svc, note_id, "DELETE"))
    assert count_points(svc, note_id) == 0
    # Deleting again (nothing left) is still DONE.
    wait_done(svc, enqueue(svc, note_id, "DELETE"))


def test_inactive_and_expired_notes_are_marked_done_without_points(svc) -> None:
    deprecated, _ = indexed(svc, "The old build server is in room four.", status="deprecated")
    deleted, _ = indexed(svc, "The cafeteria closes early on Mondays.", status="deleted")
    expired, _ = indexed(svc, "The sprint demo is this Thursday.", expires_at="now() - interval '1 minute'")
    for note_id in (deprecated, deleted, expired):
        assert count_points(svc, note_id) == 0
        assert chunk_ids(svc, note_id) == []

    # An indexed note that becomes deprecated leaves the index on its next UPSERT.
    note_id, _ = indexed(svc, "Standups start at nine thirty.")
    assert count_points(svc, note_id) == 1
    execute(svc, "UPDATE memory_notes SET status = 'deprecated' WHERE note_id = %s", (note_id,))
    wait_done(svc, enqueue(svc, note_id, "UPSERT"))
    assert count_points(svc, note_id) == 0
