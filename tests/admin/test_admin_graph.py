"""Django admin for graph memory: entity, predicate and fact pages, and the predicate status actions (which
go through the predicate service: deprecated ones are refused; global ones, shipped ones included, are the
operator's to change here, and only here)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from graph.models import (
    GraphEntity,
    GraphEntityAlias,
    GraphFact,
    GraphFactEvidence,
    GraphFactSupersession,
    GraphPredicate,
    GraphPredicateAlias,
)
from memory.models import MemoryNote

pytestmark = pytest.mark.django_db
TENANT, PROJECT = "t-gadm", "p-gadm"
PREDICATES = "/admin/graph/graphpredicate/"


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


def _entity(name: str, kind: str | None = "person") -> GraphEntity:
    return GraphEntity.objects.create(tenant_id=TENANT, project_id=PROJECT, canonical=name,
                                      canonical_norm=name.lower(), kind=kind)


def _predicate(name: str, status: str = "pending", scope_key: str = f"{TENANT}:{PROJECT}") -> GraphPredicate:
    tenant, project = (None, None) if scope_key == "__global__" else (TENANT, PROJECT)
    return GraphPredicate.objects.create(scope_key=scope_key, tenant_id=tenant, project_id=project, canonical=name,
                                         canonical_norm=name.lower(), cardinality="single", status=status)


def _note(text: str) -> MemoryNote:
    now = timezone.now()
    return MemoryNote.objects.create(
        tenant_id=TENANT, project_id=PROJECT, agent_id="a-gadm", scope="project_shared", type="fact", key=None,
        text=text, importance=0.5, confidence=0.5, status="active", created_at=now, updated_at=now,
        embedding_version="local:x:384", source_ref={},
    )


def _fact(subject, predicate, value: str, valid_from, valid_to=None) -> GraphFact:
    return GraphFact.objects.create(
        tenant_id=TENANT, project_id=PROJECT, agent_id="a-gadm", scope="project_shared", subject_entity=subject,
        predicate=predicate.canonical, predicate_ref=predicate, object_value=value, valid_from=valid_from,
        valid_to=valid_to,
    )


def _get(admin_client, admin_port, path: str) -> str:
    r = admin_client.get(path, SERVER_PORT=admin_port)
    assert r.status_code == 200, r.status_code
    return r.content.decode()


def _act(admin_client, admin_port, action: str, *predicates) -> str:
    r = admin_client.post(
        PREDICATES, {"action": action, "_selected_action": [str(p.predicate_id) for p in predicates]},
        SERVER_PORT=admin_port, follow=True,
    )
    assert r.status_code == 200
    return r.content.decode()


def _status(p: GraphPredicate) -> str:
    p.refresh_from_db()
    return p.status


def test_entity_pages_and_search_by_alias(admin_client, admin_port):
    ada = _entity("Ada Lovelace-gadm")
    GraphEntityAlias.objects.create(entity=ada, alias="Countess of Lovelace", alias_norm="countess of lovelace")
    _entity("Charles Babbage-gadm")
    listing = _get(admin_client, admin_port, "/admin/graph/graphentity/?q=countess")
    assert "Ada Lovelace-gadm" in listing and "Charles Babbage-gadm" not in listing
    assert "Charles Babbage-gadm" in _get(admin_client, admin_port, "/admin/graph/graphentity/?q=babbage-gadm")
    detail = _get(admin_client, admin_port, f"/admin/graph/graphentity/{ada.entity_id}/change/")
    assert "Countess of Lovelace" in detail


def test_predicate_pages_show_aliases_and_are_read_only(admin_client, admin_port):
    p = _predicate("employed by gadm", "active")
    GraphPredicateAlias.objects.create(predicate=p, scope_key=p.scope_key, alias="Works At gadm",
                                       alias_norm="works at gadm")
    listing = _get(admin_client, admin_port, PREDICATES + "?q=works+at+gadm")
    assert "employed by gadm" in listing
    assert "Works At gadm" in _get(admin_client, admin_port, f"{PREDICATES}{p.predicate_id}/change/")
    assert admin_client.get(PREDICATES + "add/", SERVER_PORT=admin_port).status_code == 403
    r = admin_client.post(f"{PREDICATES}{p.predicate_id}/change/", {"status": "pending"}, SERVER_PORT=admin_port)
    assert r.status_code == 403 and _status(p) == "active"


def test_activate_moves_pending_and_refuses_deprecated(admin_client, admin_port):
    pending = _predicate("mentors gadm")
    active = _predicate("teaches gadm", "active")
    deprecated = _predicate("tutored gadm", "deprecated")
    glob = _predicate(f"is a gadm {uuid.uuid4().hex[:6]}", "pending", "__global__")
    html = _act(admin_client, admin_port, "activate", pending, active, deprecated, glob)
    assert "2 predicate(s) now active." in html  # the operator may change a global predicate (the API may not)
    assert "Skipped teaches gadm [t-gadm:p-gadm]: already active" in html
    assert "Refused for tutored gadm [t-gadm:p-gadm]: Deprecated predicates cannot be modified." in html
    assert [_status(p) for p in (pending, active, deprecated, glob)] == ["active", "active", "deprecated", "active"]


def test_deprecate_moves_pending_and_active_global_included(admin_client, admin_port):
    pending = _predicate("advises gadm")
    active = _predicate("coaches gadm", "active")
    glob = _predicate(f"part of gadm {uuid.uuid4().hex[:6]}", "active", "__global__")
    html = _act(admin_client, admin_port, "deprecate", pending, active, glob)
    assert "3 predicate(s) now deprecated." in html and "Refused" not in html
    assert [_status(p) for p in (pending, active, glob)] == ["deprecated", "deprecated", "deprecated"]
    # Deprecated is final: activating again is refused and changes nothing.
    assert "Deprecated predicates cannot be modified." in _act(admin_client, admin_port, "activate", pending)
    assert _status(pending) == "deprecated"


def test_fact_list_filters_and_detail_tables(admin_client, admin_port):
    ada, works = _entity("Ada-gadm"), _predicate("works at gadm", "active")
    now = timezone.now()
    old = _fact(ada, works, "Old Corp gadm", now - timedelta(days=30), now - timedelta(days=2))
    new = _fact(ada, works, "New Corp gadm", now - timedelta(days=2))
    first, second = _note("Ada works at Old Corp gadm."), _note("Ada now works at New Corp gadm.")
    GraphFactEvidence.objects.create(fact=old, note=first)
    GraphFactEvidence.objects.create(fact=new, note=second)
    GraphFactSupersession.objects.create(tenant_id=TENANT, project_id=PROJECT, from_fact=old, to_fact=new,
                                         note_id=second.note_id, effective_at=new.valid_from)

    listing = _get(admin_client, admin_port, f"/admin/graph/graphfact/?tenant_id={TENANT}")
    assert "Old Corp gadm" in listing and "New Corp gadm" in listing and "Ada-gadm" in listing
    assert "historical" in listing and "current" in listing
    open_only = _get(admin_client, admin_port, f"/admin/graph/graphfact/?tenant_id={TENANT}&window=open")
    assert "New Corp gadm" in open_only and "Old Corp gadm" not in open_only
    closed = _get(admin_client, admin_port, f"/admin/graph/graphfact/?tenant_id={TENANT}&window=closed")
    assert "Old Corp gadm" in closed and "New Corp gadm" not in closed
    other = _get(admin_client, admin_port, "/admin/graph/graphfact/?tenant_id=nobody-gadm")
    assert "Corp gadm" not in other

    detail = _get(admin_client, admin_port, f"/admin/graph/graphfact/{old.fact_id}/change/")
    evidence = detail[detail.index("Evidence notes"):]
    assert "Ada works at Old Corp gadm." in evidence and str(first.note_id) in evidence
    history = detail[detail.index("Supersession history"):]
    assert "was superseded by" in history and str(new.fact_id) in history and "New Corp gadm" in history
    assert str(second.note_id) in history
    newer = _get(admin_client, admin_port, f"/admin/graph/graphfact/{new.fact_id}/change/")
    newer_history = newer[newer.index("Supersession history"):]
    assert "superseded" in newer_history and "was superseded by" not in newer_history
    assert str(old.fact_id) in newer_history
