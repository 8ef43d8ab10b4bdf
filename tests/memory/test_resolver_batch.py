"""The request's resolver reads (memory.services.add_note.resolver_reads_batched): one statement for all key-less notes
of a batch, corrected in Python by the request's own writes, must decide every note exactly as the per-note query
does (each note sent in a request of its own), including notes that duplicate or update notes written earlier in the
same request. Real Postgres; the embedder is a fake with chosen vectors."""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from elf_kernel.context import RequestContext
from memory.services.add_note import NoteInput, ingest_notes

pytestmark = pytest.mark.django_db
DIM = 384


def _vec(a: int, b: int = 0, cos: float = 1.0) -> list[float]:
    """A unit vector at cosine ``cos`` from basis vector ``a``, leaning towards basis vector ``b``."""
    v = np.zeros(DIM)
    v[a], v[b] = cos, math.sqrt(max(0.0, 1 - cos * cos))
    return v.tolist()


class FakeEmbedder:
    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors, self.calls = vectors, 0

    def embed(self, texts):
        self.calls += 1
        return [self.vectors[t] for t in texts]


# Text -> vector. "pre ..." notes exist before the batch.
VECTORS = {
    "pre alpha: the build server is in the basement.": _vec(1),
    "pre beta: the coffee machine is on floor two.": _vec(2),
    "x: the release train leaves on Thursdays.": _vec(3),
    "y: the release train departs every Thursday.": _vec(3, 4, 0.95),  # dup of x (in-request)
    "z: the build server moved to the attic.": _vec(1, 5, 0.88),  # updates pre alpha
    "w: the build server is in the basement room.": _vec(1, 6, 0.99),  # near alpha's old vector, alpha changed
    "v: the release train leaves on Thursday mornings.": _vec(3, 7, 0.87),  # updates x (in-request ADD)
    "u: the coffee machine is on floor two.": _vec(8),
    "t: a brand new fact about the garden.": _vec(9),
    "s: another fact about the garden shed.": _vec(9, 10, 0.90),  # updates t
}
BATCH = ["x: the release train leaves on Thursdays.", "y: the release train departs every Thursday.",
         "z: the build server moved to the attic.", "w: the build server is in the basement room.",
         "v: the release train leaves on Thursday mornings.", "pre beta: the coffee machine is on floor two.",
         "x: the release train leaves on Thursdays.", "t: a brand new fact about the garden.",
         "s: another fact about the garden shed.", "u: the coffee machine is on floor two.",
         "t: a brand new fact about the garden."]


def _note(text: str, i: int = 0) -> NoteInput:
    return NoteInput(type="fact", key=None, text=text, importance=0.5, confidence=0.9, field_path=f"$.notes[{i}]")


def _run(cfg, batched: bool) -> list[tuple]:
    """The batch's (op, target) with targets named by the text that created them; batched as one request, or
    one request per note."""
    ctx = RequestContext(f"rb-{uuid.uuid4().hex[:8]}", "p1", "a1", None)
    embedder = FakeEmbedder(VECTORS)
    pre = ingest_notes(cfg=cfg, ctx=ctx, scope="agent_private", embedder=embedder,
                       notes=[_note(t) for t in list(VECTORS)[:2]])
    names = {r.note_id: f"pre{i}" for i, r in enumerate(pre)}
    if batched:
        results = ingest_notes(cfg=cfg, ctx=ctx, scope="agent_private", embedder=embedder,
                               notes=[_note(t, i) for i, t in enumerate(BATCH)])
    else:
        results = [ingest_notes(cfg=cfg, ctx=ctx, scope="agent_private", embedder=embedder, notes=[_note(t)])[0]
                   for t in BATCH]
    out = []
    for i, r in enumerate(results):
        names.setdefault(r.note_id, f"batch{i}")
        out.append((r.op, r.policy_decision, names[r.note_id]))
    return out


