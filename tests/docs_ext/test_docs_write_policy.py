"""[scopes.write_allowed] holds for documents by value, as it does for notes (issue 31 item 3; doc-extension-v1
"Scope model": documents share the notes' scope labels and grants), over HTTP with static keys.

A scope set to false is refused for add_note (REJECTED, REJECT_SCOPE_DENIED) and for a document alike: docs_put
and docs_publish answer 403 SCOPE_DENIED naming the field. Publishing a document grants nobody (unlike a note's
publish, which ensures the space's project grant): a reader still needs a space grant (docs/security.md).
"""

from __future__ import annotations

import pytest
import requests

from tests.keys_helpers import Keys

KEYS = Keys(("a", "t1", "proj-a", "agent-a"), ("b", "t1", "proj-a", "agent-b"))
CONTENT = "Runbook: the nightly backup starts at two and is checked by the on-call engineer every morning."


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data: dict) -> None:
        KEYS.configure(data)
        data["scopes"]["write_allowed"]["org_shared"] = False  # the key stays, its value says no

    s = isolated_services_module("docs_write_policy", mutate=mutate)
    s.start_api()
    return s


def call(svc, method: str, path: str, who: str = "a", **kw) -> requests.Response:
    return requests.request(method, svc.public + path, headers=KEYS.bearer(who),
                            timeout=30, **kw)


def put_doc(svc, scope: str, who: str = "a") -> requests.Response:
    return call(svc, "POST", "/v2/docs", who, json={"scope": scope, "content": CONTENT})


def assert_denied(r: requests.Response, field: str) -> None:
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["error_code"] == "SCOPE_DENIED" and body["fields"] == [field], body


def test_add_note_refuses_the_scope(svc):
    r = call(svc, "POST", "/v2/notes/ingest", json={"scope": "org_shared", "notes": [
        {"type": "fact", "text": "The office closes at six.", "importance": 0.5, "confidence": 0.9}]})
    assert r.status_code == 200, r.text
    assert [(x["op"], x["reason_code"]) for x in r.json()["results"]] == [("REJECTED", "REJECT_SCOPE_DENIED")]


def test_docs_put_refuses_a_scope_set_to_false(svc):
    assert_denied(put_doc(svc, "org_shared"), "$.scope")
    listed = call(svc, "POST", "/v2/docs/search/l0", json={"query": "nightly backup"})
    assert all(item["scope"] != "org_shared" for item in listed.json().get("items", [])), listed.text


def test_docs_publish_refuses_a_scope_set_to_false(svc):
    doc = put_doc(svc, "agent_private")
    assert doc.status_code == 200, doc.text
    doc_id = doc.json()["doc_id"]
    assert_denied(call(svc, "POST", f"/v2/docs/{doc_id}/publish", json={"space": "org_shared"}), "$.space")
    meta = call(svc, "GET", f"/v2/docs/{doc_id}")
    assert meta.status_code == 200 and meta.json()["scope"] == "agent_private", meta.text


def test_a_writable_scope_still_works_and_publishing_grants_nobody(svc):
    doc = put_doc(svc, "agent_private")
    doc_id = doc.json()["doc_id"]
    published = call(svc, "POST", f"/v2/docs/{doc_id}/publish", json={"space": "team_shared"})
    assert published.status_code == 200 and published.json()["scope"] == "project_shared", published.text
    # Decision (docs/security.md): publishing a document creates no grant; agent-b, same project, sees nothing...
    assert call(svc, "GET", f"/v2/docs/{doc_id}", "b").status_code == 404
    # ...until the owner grants the space, as for any shared document.
    grant = call(svc, "POST", "/v2/spaces/team_shared/grants", json={"grantee_kind": "project"})
    assert grant.status_code == 200, grant.text
    assert call(svc, "GET", f"/v2/docs/{doc_id}", "b").status_code == 200
