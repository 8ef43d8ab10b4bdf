"""The doc indexing outbox on a real worker (isolated services): chunks of an active document become points
of the doc collection with the design's payload and vectors stored in Postgres; re-processing embeds
nothing; stale chunks, inactive or missing documents and DELETE jobs remove points; a failing embedder is
retried with backoff to DONE; the rebuild restores the doc collection without embedding calls."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta

import pytest
import requests
from qdrant_client import models

from elf_infra.index import bm25
from elf_infra.index.hybrid import SPARSE_VECTOR
from elf_kernel.outbox_lease import backoff_seconds
from tests.conftest import EMBED_PATH, REPO, FakeResponse, local_model_embeddings
from tests.indexing_helpers import (
    DOC_OUTBOX,
    doc_points,
    embed_requests,
    enqueue_doc,
    execute,
    insert_chunk,
    insert_doc,
    module_services,  # noqa: F401
    outbox,
    parse_vector,
    qdrant,
    rows,
    run_django,
    wait_done,
    wait_for,
)

PARTS = [
    "The staging cluster runs in the Frankfurt region. ",
    "Deploys happen on Tuesdays after the standup. ",
    "Rollbacks need approval from the on-call engineer — always.",
]
PAYLOAD_FIELDS = {
    "doc_id", "chunk_id", "chunk_index", "start_offset", "end_offset", "tenant_id", "project_id", "agent_id",
    "scope", "status", "updated_at", "embedding_version", "content_hash", "chunk_hash", "lexical_scope",
}


@pytest.fixture(scope="module")
def svc(module_services):
    s = module_services("docs_indexing")
    s.start_api()
    s.start_worker()
    return s


def indexed(svc, parts=PARTS, **kw):
    doc_id, chunks = insert_doc(svc, parts, **kw)
    wait_done(svc, enqueue_doc(svc, doc_id, "UPSERT"), table=DOC_OUTBOX)
    return doc_id, chunks


def stored_vectors(svc, chunk_ids) -> dict:
    found = rows(svc, "SELECT chunk_id, embedding_version, vec::text FROM doc_chunk_embeddings "
                      "WHERE chunk_id = ANY(%s)", ([str(c) for c in chunk_ids],))
    assert {r[1] for r in found} <= {svc.cfg.embedding_version}
    return {r[0]: parse_vector(r[2]) for r in found}


def test_upsert_indexes_every_chunk_with_the_design_payload(svc) -> None:
    embeds_before = embed_requests(svc)
    doc_id, chunks = indexed(svc, tenant="t-docs")
    assert embed_requests(svc) > embeds_before

    points = doc_points(svc, doc_id, with_vectors=True)
    assert [p.id for p in points] == [str(c) for c in chunks]
    (content_hash,) = rows(svc, "SELECT content_hash FROM doc_documents WHERE doc_id = %s", (doc_id,))[0]
    vectors = stored_vectors(svc, chunks)
    assert set(vectors) == set(chunks)
    start = 0
    for index, (point, part) in enumerate(zip(points, PARTS, strict=False)):
        p = point.payload
        assert set(p) == PAYLOAD_FIELDS  # no text in Qdrant
        end = start + len(part.encode())
        assert (p["doc_id"], p["chunk_index"], p["start_offset"], p["end_offset"]) == (str(doc_id), index, start, end)
        assert (p["tenant_id"], p["project_id"], p["agent_id"], p["scope"], p["status"]) == (
            "t-docs", "p1", "a1", "agent_private", "active")
        assert p["embedding_version"] == svc.cfg.embedding_version and p["content_hash"] == content_hash
        assert p["chunk_hash"] == rows(svc, "SELECT chunk_hash FROM doc_chunks WHERE chunk_id = %s", (point.id,))[0][0]
        assert p["updated_at"]
        assert point.vector["dense"] == pytest.approx(list(vectors[chunks[index]]), abs=1e-5)
        start = end
    # BM25 comes from chunk_text: a lexical query finds its chunk first.
    client = qdrant(svc)
    try:
        hits = client.query_points(
            svc.cfg.storage.qdrant.docs_collection, query=bm25.embed_query("rollbacks approval on-call"),
            using=SPARSE_VECTOR, limit=3,
            query_filter=models.Filter(must=[models.FieldCondition(key="doc_id",
                                                                   match=models.MatchValue(value=str(doc_id)))]),
        ).points
    finally:
        client.close()
    assert hits and hits[0].id == str(chunks[2])


def test_reprocessing_embeds_nothing_and_a_changed_chunk_is_embedded_alone(svc) -> None:
    doc_id, chunks = indexed(svc)
    before = embed_requests(svc)
    wait_done(svc, enqueue_doc(svc, doc_id, "UPSERT"), table=DOC_OUTBOX)
    wait_done(svc, enqueue_doc(svc, doc_id, "UPSERT", dispatch=False), table=DOC_OUTBOX)  # the sweep's way
    assert embed_requests(svc) == before
    assert [p.id for p in doc_points(svc, doc_id)] == [str(c) for c in chunks]

    # The API re-chunks: chunk 2 is replaced by a new one (its vector goes with it), chunk 1 disappears.
    execute(svc, "DELETE FROM doc_chunks WHERE chunk_id = ANY(%s)", ([str(chunks[1]), str(chunks[2])],))
    new = insert_chunk(svc, doc_id, 1, len(PARTS[0].encode()), "Invoices go out on the first business day.")
    wait_done(svc, enqueue_doc(svc, doc_id, "UPSERT"), table=DOC_OUTBOX)
    assert embed_requests(svc) == before + 1
    assert [r.json["input"] for r in svc.fake.requests_to(EMBED_PATH)[-1:]] == [
        ["Invoices go out on the first business day."]]
    assert [p.id for p in doc_points(svc, doc_id)] == [str(chunks[0]), str(new)]
    assert set(stored_vectors(svc, [chunks[0], new])) == {chunks[0], new}


def test_inactive_missing_and_deleted_docs_lose_their_points(svc) -> None:
    deleted, _ = indexed(svc)
    gone, _ = indexed(svc)
    dropped, _ = indexed(svc)
    kept, kept_chunks = indexed(svc)
    assert all(len(doc_points(svc, d)) == len(PARTS) for d in (deleted, gone, dropped, kept))
    before = embed_requests(svc)

    execute(svc, "UPDATE doc_documents SET status = 'deleted' WHERE doc_id = %s", (deleted,))
    execute(svc, "DELETE FROM doc_documents WHERE doc_id = %s", (gone,))
    rows_done = [enqueue_doc(svc, deleted, "UPSERT"), enqueue_doc(svc, gone, "UPSERT"),
                 enqueue_doc(svc, dropped, "DELETE")]  # DELETE removes the points of a still-active doc too
    for outbox_id in rows_done:
        wait_done(svc, outbox_id, table=DOC_OUTBOX)
    assert [len(doc_points(svc, d)) for d in (deleted, gone, dropped)] == [0, 0, 0]
    assert [p.id for p in doc_points(svc, kept)] == [str(c) for c in kept_chunks]
    # Safe twice: a second DELETE of the same document (no points left) is DONE as well.
    wait_done(svc, enqueue_doc(svc, dropped, "DELETE"), table=DOC_OUTBOX)
    assert embed_requests(svc) == before


def test_failing_embedder_is_retried_with_backoff_to_done(svc) -> None:
    svc.fake.respond(EMBED_PATH, FakeResponse(status=500, json={"error": "embedding backend unavailable"}))
    try:
        doc_id, chunks = insert_doc(svc, PARTS)
        outbox_id = enqueue_doc(svc, doc_id, "UPSERT")

        def failed_settled():
            row = outbox(svc, outbox_id, DOC_OUTBOX)
            # Settled as failed (not in the middle of a 30 s lease): available_at = updated_at + backoff.
            ok = row["status"] == "FAILED" and row["available_at"] - row["updated_at"] < timedelta(seconds=20)
            return row if ok else None

        failed = wait_for(failed_settled, 20, "FAILED row")
        assert failed["attempts"] >= 1
        assert failed["available_at"] - failed["updated_at"] == timedelta(seconds=backoff_seconds(failed["attempts"]))
        assert "500" in failed["last_error"] and "test-key" not in failed["last_error"]
        assert doc_points(svc, doc_id) == []
    finally:
        svc.fake.handle(EMBED_PATH, local_model_embeddings)
    done = wait_done(svc, outbox_id, timeout=45, table=DOC_OUTBOX)
    assert done["attempts"] >= 1
    assert [p.id for p in doc_points(svc, doc_id)] == [str(c) for c in chunks]


def test_enqueue_writes_the_row_in_the_callers_transaction(svc) -> None:
    committed, _ = insert_doc(svc, PARTS)
    rolled_back, _ = insert_doc(svc, PARTS)
    code = f"""
