"""security.auth_mode = "static_keys" against a real elf-api over HTTP (isolated services, no worker needed).

Every /v2 request on either bind needs ``Authorization: Bearer <token>``; the admin bind needs an admin key;
the key fixes the tenant/project/agent context, and a context header may repeat it but never differ.
"""

from __future__ import annotations

import hmac
import secrets

import pytest
import requests

from elf_config.schema import AuthKeyConfig
from elf_kernel import auth

TOKENS = {name: secrets.token_urlsafe(24) for name in ("user", "admin", "legacy_admin", "other_tenant", "profiled")}
KEYS = [
    {"token_id": "user-t1", "token": TOKENS["user"], "tenant_id": "t1", "project_id": "p1", "agent_id": "a1",
     "role": "user"},
    {"token_id": "admin-t1", "token": TOKENS["admin"], "tenant_id": "t1", "project_id": "p1", "agent_id": "ops",
     "role": "admin"},
    # The spec's own spelling (section 14): admin = true.
    {"token_id": "legacy-admin", "token": TOKENS["legacy_admin"], "tenant_id": "t1", "project_id": "p1",
     "agent_id": "ops2", "admin": True},
    {"token_id": "user-t2", "token": TOKENS["other_tenant"], "tenant_id": "t2", "project_id": "p1",
     "agent_id": "a1", "role": "user"},
    {"token_id": "profiled", "token": TOKENS["profiled"], "tenant_id": "t1", "project_id": "p1", "agent_id": "a1",
     "read_profile": "private_only", "admin": False},
]
UNAUTHENTICATED_FIELDS = ["$.headers.Authorization"]


def bearer(name: str, **headers) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[name]}", **headers}


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def with_keys(data: dict) -> None:
        data["service"]["log_level"] = "debug"  # the most the API ever logs: tokens must still not appear
        data["security"].update(auth_mode="static_keys", auth_keys=KEYS)

    s = isolated_services_module("auth_keys", mutate=with_keys)
    s.start_api()
    return s


def assert_401(r: requests.Response, message: str) -> None:
    assert r.status_code == 401, r.text
    assert r.json() == {"error_code": "UNAUTHENTICATED", "message": message, "fields": UNAUTHENTICATED_FIELDS}
    assert r.headers["WWW-Authenticate"] == "Bearer"


def test_key_ring_compares_every_key_whatever_matches(monkeypatch):
    ring = auth.KeyRing([AuthKeyConfig(**{"read_profile": None, "role": None, "admin": None, **k}) for k in KEYS])
    calls, compare = [], hmac.compare_digest

    def counting(a, b):
        calls.append(1)
        return compare(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", counting)
    assert ring.match(TOKENS["user"].encode()).token_id == "user-t1"  # the first key matches...
    assert len(calls) == len(KEYS)  # ...and every other key is still compared
    calls.clear()
    assert ring.match(b"not-a-configured-token") is None and len(calls) == len(KEYS)


def test_no_authorization_header_is_401_on_both_binds(svc):
    assert_401(requests.get(svc.public + "/v2/context", timeout=10), "Authorization: Bearer <token> is required.")
    # Context headers alone are not enough once keys are on.
    r = requests.get(svc.public + "/v2/notes", headers={"X-ELF-Tenant-Id": "t1", "X-ELF-Project-Id": "p1",
                                                       "X-ELF-Agent-Id": "a1"}, timeout=10)
    assert_401(r, "Authorization: Bearer <token> is required.")
    assert_401(requests.get(svc.admin + "/v2/admin/traces/recent", timeout=10),
               "Authorization: Bearer <token> is required.")


@pytest.mark.parametrize("value", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Token abcdefghijklmnopqrst",
                                   "Bearer two words", "bearer-only"])
def test_malformed_authorization_is_401(svc, value):
    assert_401(requests.get(svc.public + "/v2/context", headers={"Authorization": value}, timeout=10),
               "Authorization must be 'Bearer <token>'.")


