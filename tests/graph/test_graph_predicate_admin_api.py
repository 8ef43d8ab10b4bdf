"""Admin predicate registry endpoints (spec v2 section 14) against a live elf-api on the admin bind
(isolated services). Predicates are inserted with SQL, as the fact write path or an operator would leave
them; every test works on its own rows, so the order of the tests does not matter."""

from __future__ import annotations

import uuid
from datetime import datetime

import psycopg
import pytest
import requests

BASE = "/v2/admin/graph/predicates"
PREDICATE_FIELDS = {"predicate_id", "scope_key", "tenant_id", "project_id", "canonical", "canonical_norm",
                    "cardinality", "status", "created_at", "updated_at"}
ALIAS_FIELDS = {"alias_id", "predicate_id", "scope_key", "alias", "alias_norm", "created_at"}


def headers(tenant: str = "t1", project: str = "p1") -> dict[str, str]:
    return {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": project, "X-ELF-Agent-Id": "operator"}


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("graph_predicates")
    s.start_api()  # applies the schema
    return s


def insert_predicate(svc, scope_key: str, canonical: str, status: str = "pending", cardinality: str = "multi") -> str:
    """A predicate row in ``scope_key`` ("t:p", "__project__:p" or "__global__"); returns its id."""
    if scope_key == "__global__":
        tenant = project = None
    elif scope_key.startswith("__project__:"):
        tenant, project = None, scope_key.split(":", 1)[1]
    else:
        tenant, project = scope_key.split(":", 1)
    pid = str(uuid.uuid4())
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        conn.execute(
            "INSERT INTO graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, canonical_norm, "
            "cardinality, status) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (pid, scope_key, tenant, project, canonical, " ".join(canonical.split()).lower(), cardinality, status),
        )
    return pid


def db_row(svc, pid: str) -> tuple:
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        return conn.execute("SELECT status, cardinality, updated_at FROM graph_predicates WHERE predicate_id = %s",
                            (pid,)).fetchone()


def global_ids(svc) -> list[str]:
    """Every global predicate, in canonical_norm order: global rows are every caller's."""
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        rows = conn.execute("SELECT predicate_id FROM graph_predicates WHERE scope_key = '__global__' "
                            "ORDER BY canonical_norm").fetchall()
    return [str(r[0]) for r in rows]


def list_predicates(svc, h=None, **params) -> requests.Response:
    return requests.get(svc.admin + BASE, headers=h or headers(), params=params, timeout=10)


def patch(svc, pid: str, body, h=None) -> requests.Response:
    return requests.patch(f"{svc.admin}{BASE}/{pid}", json=body, headers=h or headers(), timeout=10)


def add_alias(svc, pid: str, alias, h=None) -> requests.Response:
    body = alias if isinstance(alias, dict) else {"alias": alias}
    return requests.post(f"{svc.admin}{BASE}/{pid}/aliases", json=body, headers=h or headers(), timeout=10)


def get_aliases(svc, pid: str, h=None) -> requests.Response:
    return requests.get(f"{svc.admin}{BASE}/{pid}/aliases", headers=h or headers(), timeout=10)


def assert_error(r: requests.Response, status: int, code: str, fields: list[str]) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error_code", "message", "fields"} and body["message"]
    assert (body["error_code"], body["fields"]) == (code, fields)


# --- list ---------------------------------------------------------------------------------------------------


def test_list_per_scope_filter_in_precedence_order(svc):
    # A tenant and project of their own: their two scopes hold exactly these rows (global rows are everyone's).
    mine = [insert_predicate(svc, "tl:pl", "Works  For", "active", "single"), insert_predicate(svc, "tl:pl", "born in")]
    project = insert_predicate(svc, "__project__:pl", "Located In")
    glob = insert_predicate(svc, "__global__", "is a", "active")
    insert_predicate(svc, "other:pl", "hidden tenant")  # another tenant, same project
    insert_predicate(svc, "tl:other", "hidden project")  # same tenant, another project
    insert_predicate(svc, "__project__:other", "hidden project scope")
    h = headers("tl", "pl")

    r = list_predicates(svc, h)
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"predicates"}
    ids = [p["predicate_id"] for p in body["predicates"]]
    globs = global_ids(svc)
    assert glob in globs
    assert ids == [mine[1], mine[0], project] + globs  # tenant:project by canonical_norm, project, global
    first = next(p for p in body["predicates"] if p["predicate_id"] == mine[0])
    assert set(first) == PREDICATE_FIELDS
    assert (first["scope_key"], first["tenant_id"], first["project_id"]) == ("tl:pl", "tl", "pl")
    assert (first["canonical"], first["canonical_norm"], first["cardinality"], first["status"]) == \
        ("Works  For", "works for", "single", "active")
    by_id = {p["predicate_id"]: p for p in body["predicates"]}
    assert (by_id[project]["tenant_id"], by_id[project]["project_id"]) == (None, "pl")
    assert (by_id[glob]["tenant_id"], by_id[glob]["project_id"], by_id[glob]["scope_key"]) == (None, None, "__global__")

    assert [p["predicate_id"] for p in list_predicates(svc, h, scope="all").json()["predicates"]] == ids
    assert [p["predicate_id"] for p in list_predicates(svc, h, scope="tenant_project").json()["predicates"]] == \
        [mine[1], mine[0]]
    assert [p["predicate_id"] for p in list_predicates(svc, h, scope="project").json()["predicates"]] == [project]
    assert [p["predicate_id"] for p in list_predicates(svc, h, scope="global").json()["predicates"]] == globs
    # Another tenant of the same project shares the project and global scopes, not tl:pl.
    theirs = [p["predicate_id"] for p in list_predicates(svc, headers("other", "pl")).json()["predicates"]]
    assert theirs[1:] == [project] + globs and theirs[0] not in ids