import uuid
from django.db import transaction
from elf_kernel.runtime import get_config
from elf_project.celery_app import configure
from docs_ext.indexing.outbox import enqueue
cfg = get_config()
configure(cfg)
try:
    with transaction.atomic():
        enqueue(doc_id=uuid.UUID({str(rolled_back)!r}), op="UPSERT", embedding_version=cfg.embedding_version)
        raise RuntimeError("roll back")
except RuntimeError:
    pass
with transaction.atomic():
    row = enqueue(doc_id=uuid.UUID({str(committed)!r}), op="UPSERT", embedding_version=cfg.embedding_version)
print(row.outbox_id)
"""
    proc = run_django(svc, code)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    outbox_id = out.strip().splitlines()[-1]
    assert rows(svc, "SELECT count(*) FROM doc_indexing_outbox WHERE doc_id = %s", (rolled_back,)) == [(0,)]
    assert rows(svc, "SELECT doc_id, op FROM doc_indexing_outbox WHERE outbox_id = %s", (outbox_id,)) == [
        (committed, "UPSERT")]
    wait_done(svc, outbox_id, table=DOC_OUTBOX)
    assert len(doc_points(svc, committed)) == len(PARTS)


def _active_doc_chunks(svc) -> list:
    return [r[0] for r in rows(svc, "SELECT c.chunk_id FROM doc_chunks c JOIN doc_documents d USING (doc_id) "
                                    "WHERE d.status = 'active' ORDER BY c.chunk_id")]


def _drop_docs_collection(svc) -> None:
    client = qdrant(svc)
    try:
        client.delete_collection(svc.cfg.storage.qdrant.docs_collection)
        assert not client.collection_exists(svc.cfg.storage.qdrant.docs_collection)
    finally:
        client.close()


def test_rebuild_restores_the_doc_collection_without_embedding(svc) -> None:
    doc_id, chunks = indexed(svc)
    expected = {p.id: p.payload for p in doc_points(svc, doc_id)}
    inactive, _ = indexed(svc)
    execute(svc, "UPDATE doc_documents SET status = 'deleted' WHERE doc_id = %s", (inactive,))
    active = _active_doc_chunks(svc)
    with_vector = set(stored_vectors(svc, active))
    missing = len(active) - len(with_vector)  # the document whose enqueue was rolled back is not indexed
    assert len(with_vector) >= 2 * len(PARTS) and missing == len(PARTS)
    before = embed_requests(svc)

    _drop_docs_collection(svc)
    r = requests.post(svc.admin + "/v2/admin/qdrant/rebuild", timeout=120)
    assert r.status_code == 200, r.text
    assert r.json() == {"rebuilt_count": 0, "missing_vector_count": 0, "error_count": 0,
                        "docs": {"rebuilt_count": len(with_vector), "missing_vector_count": missing, "error_count": 0}}
    assert {p.id: p.payload for p in doc_points(svc, doc_id)} == expected
    assert doc_points(svc, inactive) == []
    assert embed_requests(svc) == before
    assert [p.id for p in doc_points(svc, doc_id)] == [str(c) for c in chunks]


def test_manage_py_rebuild_reports_docs_missing_vectors(svc) -> None:
    active = _active_doc_chunks(svc)
    with_vector = sorted(stored_vectors(svc, active))
    assert len(with_vector) >= 3
    before = embed_requests(svc)
    _drop_docs_collection(svc)
    execute(svc, "DELETE FROM doc_chunk_embeddings WHERE chunk_id = %s", (with_vector[0],))

    proc = subprocess.run([sys.executable, "manage.py", "rebuild_qdrant", "-c", str(svc.config_path)], cwd=REPO,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["docs"] == {"rebuilt_count": len(with_vector) - 1,
                              "missing_vector_count": len(active) - len(with_vector) + 1, "error_count": 0}
    assert "rebuild docs [" in proc.stderr and f"{len(active)}/{len(active)} chunks" in proc.stderr
    client = qdrant(svc)
    try:
        restored = client.retrieve(svc.cfg.storage.qdrant.docs_collection, [str(c) for c in active])
    finally:
        client.close()
    assert {p.id for p in restored} == {str(c) for c in with_vector[1:]}
    assert embed_requests(svc) == before