@pytest.mark.parametrize("token", [secrets.token_urlsafe(24), TOKENS["user"][:-1], TOKENS["user"] + "x",
                                   TOKENS["user"].upper()])
def test_unknown_token_is_401(svc, token):
    assert_401(requests.get(svc.public + "/v2/context", headers={"Authorization": f"Bearer {token}"}, timeout=10),
               "Unknown bearer token.")


def test_health_schema_docs_and_admin_pages_stay_open(svc):
    for url in (svc.public + "/health", svc.admin + "/health", svc.public + "/openapi.json", svc.public + "/docs/",
                svc.admin + "/admin/login/"):
        assert requests.get(url, timeout=10).status_code == 200, url


def test_context_comes_from_the_key(svc):
    r = requests.get(svc.public + "/v2/context", headers=bearer("user"), timeout=10)
    assert r.status_code == 200, r.text
    assert r.json() == {"tenant_id": "t1", "project_id": "p1", "agent_id": "a1", "read_profile": None}
    # The scheme is case-insensitive, and headers equal to the key's context are fine.
    same = {"Authorization": f"bearer {TOKENS['user']}", "X-ELF-Tenant-Id": "t1", "X-ELF-Agent-Id": "a1"}
    assert requests.get(svc.public + "/v2/context", headers=same, timeout=10).json()["agent_id"] == "a1"


def test_conflicting_context_headers_are_403(svc):
    headers = bearer("user", **{"X-ELF-Tenant-Id": "t2", "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": "someone"})
    r = requests.get(svc.public + "/v2/context", headers=headers, timeout=10)
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["error_code"] == "FORBIDDEN"
    assert body["fields"] == ["$.headers.X-ELF-Tenant-Id", "$.headers.X-ELF-Agent-Id"]
    # A write with a conflicting header stores nothing under either context.
    r = requests.post(svc.public + "/v2/notes/ingest", headers=bearer("user", **{"X-ELF-Project-Id": "p9"}),
                      json={"scope": "agent_private", "notes": []}, timeout=10)
    assert r.status_code == 403 and r.json()["fields"] == ["$.headers.X-ELF-Project-Id"]


def test_read_profile_from_the_key(svc):
    r = requests.get(svc.public + "/v2/context", headers=bearer("profiled"), timeout=10)
    assert r.json()["read_profile"] == "private_only"
    conflict = bearer("profiled", **{"X-ELF-Read-Profile": "all_scopes"})
    r = requests.post(svc.public + "/v2/searches", headers=conflict, json={"query": "What is stored?"}, timeout=30)
    assert r.status_code == 403 and r.json()["fields"] == ["$.headers.X-ELF-Read-Profile"]
    r = requests.post(svc.public + "/v2/searches", headers=bearer("profiled"),
                      json={"query": "What is stored?", "mode": "quick_find"}, timeout=60)
    assert r.status_code == 200, r.text


def test_key_without_read_profile_keeps_the_header_rule(svc):
    r = requests.post(svc.public + "/v2/searches", headers=bearer("user"), json={"query": "What is stored?"},
                      timeout=30)
    assert r.status_code == 400 and r.json()["fields"] == ["$.headers.X-ELF-Read-Profile"]
    r = requests.post(svc.public + "/v2/searches", headers=bearer("user", **{"X-ELF-Read-Profile": "private_only"}),
                      json={"query": "What is stored?", "mode": "quick_find"}, timeout=60)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("method,path", [("post", "/v2/admin/searches/raw"), ("get", "/v2/admin/traces/recent"),
                                         ("post", "/v2/admin/qdrant/rebuild")])
def test_user_key_on_admin_bind_is_403(svc, method, path):
    r = requests.request(method, svc.admin + path, headers=bearer("user", **{"X-ELF-Read-Profile": "all_scopes"}),
                         json={"query": "What is stored?"}, timeout=10)
    assert r.status_code == 403, r.text
    assert r.json() == {"error_code": "FORBIDDEN", "message": "Admin endpoints need an admin API key.",
                        "fields": ["$.headers.Authorization"]}