def test_list_query_validation(svc):
    assert_error(list_predicates(svc, scope="everything"), 400, "INVALID_REQUEST", ["$.query.scope"])
    assert_error(list_predicates(svc, status="active"), 400, "INVALID_REQUEST", ["$.query.status"])
    r = requests.get(svc.admin + BASE, headers={"X-ELF-Tenant-Id": "t1"}, timeout=10)
    assert_error(r, 400, "INVALID_REQUEST", ["$.headers.X-ELF-Project-Id", "$.headers.X-ELF-Agent-Id"])


def test_admin_routes_are_not_on_the_public_bind(svc):
    pid = insert_predicate(svc, "t1:p1", "public probe")
    assert requests.get(svc.public + BASE, headers=headers(), timeout=10).status_code == 404
    assert requests.patch(f"{svc.public}{BASE}/{pid}", json={"status": "active"}, headers=headers(),
                          timeout=10).status_code == 404
    assert db_row(svc, pid)[0] == "pending"


# --- PATCH --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("start,end", [("pending", "active"), ("pending", "deprecated"), ("active", "deprecated")])
def test_allowed_status_moves(svc, start, end):
    pid = insert_predicate(svc, "t1:p1", f"move {start} {end}", start)
    before = db_row(svc, pid)[2]
    r = patch(svc, pid, {"status": end})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == PREDICATE_FIELDS
    assert (body["predicate_id"], body["status"], body["cardinality"]) == (pid, end, "multi")
    status, cardinality, updated_at = db_row(svc, pid)
    assert (status, cardinality) == (end, "multi") and updated_at > before
    assert datetime.fromisoformat(body["updated_at"]) == updated_at


def test_cardinality_change_and_both_at_once(svc):
    pid = insert_predicate(svc, "t1:p1", "reports to")
    r = patch(svc, pid, {"cardinality": "single", "status": None})
    assert r.status_code == 200 and (r.json()["cardinality"], r.json()["status"]) == ("single", "pending")
    r = patch(svc, pid, {"status": "active", "cardinality": "multi"})
    assert r.status_code == 200 and (r.json()["cardinality"], r.json()["status"]) == ("multi", "active")
    assert db_row(svc, pid)[:2] == ("active", "multi")


def test_restating_the_current_values_is_a_no_op(svc):
    pid = insert_predicate(svc, "t1:p1", "no op", "active", "single")
    before = db_row(svc, pid)
    r = patch(svc, pid, {"status": "active", "cardinality": "single"})
    assert r.status_code == 200 and r.json()["status"] == "active"
    assert db_row(svc, pid) == before  # updated_at untouched


