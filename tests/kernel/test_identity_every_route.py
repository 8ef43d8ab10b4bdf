"""Every operation of both binds that takes the X-ELF context headers refuses one that differs from the API key
(issue 31 item 1: one identity rule), walked from the OpenAPI documents as the binds serve them: 403 FORBIDDEN
naming the header, whatever the body, and before anything is read or written. The /v1 and /api/v1 routes state
their ids in the body or query string instead: each such id that differs is 403 naming its JSONPath."""

from __future__ import annotations

import re

import pytest
import requests

from tests.keys_helpers import Keys

KEYS = Keys(("user", "t1", "proj-a", "agent-a"), ("admin", "t1", "proj-a", "ops", "admin"))
OTHER = {"X-ELF-Tenant-Id": "t2", "X-ELF-Project-Id": "proj-b", "X-ELF-Agent-Id": "agent-b"}
SAMPLE = {"uuid": "00000000-0000-4000-8000-000000000001"}


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("identity_every_route", mutate=KEYS.configure)
    s.start_api()
    return s


def operations(svc):
    out = []
    for bind, base, token in (("public", svc.public, "user"), ("admin", svc.admin, "admin")):
        doc = requests.get(base + "/openapi.json", timeout=30).json()
        for path, ops in doc["paths"].items():
            for method, op in ops.items():
                if method not in ("get", "post", "put", "patch", "delete"):
                    continue
                headers = {p["name"] for p in op.get("parameters", []) if p["in"] == "header"}
                if "X-ELF-Tenant-Id" in headers:
                    out.append((bind, base, token, method.upper(), path))
    return out


def url(base: str, path: str) -> str:
    return base + re.sub(r"\{(\w+)\}", lambda m: SAMPLE["uuid"] if "id" in m[1] else "profile", path)


def test_every_header_route_refuses_another_identity(svc):
    ops = operations(svc)
    assert len(ops) > 50, ops
    wrong = []
    for bind, base, token, method, path in ops:
        for header, value in OTHER.items():
            r = requests.request(method, url(base, path), json={}, timeout=30,
                                 headers={**KEYS.bearer(token), header: value})
            body = r.json() if r.headers.get("Content-Type", "").startswith("application/json") else {}
            if (r.status_code, body.get("error_code"), body.get("fields")) != (
                403,
                "FORBIDDEN",
                [f"$.headers.{header}"],
            ):
                wrong.append(f"{method} {path} ({bind}) {header}: {r.status_code} {r.text[:120]}")
    assert not wrong, "\n".join(wrong)


NOTE_ID = "00000000-0000-4000-8000-000000000002"
V1 = {  # each /v1 operation with a body or query the API accepts, so only the stated ids can be at fault
    "POST /v1/memory/add_note": {
        "scope": "agent_private",
        "notes": [{"type": "fact", "text": "The office opens at nine.", "importance": 0.5, "confidence": 0.9}],
    },
    "POST /v1/memory/add_event": {"messages": [{"role": "user", "content": "The office opens at nine."}]},
    "POST /v1/memory/search": {"query": "office hours", "read_profile": "private_only"},
    "GET /v1/memory/list": {"scope": "project_shared"},
    "POST /v1/memory/update": {"note_id": NOTE_ID, "importance": 0.6},
    "POST /v1/memory/delete": {"note_id": NOTE_ID},
}
OWN = {"tenant_id": "t1", "project_id": "proj-a", "agent_id": "agent-a"}


def test_every_v1_route_refuses_another_identity_in_its_body_or_query(svc):
    doc = requests.get(svc.public + "/openapi.json", timeout=30).json()
    v1 = {
        f"{m.upper()} {p}"
        for p, ops in doc["paths"].items()
        if p.startswith("/v1/")
        for m in ops
        if m in ("get", "post", "put", "patch", "delete")
    }
    assert v1 == set(V1), sorted(v1 ^ set(V1))
    wrong = []
    for op, body in V1.items():
        method, path = op.split(" ", 1)
        for field, other in (("tenant_id", "t2"), ("project_id", "proj-b"), ("agent_id", "agent-b")):
            stated = {**OWN, **body, field: other}
            kw = {"params": stated} if method == "GET" else {"json": stated}
            r = requests.request(method, svc.public + path, timeout=30, headers=KEYS.bearer("user"), **kw)
            where = f"$.query.{field}" if method == "GET" else f"$.{field}"
            got = (r.status_code, r.json().get("error_code"), r.json().get("fields"))
            if got != (403, "FORBIDDEN", [where]):
                wrong.append(f"{op} {field}: {r.status_code} {r.text[:160]}")
    assert not wrong, "\n".join(wrong)