def test_a_batch_resolves_every_note_as_the_per_note_query_does(test_cfg) -> None:
    batched, one_by_one = _run(test_cfg, True), _run(test_cfg, False)
    assert batched == one_by_one
    # The scenario covers what the batch must get right: in-request duplicates (exact text and vector),
    # updates of a note written before the request and of one written earlier in the request.
    assert [(op, target) for op, _, target in batched] == [
        ("ADD", "batch0"), ("NONE", "batch0"),  # y: a near duplicate of x, written just before it
        ("UPDATE", "pre0"),  # z: updates alpha (written before the request)...
        ("UPDATE", "pre0"),  # ...so w, near alpha's old vector, is read again against alpha's new one
        ("UPDATE", "batch0"),  # v: updates x, written earlier in the request
        ("NONE", "pre1"),  # beta's identical text
        ("UPDATE", "batch0"),  # x's text again: x now holds v's text and vector
        ("ADD", "batch7"), ("UPDATE", "batch7"), ("ADD", "batch9"),
        ("UPDATE", "batch7"),  # t's text again: t now holds s's text and vector
    ]


def _statements(n: int, cfg) -> tuple[int, int]:
    """(resolver reads, all statements) of one request of ``n`` new key-less notes."""
    ctx = RequestContext(f"rb-{uuid.uuid4().hex[:8]}", "p1", "a1", None)
    texts = [f"Fact number {i}: the {i}th lamp of the hall is blue." for i in range(n)]
    embedder = FakeEmbedder({t: _vec(i + 1) for i, t in enumerate(texts)})
    with CaptureQueriesContext(connection) as q:
        results = ingest_notes(cfg=cfg, ctx=ctx, scope="agent_private", embedder=embedder,
                               notes=[_note(t, i) for i, t in enumerate(texts)])
    assert [r.op for r in results] == ["ADD"] * n and embedder.calls == 1
    reads = sum(1 for s in q.captured_queries if "note_embeddings e" in s["sql"] and "<=>" in s["sql"])
    return reads, len(q.captured_queries)


def test_the_statements_of_a_batch_do_not_grow_with_its_size(test_cfg) -> None:
    (reads10, all10), (reads50, all50) = _statements(10, test_cfg), _statements(50, test_cfg)
    assert reads10 == reads50 == 1  # the resolver reads of every key-less note
    # group locks, resolver reads, the notes with their versions, outbox and decision rows, chunks and vectors
    # (one statement); and the savepoint and its release (the test runs in a transaction)
    assert all10 == all50 == 5


def test_new_notes_written_together_are_stored_whole(test_cfg) -> None:
    """The notes inserted together keep everything a note inserted alone has: its row, one chunk with its
    vector, the pooled vector, a version, an outbox row and a decision each."""
    ctx = RequestContext(f"rb-{uuid.uuid4().hex[:8]}", "p1", "a1", None)
    texts = [f"Fact {i}: the {i}th window of the tower faces east." for i in range(5)]
    vectors = {t: _vec(i + 1) for i, t in enumerate(texts)}
    results = ingest_notes(cfg=test_cfg, ctx=ctx, scope="agent_private", embedder=FakeEmbedder(vectors),
                           notes=[_note(t, i) for i, t in enumerate(texts)])
    ids = [r.note_id for r in results]
    with connection.cursor() as cur:
        cur.execute("""
            SELECT n.text, n.hit_count, c.chunk_index, c.start_offset, c.end_offset, c.text, ce.vec::text,
                   ne.vec::text, (SELECT count(*) FROM memory_note_versions v WHERE v.note_id = n.note_id),
                   (SELECT count(*) FROM indexing_outbox o WHERE o.note_id = n.note_id),
                   (SELECT count(*) FROM memory_ingest_decisions d WHERE d.note_id = n.note_id)
              FROM memory_notes n JOIN memory_note_chunks c USING (note_id)
              JOIN note_chunk_embeddings ce USING (chunk_id) JOIN note_embeddings ne USING (note_id)
             WHERE n.note_id = ANY(%s) ORDER BY array_position(%s, n.note_id)""", [ids, ids])
        got = cur.fetchall()
    assert len(got) == 5
    for text, row in zip(texts, got, strict=False):
        ntext, hits, index, start, end, ctext, cvec, nvec, versions, outbox, decisions = row
        assert (ntext, hits, index, start, end, ctext) == (text, 0, 0, 0, len(text.encode()), text)
        assert np.array_equal(np.array(cvec.strip("[]").split(","), float), np.float32(vectors[text]))
        assert cvec == nvec and (versions, outbox, decisions) == (1, 1, 1)