@pytest.mark.parametrize("name", ["admin", "legacy_admin"])
def test_admin_key_on_admin_bind(svc, name):
    r = requests.get(svc.admin + "/v2/admin/traces/recent", headers=bearer(name), timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["schema"] == "elf.recent_traces/v1"
    r = requests.post(
        svc.admin + "/v2/admin/searches/raw",
        headers=bearer(name, **{"X-ELF-Read-Profile": "all_scopes"}),
        json={"query": "What is stored?"},
        timeout=60,
    )
    assert r.status_code == 200, r.text


def test_note_lands_under_the_keys_context_and_stays_in_its_tenant(svc):
    text = "The deployment window for the billing service is Friday evening."
    r = requests.post(
        svc.public + "/v2/notes/ingest",
        headers=bearer("user"),
        timeout=60,
        json={
            "scope": "agent_private",
            "notes": [{"type": "fact", "text": text, "importance": 0.6, "confidence": 0.9}],
        },
    )
    assert r.status_code == 200, r.text
    note_id = r.json()["results"][0]["note_id"]
    r = requests.get(svc.public + f"/v2/notes/{note_id}", headers=bearer("user"), timeout=10)
    assert r.status_code == 200, r.text
    note = r.json()
    assert (note["tenant_id"], note["project_id"], note["agent_id"], note["text"]) == ("t1", "p1", "a1", text)
    # Same project and agent ids, another tenant's key: not found.
    r = requests.get(svc.public + f"/v2/notes/{note_id}", headers=bearer("other_tenant"), timeout=10)
    assert r.status_code == 404, r.text
    assert (
        note_id
        not in requests.get(
            svc.public + "/v2/notes?scope=agent_private", headers=bearer("other_tenant"), timeout=10
        ).text
    )


def test_tokens_never_reach_the_log(svc):
    unknown = secrets.token_urlsafe(24)
    for name in TOKENS:  # every key once more, on both binds, accepted or refused
        requests.get(svc.public + "/v2/context", headers=bearer(name, **{"X-ELF-Tenant-Id": "t9"}), timeout=10)
        requests.get(svc.admin + "/v2/admin/traces/recent", headers=bearer(name), timeout=10)
    requests.get(svc.public + "/v2/context", headers={"Authorization": f"Bearer {unknown}"}, timeout=10)
    log = svc.api.output()
    assert "/v2/admin/traces/recent" in log and " 401 " in log and " 403 " in log  # the requests were logged
    for token in [*TOKENS.values(), unknown]:
        assert token not in log


def test_event_log_routes_need_a_key_and_the_keys_tenant(svc):
    """/api/v1 (event log and bundles) is covered like /v2: no key is 401, and the body's tenant must be the key's."""
    body = {
        "tenant_id": "t1",
        "session_id": "s1",
        "agent_id": "a1",
        "channel": "private",
        "actor": {"type": "human", "id": "u"},
        "kind": "message",
        "content": {"text": "Hello from the key test."},
    }
    assert_401(
        requests.post(svc.public + "/api/v1/events", json=body, timeout=10),
        "Authorization: Bearer <token> is required.",
    )
    ok = requests.post(svc.public + "/api/v1/events", json=body, headers=bearer("user"), timeout=10)
    assert ok.status_code == 200, ok.text
    other = requests.post(
        svc.public + "/api/v1/events", json={**body, "tenant_id": "t2"}, headers=bearer("user"), timeout=10
    )
    assert other.status_code == 403 and other.json()["fields"] == ["$.tenant_id"]
    built = requests.post(
        svc.public + "/api/v1/acb/build",
        json={"tenant_id": "t2", "session_id": "s1", "agent_id": "a1"},
        headers=bearer("user"),
        timeout=10,
    )
    assert built.status_code == 403
