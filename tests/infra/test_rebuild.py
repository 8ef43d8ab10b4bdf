"""Rebuilding Qdrant from Postgres vectors (spec 19 D): POST /v2/admin/qdrant/rebuild and manage.py
rebuild_qdrant restore the points of active notes and never call the embedding provider."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import requests
from qdrant_client import models

from elf_infra.index import bm25
from elf_infra.index.hybrid import hybrid_query
from tests.conftest import REPO
from tests.indexing_helpers import (
    chunk_ids,
    count_points,
    embed_requests,
    execute,
    insert_note,
    module_services,  # noqa: F401
    parse_vector,
    qdrant,
    rows,
    wait_done,
)

TEXTS = {
    "t1": ["The staging cluster runs in the Frankfurt region.", "Deploys happen on Tuesdays after the standup.",
           "The team prefers Postgres over MySQL for new services."],
    "t2": ["Invoices are sent on the first business day of the month.",
           "Gina: I painted my kitchen wall yellow last spring."],  # a turn: its points carry speaker "Gina"
}
# The doc collection's counts (tests/docs_ext/test_docs_indexing.py rebuilds documents); this module writes none.
NO_DOCS = {"rebuilt_count": 0, "missing_vector_count": 0, "error_count": 0}


@pytest.fixture(scope="module")
def svc(module_services):
    s = module_services("qdrant_rebuild", mutate=lambda data: data["chunking"].update(max_tokens=8, overlap_tokens=2))
    s.start_api()
    s.start_worker()
    return s


def _tenant_filter(tenant: str) -> models.Filter:
    return models.Filter(must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant)),
                               models.FieldCondition(key="project_id", match=models.MatchValue(value="p1"))])


def _index_all(svc) -> dict:
    notes = {}
    for tenant, texts in TEXTS.items():
        for text in texts:
            notes[insert_note(svc, text, tenant=tenant)] = (tenant, text)
    for (outbox_id,) in rows(svc, "SELECT outbox_id FROM indexing_outbox"):
        wait_done(svc, outbox_id)
    return notes


def _drop_collection(svc) -> None:
    client = qdrant(svc)
    client.delete_collection(svc.cfg.storage.qdrant.collection)
    assert not client.collection_exists(svc.cfg.storage.qdrant.collection)
    client.close()


def test_rebuild_uses_postgres_vectors_only(svc) -> None:
    notes = _index_all(svc)
    chunks = {note_id: chunk_ids(svc, note_id) for note_id in notes}
    assert all(chunks.values()) and max(len(c) for c in chunks.values()) >= 2
    # Not rebuilt: a deleted note and an active note that has expired since it was indexed.
    deleted = insert_note(svc, "The old wiki is read only.", status="deleted", upsert=False)
    expired = insert_note(svc, "The sprint demo is on Thursday afternoon.")
    wait_done(svc, rows(svc, "SELECT outbox_id FROM indexing_outbox WHERE note_id = %s", (expired,))[0][0])
    execute(svc, "UPDATE memory_notes SET expires_at = now() - interval '1 minute' WHERE note_id = %s", (expired,))
    total = sum(len(c) for c in chunks.values())
    embeds_before = embed_requests(svc)

    _drop_collection(svc)
    r = requests.post(svc.admin + "/v2/admin/qdrant/rebuild", timeout=120)
    assert r.status_code == 200, r.text
    assert r.json() == {"rebuilt_count": total, "missing_vector_count": 0, "error_count": 0, "docs": NO_DOCS}

    for note_id, ids in chunks.items():
        assert count_points(svc, note_id) == len(ids)
    assert count_points(svc, deleted) == 0 and count_points(svc, expired) == 0
    client = qdrant(svc)
    try:
        for note_id, (tenant, text) in notes.items():
            ((pooled,),) = rows(svc, "SELECT vec::text FROM note_embeddings WHERE note_id = %s", (note_id,))
            hits = hybrid_query(client, svc.cfg.storage.qdrant.collection, parse_vector(pooled).tolist(),
                                bm25.embed_query(text), _tenant_filter(tenant), 5)
            assert hits and hits[0].payload["note_id"] == str(note_id)
            assert {h.payload["tenant_id"] for h in hits} == {tenant}
            # the speaker label comes from the note's text, on every chunk's point (elf_domain.speakers)
            own = [h for h in hits if h.payload["note_id"] == str(note_id)]
            assert {h.payload.get("speaker") for h in own} == {"Gina" if text.startswith("Gina:") else None}
    finally:
        client.close()
    assert embed_requests(svc) == embeds_before


def test_manage_py_rebuild_reports_missing_vectors_and_never_embeds(svc) -> None:
    chunks = [r[0] for r in rows(svc, """
        SELECT c.chunk_id FROM memory_note_chunks c JOIN memory_notes n USING (note_id)
         WHERE n.status = 'active' AND (n.expires_at IS NULL OR n.expires_at > now()) ORDER BY c.chunk_id""")]
    assert len(chunks) >= 5
    embeds_before = embed_requests(svc)
    _drop_collection(svc)
    execute(svc, "DELETE FROM note_chunk_embeddings WHERE chunk_id = %s", (chunks[0],))

    proc = subprocess.run([sys.executable, "manage.py", "rebuild_qdrant", "-c", str(svc.config_path)], cwd=REPO,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"rebuilt_count": len(chunks) - 1, "missing_vector_count": 1, "error_count": 0, "docs": NO_DOCS}
    assert "rebuild [" in proc.stderr and f"{len(chunks)}/{len(chunks)} chunks" in proc.stderr

    client = qdrant(svc)
    try:
        restored = client.retrieve(svc.cfg.storage.qdrant.collection, [str(c) for c in chunks])
    finally:
        client.close()
    assert {p.id for p in restored} == {str(c) for c in chunks[1:]}
    assert embed_requests(svc) == embeds_before


def test_rebuild_qdrant_read_keys_tags_an_earlier_versions_points_without_reading_postgres(svc) -> None:
    """Points written before ``read_tag`` and ``read_key`` (both stripped here, and the tag's index dropped):
    ``rebuild_qdrant --read-keys`` gives each its tag and key from its own payload, indexes the tag, and the notes
    are still found; a full rebuild leaves the collection tagged too."""
    name = svc.cfg.storage.qdrant.collection
    client = qdrant(svc)
    try:
        points, _ = client.scroll(name, limit=1000, with_payload=True, with_vectors=True)
        assert len(points) >= 5 and all(p.payload.get("read_key") and p.payload.get("read_tag") for p in points)
        owners = {p.id: (p.payload["read_key"], p.payload["read_tag"]) for p in points}
        client.delete_payload_index(name, "read_tag", wait=True)
        client.upsert(name, points=[models.PointStruct(id=p.id, vector=p.vector, payload={
            k: v for k, v in p.payload.items() if k not in ("read_key", "read_tag")}) for p in points], wait=True)
        embeds_before = embed_requests(svc)
        proc = subprocess.run([sys.executable, "manage.py", "rebuild_qdrant", "-c", str(svc.config_path),
                               "--read-keys"], cwd=REPO, capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"read_keys_added": len(points)}
        assert "rebuild_qdrant --read-keys" in proc.stderr  # the start-up's warning named it
        after, _ = client.scroll(name, limit=1000, with_payload=True)
        assert {p.id: (p.payload.get("read_key"), p.payload.get("read_tag")) for p in after} == owners
        assert "read_tag" in client.get_collection(name).payload_schema
        assert embed_requests(svc) == embeds_before

        r = requests.post(svc.admin + "/v2/admin/qdrant/rebuild", timeout=120)
        assert r.status_code == 200, r.text
        assert "read_tag" in client.get_collection(name).payload_schema
    finally:
        client.close()
