"""A notes search's first cut by ``read_tag`` (elf_infra.index.notes_collection.read_filter) against the embedded
Qdrant server: it admits exactly the points the per-scope filter and the ``read_key`` filter admit, for every
caller and scope list; a collection written before the tag (with or without ``read_key``) is searched by what its
indexes allow, gets the tag on every point from ``key_reads``, and only then is searched by it."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime

import pytest
from qdrant_client import QdrantClient, models

from elf_domain.spaces import ORG_PROJECT_ID
from elf_infra.index import bm25, collection_facts
from elf_infra.index.hybrid import ensure_hybrid_collection, upsert_points
from elf_infra.index.notes_collection import (
    KEYWORD_INDEXES,
    chunk_point,
    ensure_notes_collection,
    key_reads,
    read_filter,
)
from elf_infra.index.scope_filter import READ_KEY, READ_TAG, read_tag
from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import client_for, qdrant_server  # noqa: F401

DIM = 4
TENANTS, PROJECTS, AGENTS = ("t1", "t2"), ("p1", "p2"), ("a1", "a2")
SCOPES = ("agent_private", "project_shared", "org_shared")


def _point(tenant: str, project: str, agent: str, scope: str, n: int) -> models.PointStruct:
    text = f"Note {n} of {agent} in {project} is about the deploy pipeline"
    return chunk_point(
        chunk_id=uuid.uuid4(), note_id=uuid.uuid4(), chunk_index=0, start_offset=0, end_offset=len(text),
        tenant_id=tenant, project_id=ORG_PROJECT_ID if scope == "org_shared" else project, agent_id=agent,
        scope=scope, note_type="fact", key=None, status="active", updated_at=datetime(2026, 1, 2, tzinfo=UTC),
        expires_at=None, importance=0.5, confidence=0.9, embedding_version="local:test:4",
        dense=[1.0, n / 100, 0.5, 0.0], bm25=bm25.embed_document(text))


def _every_owner() -> list[models.PointStruct]:
    owners = itertools.product(TENANTS, PROJECTS, AGENTS, SCOPES)
    return [_point(t, p, a, s, n) for n, (t, p, a, s) in enumerate(owners)]


def _ids(client: QdrantClient, name: str, flt: models.Filter) -> set[str]:
    points, _ = client.scroll(name, scroll_filter=flt, limit=1000, with_payload=False)
    return {str(p.id) for p in points}


def _found(client: QdrantClient, name: str, flt: models.Filter) -> set[str]:
    """What a dense search under ``flt`` finds (the search's own path through the filter)."""
    hits = client.query_points(name, query=[1.0, 0.1, 0.5, 0.0], using="dense", query_filter=flt, limit=1000)
    return {str(p.id) for p in hits.points}


def test_the_tag_filter_admits_exactly_what_the_key_and_per_scope_filters_admit(
    qdrant_server: EmbeddedQdrant,
) -> None:
    client = client_for(qdrant_server)
    ensure_notes_collection(client, "notes", DIM, quantization="int8")
    client.create_payload_index("notes", READ_KEY, models.PayloadSchemaType.KEYWORD, wait=True)  # as before tags
    upsert_points(client, "notes", _every_owner())
    scope_lists = [list(c) for r in range(len(SCOPES) + 1) for c in itertools.combinations(SCOPES, r)]
    checked = 0
    for tenant, project, agent in itertools.product((*TENANTS, "t9"), (*PROJECTS, "p9"), (*AGENTS, "a9")):
        for scopes in scope_lists:
            who = dict(tenant_id=tenant, project_id=project, agent_id=agent, scopes=scopes)
            expected = _ids(client, "notes", read_filter(**who, by="scope"))
            for by in ("read_tag", "read_key"):
                assert _ids(client, "notes", read_filter(**who, by=by)) == expected, (who, by)
                assert _found(client, "notes", read_filter(**who, by=by)) == expected, (who, by)
            checked += bool(expected)
    assert checked > 100  # most callers see some points: the equality is not that of two empty sets
    # one caller's whole view, spelled out: its own private points, its project's shared ones, the org's
    seen = _ids(client, "notes", read_filter(tenant_id="t1", project_id="p1", agent_id="a1", scopes=list(SCOPES)))
    owners = {str(p.id): (p.payload["tenant_id"], p.payload["project_id"], p.payload["agent_id"], p.payload["scope"])
              for p in client.scroll("notes", limit=1000)[0]}
    assert sorted(owners[i] for i in seen) == sorted([
        ("t1", "p1", "a1", "agent_private"), ("t1", "p1", "a1", "project_shared"), ("t1", "p1", "a2", "project_shared"),
        *[("t1", ORG_PROJECT_ID, a, "org_shared") for p in PROJECTS for a in AGENTS],
    ])


def test_the_tag_names_the_tenant_and_the_whole_read_key() -> None:
    """Each owner its own tag: tenants, scopes, projects and agents apart (16 owners, 16 tags), the same owner
    always the same tag (a stable digest, not Python's salted hash), and an agent counted only where the scope
    is agent_private, as in read_key."""
    tags = {read_tag(t, s, p, a) for t, p, a, s in itertools.product(TENANTS, PROJECTS, AGENTS, SCOPES)
            if s == "agent_private"}
    tags |= {read_tag(t, s, p, "") for t, p, s in itertools.product(TENANTS, PROJECTS, SCOPES) if s != "agent_private"}
    assert len(tags) == 2 * 2 * 2 + 2 * 2 * 2
    assert read_tag("t1", "project_shared", "p1", "a1") == read_tag("t1", "project_shared", "p1", "a2")
    # fixed for good: stored points carry their tags, so another digest would hide them from search
    assert read_tag("t1", "agent_private", "p1", "a1") == -4463658244097599273
    assert all(-(2**63) <= t < 2**63 for t in tags)


@pytest.mark.parametrize("before", ["scope", "read_key"])
def test_an_older_collection_gets_the_tag_on_every_point_before_searches_use_it(
    qdrant_server: EmbeddedQdrant, caplog, before: str
) -> None:
    """Points written before ``read_tag``, with neither field (``scope``) or with ``read_key`` and its index
    (``read_key``): searches keep the filter their indexes allow and each ensure warns; ``key_reads``
    (rebuild_qdrant's end, and all of ``--read-keys``) writes each point's tag and key from its own payload,
    keeping its vectors and payload, and then creates the tag's index, which turns searches to the tag."""
    client = client_for(qdrant_server)
    name = f"older-{before}"
    ensure_hybrid_collection(client, name, DIM, KEYWORD_INDEXES, quantization="int8")
    points = _every_owner()
    for p in points:
        p.payload.pop(READ_TAG)
        if before == "scope":
            p.payload.pop(READ_KEY)
    if before == "read_key":
        client.create_payload_index(name, READ_KEY, models.PayloadSchemaType.KEYWORD, wait=True)
    upsert_points(client, name, points)
    collection_facts.forget()
    assert collection_facts.facts(client, name).read_by == before
    before_points = {str(p.id): p for p in client.scroll(name, limit=1000, with_vectors=True)[0]}

    with caplog.at_level("WARNING", logger="elf.indexing"):
        ensure_notes_collection(client, name, DIM, quantization="int8")  # warns, names the command, changes nothing
    warnings = [r.getMessage() for r in caplog.records if r.name == "elf.indexing"]
    assert len(warnings) == 1 and "rebuild_qdrant --read-keys" in warnings[0], warnings
    assert READ_TAG not in client.get_collection(name).payload_schema
    collection_facts.forget()
    assert collection_facts.facts(client, name).read_by == before
    assert key_reads(qdrant_server.url, name) == len(points)
    assert key_reads(qdrant_server.url, name) == 0  # nothing left to add
    ensure_notes_collection(client, name, DIM, quantization="int8")

    after = {str(p.id): p for p in client.scroll(name, limit=1000, with_vectors=True)[0]}
    assert after.keys() == before_points.keys()
    for pid, point in after.items():
        assert {k: v for k, v in point.payload.items() if k not in (READ_KEY, READ_TAG)} == {
            k: v for k, v in before_points[pid].payload.items() if k != READ_KEY}
        assert point.vector == before_points[pid].vector
    expected = {str(p.id): (p.payload[READ_KEY], p.payload[READ_TAG]) for p in _every_owner_keys(points)}
    assert {pid: (p.payload[READ_KEY], p.payload[READ_TAG]) for pid, p in after.items()} == expected
    assert client.get_collection(name).payload_schema[READ_TAG].data_type == models.PayloadSchemaType.INTEGER
    collection_facts.forget()
    assert collection_facts.facts(client, name).read_by == "read_tag"
    who = dict(tenant_id="t2", project_id="p2", agent_id="a2", scopes=list(SCOPES))
    assert _found(client, name, read_filter(**who)) == _ids(client, name, read_filter(**who, by="scope"))
    assert len(_found(client, name, read_filter(**who))) == 7  # its private one, 2 shared in p2, 4 org


def _every_owner_keys(points: list[models.PointStruct]) -> list[models.PointStruct]:
    """The same points as a current version writes them (their keys from chunk_point)."""
    fresh = []
    for p in points:
        pl = p.payload
        fresh.append(chunk_point(
            chunk_id=p.id, note_id=pl["note_id"], chunk_index=0, start_offset=0, end_offset=1,
            tenant_id=pl["tenant_id"], project_id=pl["project_id"], agent_id=pl["agent_id"], scope=pl["scope"],
            note_type="fact", key=None, status="active", updated_at=datetime(2026, 1, 2, tzinfo=UTC),
            expires_at=None, importance=0.5, confidence=0.9, embedding_version="v", dense=[1.0, 0, 0, 0],
            bm25=bm25.embed_document("x")))
    return fresh


def test_a_new_collection_is_searched_by_the_tag_from_the_start(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    ensure_notes_collection(client, "fresh", DIM, quantization="int8")
    collection_facts.forget()
    assert collection_facts.facts(client, "fresh").read_by == "read_tag"
    schema = client.get_collection("fresh").payload_schema
    assert schema[READ_TAG].data_type == models.PayloadSchemaType.INTEGER
    assert READ_KEY not in schema  # the key is still written (a rollback finds it), but no longer indexed


def test_a_filter_of_no_scope_admits_nothing(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    ensure_notes_collection(client, "none", DIM, quantization="int8")
    upsert_points(client, "none", _every_owner())
    for by in ("read_tag", "read_key", "scope"):
        flt = read_filter(tenant_id="t1", project_id="p1", agent_id="a1", scopes=[], by=by)
        assert _ids(client, "none", flt) == set(), by
    with pytest.raises(ValueError, match="read_filter by"):
        read_filter(tenant_id="t1", project_id="p1", agent_id="a1", scopes=["agent_private"], by="tenant")
