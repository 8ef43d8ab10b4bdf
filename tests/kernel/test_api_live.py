"""The real elf-api over HTTP: health, listener separation, context headers, error body, OpenAPI, docs."""

from __future__ import annotations

import re

import pytest
import requests

from tests.conftest import CONTEXT_HEADERS

pytestmark = pytest.mark.usefixtures("live_api")


@pytest.fixture
def public(live_api) -> str:
    return live_api[0]


@pytest.fixture
def admin(live_api) -> str:
    return live_api[1]


def test_health_ok_on_both_binds(public, admin):
    for base in (public, admin):
        r = requests.get(base + "/health", timeout=10)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["status"] == "ok" and body["down"] == []
        assert set(body["checks"]) == {"postgres", "qdrant", "broker"}


def test_admin_routes_never_answer_on_public_bind(public, admin):
    assert requests.get(public + "/admin/", timeout=10, allow_redirects=False).status_code == 404
    assert requests.get(public + "/admin/login/", timeout=10, allow_redirects=False).status_code == 404
    # Forging the Host header does not reach the admin routes: routing is by the listening socket.
    forged = requests.get(public + "/admin/", headers={"Host": admin.split("//")[1]}, timeout=10, allow_redirects=False)
    assert forged.status_code == 404
    r = requests.get(admin + "/admin/", timeout=10, allow_redirects=False)
    assert r.status_code == 302 and "/admin/login/" in r.headers["Location"]


def test_unknown_route_gets_error_body(public):
    r = requests.get(public + "/v2/nothing-here", headers=CONTEXT_HEADERS, timeout=10)
    assert r.status_code == 404
    assert r.json() == {"error_code": "NOT_FOUND", "message": "Not found.", "fields": []}


def test_valid_context_headers_echoed(public):
    r = requests.get(
        public + "/v2/context", headers={**CONTEXT_HEADERS, "X-ELF-Read-Profile": "all_scopes"}, timeout=10
    )
    assert r.status_code == 200, r.text
    assert r.json() == {"tenant_id": "t1", "project_id": "p1", "agent_id": "a1", "read_profile": "all_scopes"}


@pytest.mark.parametrize(
    "name,value",
    [
        ("X-ELF-Tenant-Id", None),
        ("X-ELF-Tenant-Id", ""),
        ("X-ELF-Project-Id", "p" * 129),
        ("X-ELF-Agent-Id", "агент".encode()),
        ("X-ELF-Tenant-Id", "te\u200bnant".encode("utf-8")),
        ("X-ELF-Project-Id", "項目".encode()),
        ("X-ELF-Agent-Id", b"\xff\xfe"),
    ],
    ids=["missing", "empty", "too-long", "cyrillic", "zero-width", "han", "not-utf8"],
)
def test_bad_context_header_is_400_with_jsonpath(public, name, value):
    headers = dict(CONTEXT_HEADERS)
    if value is None:
        del headers[name]
    else:
        headers[name] = value
    r = requests.get(public + "/v2/context", headers=headers, timeout=10)
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error_code"] == "INVALID_REQUEST"
    assert body["fields"] == [f"$.headers.{name}"]
    assert name in body["message"]


def test_header_of_exactly_128_chars_is_fine(public):
    r = requests.get(public + "/v2/context", headers={**CONTEXT_HEADERS, "X-ELF-Project-Id": "p" * 128}, timeout=10)
    assert r.status_code == 200


def test_every_bad_header_reported_at_once(public):
    r = requests.get(public + "/v2/context", timeout=10)
    assert r.status_code == 400
    assert r.json()["fields"] == [
        "$.headers.X-ELF-Tenant-Id",
        "$.headers.X-ELF-Project-Id",
        "$.headers.X-ELF-Agent-Id",
    ]


def test_unknown_read_profile_rejected(public):
    r = requests.get(
        public + "/v2/context", headers={**CONTEXT_HEADERS, "X-ELF-Read-Profile": "everything"}, timeout=10
    )
    assert r.status_code == 400
    assert r.json()["fields"] == ["$.headers.X-ELF-Read-Profile"]


def test_openapi_per_bind(public, admin):
    pub = requests.get(public + "/openapi.json", timeout=20)
    adm = requests.get(admin + "/openapi.json", timeout=20)
    assert pub.status_code == 200 and adm.status_code == 200
    pub_doc, adm_doc = pub.json(), adm.json()
    assert pub_doc["openapi"].startswith("3.")
    assert "/health" in pub_doc["paths"] and "/v2/context" in pub_doc["paths"]
    assert not any(p.startswith("/admin") for p in pub_doc["paths"])
    assert "ErrorBody" in pub_doc["components"]["schemas"]
    responses = pub_doc["paths"]["/v2/context"]["get"]["responses"]
    assert {"200", "400", "422", "500"} <= set(responses)
    assert "/health" in adm_doc["paths"]


def test_docs_page_served_without_cdn(public, admin):
    for base in (public, admin):
        r = requests.get(base + "/docs/", timeout=10)
        assert r.status_code == 200
        assert "swagger" in r.text.lower()
        assert not re.search(r"https?://(cdn|unpkg|fastly)", r.text), "docs must not load assets from a CDN"
        # Each referenced static asset is served by the service itself.
        for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', r.text):
            assert requests.get(base + src, timeout=10).status_code == 200, src
