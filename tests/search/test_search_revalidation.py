"""memory.selectors_search.revalidated_chunks (search step 10) returns exactly what the read rule
(readable_notes + not_expired, active) allows, for every caller and scope list, from its compiled SQL."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from elf_domain.spaces import ORG_PROJECT_ID
from elf_kernel.context import RequestContext
from elf_kernel.postgres_backend.base import PREPARE_THRESHOLD
from graph.selectors.relation_context import IS_EVIDENCE
from memory.models import FieldKind, MemoryNote, MemoryNoteChunk, MemoryNoteField, MemorySpaceGrant
from memory.selectors import not_expired, readable_notes
from memory.selectors_search import revalidated_chunks

pytestmark = pytest.mark.django_db

ALL_SCOPES = ("agent_private", "project_shared", "org_shared")


def _note(tenant, agent, scope, *, project="p1", status="active", expires_in=None, chunks=2) -> MemoryNote:
    now = timezone.now()
    note = MemoryNote.objects.create(
        tenant_id=tenant, project_id=ORG_PROJECT_ID if scope == "org_shared" else project, agent_id=agent,
        scope=scope, type="fact", key=None, text="Fact: revalidation.", importance=0.5, confidence=0.5,
        status=status, created_at=now, updated_at=now, embedding_version="local:x:384", source_ref={"k": [1]},
        expires_at=None if expires_in is None else now + expires_in)
    for i in range(chunks):
        MemoryNoteChunk.objects.create(note=note, chunk_index=i, start_offset=i * 10, end_offset=i * 10 + 10,
                                       text=f"chunk {i}", embedding_version="local:x:384")
    return note


def _grant(tenant, owner, kind, grantee=None, *, scope="project_shared", project="p1", revoked=False):
    now = timezone.now()
    MemorySpaceGrant.objects.create(
        tenant_id=tenant, project_id=ORG_PROJECT_ID if scope == "org_shared" else project, scope=scope,
        space_owner_agent_id=owner, grantee_kind=kind, grantee_agent_id=grantee, granted_by_agent_id=owner,
        granted_at=now, revoked_at=now if revoked else None, revoked_by_agent_id=owner if revoked else None)


def _orm_rule(ctx, scopes, chunk_ids) -> set:
    return set(not_expired(readable_notes(ctx, scopes=list(scopes)).filter(
        status="active", chunks__chunk_id__in=chunk_ids)).values_list("note_id", flat=True))


def test_revalidated_chunks_match_the_read_rule_for_every_caller_and_scope_list():
    t = "t-reval-" + uuid.uuid4().hex[:8]
    other_t = t + "-other"
    notes = [
        _note(t, "a1", "agent_private"),
        _note(t, "a2", "agent_private"),
        _note(t, "a1", "project_shared"),
        _note(t, "a2", "project_shared"),
        _note(t, "a3", "project_shared"),
        _note(t, "a4", "project_shared"),
        _note(t, "a2", "org_shared"),
        _note(t, "a3", "org_shared"),
        _note(t, "a2", "project_shared", project="p2"),
        _note(t, "a1", "agent_private", status="deleted"),
        _note(t, "a1", "agent_private", expires_in=timedelta(days=-1)),
        _note(t, "a1", "agent_private", expires_in=timedelta(days=1)),
        _note(other_t, "a1", "agent_private"),
        _note(other_t, "a2", "project_shared"),
    ]
    _grant(t, "a2", "project")  # a2's project space: every agent of p1
    _grant(t, "a3", "agent", "a1")  # a3's project space: a1 only
    _grant(t, "a4", "project", revoked=True)
    _grant(t, "a2", "project", scope="org_shared")
    _grant(other_t, "a2", "project")
    chunk_ids = [
        str(c) for c in MemoryNoteChunk.objects.filter(note__in=notes, chunk_index=1).values_list("chunk_id", flat=True)
    ]
    seen = []
    for ctx in (
        RequestContext(t, "p1", "a1", None),
        RequestContext(t, "p1", "a5", None),
        RequestContext(t, "p2", "a1", None),
        RequestContext(other_t, "p1", "a1", None),
    ):
        for scopes in (ALL_SCOPES, ("project_shared",), ("agent_private", "org_shared")):
            chunks = revalidated_chunks(ctx, scopes, chunk_ids)
            got = {c.note_id for c in chunks}
            assert got == _orm_rule(ctx, scopes, chunk_ids), (ctx, scopes)
            assert len(chunks) == 2 * len(got)  # every chunk of each surviving note
            seen.append(len(got))
    assert seen[0] == 6  # a1: own private, own unexpired private, own shared, a2 shared, a3 (agent grant), a2 org
    assert 0 in seen and max(seen) > min(seen)


def test_revalidated_chunks_are_loaded_models_with_their_note_in_one_query():
    t = "t-reval-" + uuid.uuid4().hex[:8]
    note = _note(t, "a1", "agent_private", chunks=3)
    ids = [str(c.chunk_id) for c in note.chunks.all()]
    ctx = RequestContext(t, "p1", "a1", None)
    created_at = MemoryNote.objects.get(pk=note.pk).created_at
    assert revalidated_chunks(ctx, ALL_SCOPES, []) == []
    with CaptureQueriesContext(connection) as q:
        chunks = revalidated_chunks(ctx, ALL_SCOPES, ids[:1])
        assert {str(c.chunk_id) for c in chunks} == set(ids)
        assert len({id(c.note) for c in chunks}) == 1
        loaded = chunks[0].note
        assert (loaded.note_id, loaded.source_ref, loaded.created_at, loaded.hit_count) == (
            note.note_id,
            {"k": [1]},
            created_at,
            0,
        )
        assert sorted((c.chunk_index, c.start_offset, c.text) for c in chunks)[2] == (2, 20, "chunk 2")
    assert len(q) == 1
    assert not loaded._state.adding


def test_revalidated_notes_carry_their_structured_summary_for_the_session_index():
    t = "t-reval-" + uuid.uuid4().hex[:8]
    summarised, plain = _note(t, "a1", "agent_private"), _note(t, "a1", "agent_private")
    MemoryNoteField.objects.create(note=summarised, field_kind=FieldKind.FACT, item_index=0, text="a fact, not it")
    MemoryNoteField.objects.create(note=summarised, field_kind=FieldKind.SUMMARY, item_index=0, text="The short form.")
    ids = [str(c.chunk_id) for n in (summarised, plain) for c in n.chunks.all()]
    with CaptureQueriesContext(connection) as q:
        chunks = revalidated_chunks(RequestContext(t, "p1", "a1", None), ALL_SCOPES, ids)
    assert len(q) == 1
    assert {c.note.note_id: c.note.field_summary for c in chunks} == {
        summarised.note_id: "The short form.",
        plain.note_id: None,
    }


def test_a_mark_asked_by_another_app_comes_in_the_same_query():
    t = "t-reval-" + uuid.uuid4().hex[:8]
    note = _note(t, "a1", "agent_private")
    ids = [str(c.chunk_id) for c in note.chunks.all()]
    with CaptureQueriesContext(connection) as q:
        chunks = revalidated_chunks(RequestContext(t, "p1", "a1", None), ALL_SCOPES, ids, (IS_EVIDENCE,))
    assert len(q) == 1 and "graph_fact_evidence" in q[0]["sql"]
    assert chunks and all(c.note.is_fact_evidence is False for c in chunks)  # evidence of no fact


def test_the_statement_is_prepared_once_per_connection_with_a_generic_plan():
    """The re-validation runs as a prepared statement (PREPARE_THRESHOLD runs on a connection, then no parse
    and no planning per search: its plan is the generic one), and gives the same rows from then on."""
    t = "t-reval-" + uuid.uuid4().hex[:8]
    notes = [_note(t, "a1", "agent_private") for _ in range(3)]
    ids = [str(c.chunk_id) for n in notes for c in n.chunks.all()]
    ctx = RequestContext(t, "p1", "a1", None)
    expected = {str(c.chunk_id) for c in MemoryNoteChunk.objects.filter(note__in=notes)}
    for k in range(PREPARE_THRESHOLD + 3):
        assert {str(c.chunk_id) for c in revalidated_chunks(ctx, ALL_SCOPES, ids[k % 2 :])} == expected
    with connection.cursor() as cur:
        cur.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE '%%memory_note_chunks%%' AND statement LIKE '%%memory_note_fields%%'"
        )
        plans = cur.fetchall()
        cur.execute("SHOW plan_cache_mode")
        assert cur.fetchone()[0] == "force_generic_plan"
    assert len(plans) == 1, plans
    assert plans[0][0] >= 3 and plans[0][1] == 0


def test_loaded_instances_equal_the_orms_and_read_deferred_fields_on_access():
    """The re-validation builds its instances without Model.__init__: every column the ORM would give, the
    saved state, the chunk's note cached, and the columns it does not select read when asked for."""
    t = "t-reval-" + uuid.uuid4().hex[:8]
    note = _note(t, "a1", "agent_private", chunks=2, expires_in=timedelta(days=3))
    chunks = revalidated_chunks(
        RequestContext(t, "p1", "a1", None), ALL_SCOPES, [str(c.chunk_id) for c in note.chunks.all()]
    )
    orm_note = MemoryNote.objects.get(pk=note.pk)
    loaded = chunks[0].note
    assert {f.attname: getattr(loaded, f.attname) for f in MemoryNote._meta.concrete_fields} == {
        f.attname: getattr(orm_note, f.attname) for f in MemoryNote._meta.concrete_fields
    }
    assert loaded == orm_note and not loaded._state.adding and loaded._state.db == "default"
    for chunk in chunks:
        orm_chunk = MemoryNoteChunk.objects.get(pk=chunk.pk)
        assert (chunk.note_id, chunk.chunk_index, chunk.start_offset, chunk.end_offset, chunk.text) == (
            orm_chunk.note_id,
            orm_chunk.chunk_index,
            orm_chunk.start_offset,
            orm_chunk.end_offset,
            orm_chunk.text,
        )
        assert chunk.note is loaded and not chunk._state.adding
        with CaptureQueriesContext(connection) as q:
            assert chunk.embedding_version == orm_chunk.embedding_version == "local:x:384"  # deferred: one read
        assert len(q) == 1