def test_a_move_not_allowed_is_400_on_status(svc):
    # active -> pending is the one move back that is not final-state (deprecated is 409, below).
    pid = insert_predicate(svc, "t1:p1", "bad move", "active")
    before = db_row(svc, pid)
    r = patch(svc, pid, {"status": "pending", "cardinality": "single"})
    assert_error(r, 400, "INVALID_REQUEST", ["$.status"])
    assert db_row(svc, pid) == before


@pytest.mark.parametrize("body", [{"status": "active"}, {"status": "pending"}, {"status": "deprecated"},
                                  {"cardinality": "single"}])
def test_deprecated_predicates_are_final_409(svc, body):
    pid = insert_predicate(svc, "t1:p1", f"deprecated {uuid.uuid4().hex[:6]}", "deprecated")
    before = db_row(svc, pid)
    assert_error(patch(svc, pid, body), 409, "PREDICATE_DEPRECATED", ["$.path.predicate_id"])
    assert db_row(svc, pid) == before


@pytest.mark.parametrize("body", [{"status": "deprecated"}, {"cardinality": "single"}, {"status": "active"}])
def test_global_predicates_are_immutable_403(svc, body):
    pid = insert_predicate(svc, "__global__", f"global {uuid.uuid4().hex[:6]}", "active")
    before = db_row(svc, pid)
    assert_error(patch(svc, pid, body), 403, "FORBIDDEN", ["$.path.predicate_id"])
    assert db_row(svc, pid) == before


@pytest.mark.parametrize("body,fields", [
    ({}, ["$"]),
    ({"status": None, "cardinality": None}, ["$"]),
    ({"status": "retired"}, ["$.status"]),
    ({"cardinality": "many"}, ["$.cardinality"]),
    ({"status": "active", "canonical": "renamed"}, ["$.canonical"]),
])
def test_patch_body_validation(svc, body, fields):
    pid = insert_predicate(svc, "t1:p1", f"validated {uuid.uuid4().hex[:6]}")
    assert_error(patch(svc, pid, body), 400, "INVALID_REQUEST", fields)
    assert db_row(svc, pid)[0] == "pending"


# --- aliases ------------------------------------------------------------------------------------------------


def test_add_and_list_aliases_idempotently(svc):
    pid = insert_predicate(svc, "t1:p1", "employed by", "active")
    assert get_aliases(svc, pid).json() == {"predicate_id": pid, "aliases": []}

    r = add_alias(svc, pid, "  Works   AT ")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"predicate_id", "aliases"} and body["predicate_id"] == pid
    [first] = body["aliases"]
    assert set(first) == ALIAS_FIELDS
    assert (first["predicate_id"], first["scope_key"], first["alias"], first["alias_norm"]) == \
        (pid, "t1:p1", "Works   AT", "works at")

    again = add_alias(svc, pid, "works at")  # the same alias_norm: nothing new
    assert again.status_code == 200 and again.json() == body
    r = add_alias(svc, pid, "Hired By")
    assert r.status_code == 200
    aliases = r.json()["aliases"]
    assert [a["alias_norm"] for a in aliases] == ["works at", "hired by"]  # by created_at
    assert get_aliases(svc, pid).json() == r.json()


def test_alias_taken_in_the_scope_is_409(svc):
    owner = insert_predicate(svc, "t1:p1", "owns")
    other = insert_predicate(svc, "t1:p1", "holds")
    assert add_alias(svc, owner, "possesses").status_code == 200
    assert_error(add_alias(svc, other, "POSSESSES"), 409, "ALIAS_CONFLICT", ["$.alias"])
    # Another predicate's canonical name would make resolution ambiguous just the same.
    assert_error(add_alias(svc, other, "Owns"), 409, "ALIAS_CONFLICT", ["$.alias"])
    assert get_aliases(svc, other).json()["aliases"] == []
    # The same phrase in another scope is another name.
    elsewhere = insert_predicate(svc, "t1:p2", "has")
    r = add_alias(svc, elsewhere, "possesses", headers("t1", "p2"))
    assert r.status_code == 200 and r.json()["aliases"][0]["scope_key"] == "t1:p2"


