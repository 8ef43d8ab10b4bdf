"""A notes search's first cut by ``read_key`` (elf_infra.index.notes_collection.read_filter) against the embedded
Qdrant server: it admits exactly the points the per-scope filter admits, for every caller and scope list; a
collection written before the key gets it on every point at its next ensure, and only then is searched by it."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime

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
from elf_infra.index.scope_filter import READ_KEY
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


def test_the_keyed_filter_admits_exactly_what_the_per_scope_filter_admits(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    ensure_notes_collection(client, "notes", DIM, quantization="int8")
    upsert_points(client, "notes", _every_owner())
    scope_lists = [list(c) for r in range(len(SCOPES) + 1) for c in itertools.combinations(SCOPES, r)]
    checked = 0
    for tenant, project, agent in itertools.product((*TENANTS, "t9"), (*PROJECTS, "p9"), (*AGENTS, "a9")):
        for scopes in scope_lists:
            who = dict(tenant_id=tenant, project_id=project, agent_id=agent, scopes=scopes)
            keyed, per_scope = read_filter(**who), read_filter(**who, keyed=False)
            expected = _ids(client, "notes", per_scope)
            assert _ids(client, "notes", keyed) == expected, who
            assert _found(client, "notes", keyed) == expected, who
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


def test_an_older_collection_gets_the_key_on_every_point_before_searches_use_it(
    qdrant_server: EmbeddedQdrant, caplog
) -> None:
    """Points written before ``read_key`` (no key, no index): searches keep the per-scope filter and each ensure
    warns; ``key_reads`` (rebuild_qdrant's end, and all of ``--read-keys``) writes each point's key from its own
    payload, keeping its vectors and payload, and then creates the index, which turns searches to the key."""
    client = client_for(qdrant_server)
    ensure_hybrid_collection(client, "older", DIM, KEYWORD_INDEXES, quantization="int8")
    points = _every_owner()
    for p in points:
        p.payload.pop(READ_KEY)
    upsert_points(client, "older", points)
    collection_facts.forget()
    assert not collection_facts.facts(client, "older").keyed
    before = {str(p.id): p for p in client.scroll("older", limit=1000, with_vectors=True)[0]}

    with caplog.at_level("WARNING", logger="elf.indexing"):
        ensure_notes_collection(client, "older", DIM, quantization="int8")  # warns, names the command, changes nothing
    warnings = [r.getMessage() for r in caplog.records if r.name == "elf.indexing"]
    assert len(warnings) == 1 and "rebuild_qdrant --read-keys" in warnings[0], warnings
    assert READ_KEY not in client.get_collection("older").payload_schema
    assert key_reads(qdrant_server.url, "older") == len(points)
    assert key_reads(qdrant_server.url, "older") == 0  # nothing left to add
    ensure_notes_collection(client, "older", DIM, quantization="int8")

    after = {str(p.id): p for p in client.scroll("older", limit=1000, with_vectors=True)[0]}
    assert after.keys() == before.keys()
    for pid, point in after.items():
        assert {k: v for k, v in point.payload.items() if k != READ_KEY} == before[pid].payload
        assert point.vector == before[pid].vector
    expected = {str(p.id): p.payload[READ_KEY] for p in _every_owner_keys(points)}
    assert {pid: p.payload[READ_KEY] for pid, p in after.items()} == expected
    assert READ_KEY in client.get_collection("older").payload_schema
    collection_facts.forget()
    assert collection_facts.facts(client, "older").keyed
    who = dict(tenant_id="t2", project_id="p2", agent_id="a2", scopes=list(SCOPES))
    assert _found(client, "older", read_filter(**who)) == _ids(client, "older", read_filter(**who, keyed=False))
    assert len(_found(client, "older", read_filter(**who))) == 7  # its private one, 2 shared in p2, 4 org


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


def test_a_new_collection_is_searched_by_the_key_from_the_start(qdrant_server: EmbeddedQdrant) -> None:
    client = client_for(qdrant_server)
    ensure_notes_collection(client, "fresh", DIM, quantization="int8")
    collection_facts.forget()
    assert collection_facts.facts(client, "fresh").keyed
    assert client.get_collection("fresh").payload_schema[READ_KEY].data_type == models.PayloadSchemaType.KEYWORD