def test_alias_refusals(svc):
    deprecated = insert_predicate(svc, "t1:p1", "used to manage", "deprecated")
    glob = insert_predicate(svc, "__global__", f"part of {uuid.uuid4().hex[:6]}", "active")
    assert_error(add_alias(svc, deprecated, "managed"), 409, "PREDICATE_DEPRECATED", ["$.path.predicate_id"])
    assert_error(add_alias(svc, glob, "member of"), 403, "FORBIDDEN", ["$.path.predicate_id"])
    pending = insert_predicate(svc, "t1:p1", "likes")
    assert_error(add_alias(svc, pending, "   "), 400, "INVALID_REQUEST", ["$.alias"])
    assert_error(add_alias(svc, pending, {}), 400, "INVALID_REQUEST", ["$.alias"])
    assert_error(add_alias(svc, pending, {"alias": "enjoys", "scope_key": "__global__"}), 400, "INVALID_REQUEST",
                 ["$.scope_key"])
    assert_error(add_alias(svc, pending, "x" * 257), 400, "INVALID_REQUEST", ["$.alias"])
    assert_error(add_alias(svc, pending, "нравится"), 422, "NON_ENGLISH_INPUT", ["$.alias"])
    for pid in (deprecated, glob, pending):
        assert get_aliases(svc, pid).json()["aliases"] == []


# --- another tenant or project --------------------------------------------------------------------------------


@pytest.mark.parametrize("tenant,project", [("t2", "p1"), ("t1", "p2")])
def test_another_tenant_or_project_cannot_see_or_change(svc, tenant, project):
    pid = insert_predicate(svc, "t1:p1", f"private {tenant} {project}")
    h = headers(tenant, project)
    assert pid not in [p["predicate_id"] for p in list_predicates(svc, h).json()["predicates"]]
    assert_error(patch(svc, pid, {"status": "active"}, h), 404, "NOT_FOUND", ["$.path.predicate_id"])
    assert_error(add_alias(svc, pid, "secretly", h), 404, "NOT_FOUND", ["$.path.predicate_id"])
    assert_error(get_aliases(svc, pid, h), 404, "NOT_FOUND", ["$.path.predicate_id"])
    assert db_row(svc, pid)[0] == "pending" and get_aliases(svc, pid).json()["aliases"] == []


def test_project_scope_is_seen_by_the_project_and_changed_by_no_tenant(svc):
    """A __project__:p predicate is shared by every tenant's project p: one tenant's key changing it would change
    another tenant's supersession (issue 31), so the API refuses it (an operator uses the Django admin)."""
    pid = insert_predicate(svc, "__project__:p1", "collaborates with")
    for tenant in ("t1", "t2"):
        assert pid in [p["predicate_id"] for p in list_predicates(svc, headers(tenant, "p1")).json()["predicates"]]
        assert_error(patch(svc, pid, {"status": "active"}, headers(tenant, "p1")), 403, "FORBIDDEN",
                     ["$.path.predicate_id"])
        assert_error(add_alias(svc, pid, "works with", headers(tenant, "p1")), 403, "FORBIDDEN",
                     ["$.path.predicate_id"])
    assert_error(patch(svc, pid, {"status": "deprecated"}, headers("t1", "p2")), 404, "NOT_FOUND",
                 ["$.path.predicate_id"])
    assert db_row(svc, pid)[0] == "pending" and get_aliases(svc, pid).json()["aliases"] == []


def test_unknown_predicate_is_404(svc):
    missing = str(uuid.uuid4())
    assert_error(patch(svc, missing, {"status": "active"}), 404, "NOT_FOUND", ["$.path.predicate_id"])
    assert_error(get_aliases(svc, missing), 404, "NOT_FOUND", ["$.path.predicate_id"])
    assert_error(add_alias(svc, missing, "anything"), 404, "NOT_FOUND", ["$.path.predicate_id"])
    assert patch(svc, "not-a-uuid", {"status": "active"}).status_code == 404
