"""add_event ingestion profiles: the admin API (admin bind, in-process client), profile validation and
``resolve_profile`` (request -> project default -> built-in)."""

from __future__ import annotations

import uuid

import pytest

from elf_domain.extractor_prompt import BUILTIN_EXTRACTOR_PROMPT, RESPONSE_JSON_SCHEMA
from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound
from memory.domain.ingestion_profile import merge_with_builtin, profile_problems
from memory.services.ingestion_profiles import create_profile, resolve_profile, set_default

pytestmark = pytest.mark.django_db
BASE = "/v2/admin/events/ingestion-profiles"
USER_TEMPLATE = "Schema: <SCHEMA_JSON>\nAt most <MAX_NOTES> notes of <MAX_NOTE_CHARS> chars.\n<MESSAGES_JSON>"


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


@pytest.fixture
def api(client, admin_port):
    tenant = f"t-prof-{uuid.uuid4().hex[:8]}"

    class Api:
        headers = {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": "operator"}

        def get(self, path, headers=None, **params):
            return client.get(BASE + path, params, headers=headers or self.headers, SERVER_PORT=admin_port)

        def post(self, path, body, headers=None):
            return client.post(BASE + path, body, content_type="application/json",
                               headers=headers or self.headers, SERVER_PORT=admin_port)

    return Api()


def _ctx(tenant: str) -> RequestContext:
    return RequestContext(tenant_id=tenant, project_id="p1", agent_id="a1", read_profile=None)


def test_create_get_versions_and_list(api):
    r = api.post("", {"profile_id": "terse", "version": 1, "profile": {"schema_version": 1, "model": "m-1"}})
    assert r.status_code == 200, r.json()
    body = r.json()
    assert body["profile_id"] == "terse" and body["version"] == 1 and body["created_by"] == "operator"
    assert body["profile"] == {"schema_version": 1, "model": "m-1"} and body["created_at"]

    # Version omitted: the next one. created_by given: kept.
    r = api.post("", {"profile_id": "terse", "profile": {"temperature": 0.5}, "created_by": "bot-7"})
    assert r.status_code == 200 and r.json()["version"] == 2 and r.json()["created_by"] == "bot-7"
    assert api.post("", {"profile_id": "other", "profile": {}}).json()["version"] == 1

    assert api.get("/terse").json()["version"] == 2
    got = api.get("/terse", version=1).json()
    assert got["version"] == 1 and got["profile"]["model"] == "m-1"
    assert [v["version"] for v in api.get("/terse/versions").json()["profiles"]] == [1, 2]
    listed = api.get("").json()["profiles"]
    assert [(p["profile_id"], p["version"]) for p in listed] == [("other", 1), ("terse", 2)]
    assert set(listed[0]) == {"profile_id", "version", "created_at", "created_by"}


def test_duplicate_version_is_409(api):
    assert api.post("", {"profile_id": "dup", "version": 3, "profile": {}}).status_code == 200
    r = api.post("", {"profile_id": "dup", "version": 3, "profile": {"model": "changed"}})
    assert r.status_code == 409
    body = r.json()
    assert body["error_code"] == "CONFLICT" and body["fields"] == ["$.profile_id", "$.version"]
    assert "immutable" in body["message"]
    assert api.get("/dup", version=3).json()["profile"] == {}


def test_not_found_and_other_tenant(api):
    api.post("", {"profile_id": "mine", "profile": {}})
    r = api.get("/missing")
    assert (
        r.status_code == 404 and r.json()["error_code"] == "NOT_FOUND" and r.json()["fields"] == ["$.path.profile_id"]
    )
    r = api.get("/mine", version=9)
    assert r.status_code == 404 and r.json()["fields"] == ["$.query.version"]
    assert api.get("/missing/versions").status_code == 404
    assert api.get("/mine", version=0).json()["fields"] == ["$.query.version"]

    for other in ({**api.headers, "X-ELF-Tenant-Id": "t-prof-other"}, {**api.headers, "X-ELF-Project-Id": "p2"}):
        assert api.get("/mine", headers=other).status_code == 404
        assert api.get("/mine/versions", headers=other).status_code == 404
        assert "mine" not in {p["profile_id"] for p in api.get("", headers=other).json()["profiles"]}
        assert api.post("/default", {"profile_id": "mine"}, headers=other).status_code == 404


def test_context_headers_required(api):
    r = api.get("", headers={"X-ELF-Tenant-Id": "t"})
    assert r.status_code == 400 and "$.headers.X-ELF-Project-Id" in r.json()["fields"]


def test_validation_errors_name_jsonpaths(api):
    r = api.post(
        "",
        {
            "profile_id": "bad",
            "profile": {
                "schema_version": 2,
                "extra": 1,
                "temperature": 3,
                "timeout_ms": 0,
                "model": "",
                "prompt_schema": [],
                "prompt_user_template": "no placeholders here",
            },
        },
    )
    assert r.status_code == 400 and r.json()["error_code"] == "INVALID_REQUEST"
    assert sorted(r.json()["fields"]) == sorted(
        [
            "$.profile.extra",
            "$.profile.schema_version",
            "$.profile.temperature",
            "$.profile.timeout_ms",
            "$.profile.model",
            "$.profile.prompt_schema",
            "$.profile.prompt_user_template",
        ]
    )
    r = api.post("", {"profile_id": "bad", "version": 0, "profile": "x", "surprise": True})
    assert r.status_code == 400 and set(r.json()["fields"]) == {"$.surprise"}
    r = api.post("", {"profile_id": "bad", "version": 0, "profile": "x"})
    assert r.status_code == 400 and r.json()["fields"] == ["$.version"]
    r = api.post("", {"profile_id": "bad", "profile": "x"})
    assert r.status_code == 400 and r.json()["fields"] == ["$.profile"]
    r = api.post("", {"profile_id": "Профиль", "profile": {}})
    assert r.status_code == 422 and r.json()["fields"] == ["$.profile_id"]
    r = api.post("", {"profile_id": "bad", "profile": {}, "created_by": "Оператор"})
    assert r.status_code == 422 and r.json()["fields"] == ["$.created_by"]
    assert api.get("/bad/versions").status_code == 404  # nothing was stored
    for path in ("/Профиль", "/Профиль/versions"):  # what creating one required
        r = api.get(path)
        assert r.status_code == 422 and r.json()["fields"] == ["$.path.profile_id"], (path, r.content)


def test_default_set_and_get(api):
    assert api.get("/default").status_code == 404
    r = api.post("/default", {"profile_id": "nope"})
    assert r.status_code == 404 and r.json()["fields"] == ["$.profile_id"]
    api.post("", {"profile_id": "base", "profile": {}})
    r = api.post("/default", {"profile_id": "base", "version": 5})
    assert r.status_code == 404 and r.json()["fields"] == ["$.version"]

    r = api.post("/default", {"profile_id": "base"})
    assert r.status_code == 200 and r.json()["profile_id"] == "base" and r.json()["version"] is None
    first = r.json()["updated_at"]
    r = api.post("/default", {"profile_id": "base", "version": 1})
    assert r.status_code == 200 and r.json()["version"] == 1
    got = api.get("/default").json()
    assert got == {"profile_id": "base", "version": 1, "updated_at": got["updated_at"]} and got["updated_at"] >= first
    # A profile named "default" keeps its versions route.
    api.post("", {"profile_id": "default", "profile": {}})
    assert api.get("/default/versions").json()["profiles"][0]["profile_id"] == "default"


def test_profile_problems_accepts_good_profiles():
    assert profile_problems({}) == []
    assert (
        profile_problems(
            {
                "schema_version": 1,
                "prompt_schema": {"notes": []},
                "prompt_user_template": USER_TEMPLATE,
                "prompt_system_template": "Be brief.",
                "model": "m",
                "temperature": 0,
                "timeout_ms": 5000,
            }
        )
        == []
    )
    # Placeholders may live in the system template while the user template carries the messages.
    assert (
        profile_problems(
            {
                "prompt_system_template": "<SCHEMA_JSON> <MAX_NOTES> <MAX_NOTE_CHARS>",
                "prompt_user_template": "<MESSAGES_JSON>",
            }
        )
        == []
    )
    assert profile_problems({"temperature": True}) == [("$.profile.temperature", "must be a number from 0 to 2")]


def test_merge_with_builtin():
    builtin = merge_with_builtin(None)
    assert builtin.prompt == BUILTIN_EXTRACTOR_PROMPT
    assert (builtin.model, builtin.temperature, builtin.timeout_ms, builtin.profile_id, builtin.version) == (
        None,
        None,
        None,
        "builtin",
        1,
    )
    merged = merge_with_builtin(
        {"prompt_user_template": USER_TEMPLATE, "temperature": 1, "timeout_ms": 9}, profile_id="p", version=2
    )
    assert merged.prompt.user_template == USER_TEMPLATE
    assert merged.prompt.system_template == BUILTIN_EXTRACTOR_PROMPT.system_template
    assert merged.prompt.response_schema == RESPONSE_JSON_SCHEMA
    assert (merged.temperature, merged.timeout_ms, merged.model, merged.profile_id, merged.version) == (
        1.0,
        9,
        None,
        "p",
        2,
    )
    own_schema = merge_with_builtin({"prompt_schema": {"notes": ["x"]}})
    assert own_schema.prompt.prompt_schema == {"notes": ["x"]} and own_schema.prompt.response_schema is None


def test_resolve_profile_order():
    ctx = _ctx(f"t-resolve-{uuid.uuid4().hex[:8]}")
    assert resolve_profile(ctx, None).prompt == BUILTIN_EXTRACTOR_PROMPT  # no default: built-in

    create_profile(ctx, profile_id="proj", version=None, profile={"model": "proj-v1"}, created_by="a1")
    create_profile(ctx, profile_id="proj", version=None, profile={"model": "proj-v2"}, created_by="a1")
    create_profile(ctx, profile_id="req", version=None, profile={"model": "req-v1"}, created_by="a1")

    set_default(ctx, profile_id="proj", version=None)  # latest
    r = resolve_profile(ctx, None)
    assert (r.profile_id, r.version, r.model) == ("proj", 2, "proj-v2")
    set_default(ctx, profile_id="proj", version=1)  # pinned
    assert resolve_profile(ctx, None).model == "proj-v1"

    r = resolve_profile(ctx, {"id": "req"})  # the request wins over the default
    assert (r.profile_id, r.version, r.model) == ("req", 1, "req-v1")
    assert resolve_profile(ctx, {"id": "proj", "version": 2}).model == "proj-v2"

    with pytest.raises(NotFound) as missing:
        resolve_profile(ctx, {"id": "ghost"})
    assert missing.value.fields == ["$.ingestion_profile.id"]
    with pytest.raises(NotFound) as missing:
        resolve_profile(ctx, {"id": "req", "version": 7})
    assert missing.value.fields == ["$.ingestion_profile.version"]
    # Scoped: another project sees neither the profiles nor the default.
    other = RequestContext(tenant_id=ctx.tenant_id, project_id="p2", agent_id="a1", read_profile=None)
    assert (resolve_profile(other, None).profile_id, resolve_profile(other, None).version) == ("builtin", 1)


def test_django_admin_lists_profiles(admin_client, admin_port):
    ctx = _ctx(f"t-adm-{uuid.uuid4().hex[:8]}")
    create_profile(ctx, profile_id="shown", version=4, profile={}, created_by="a1")
    set_default(ctx, profile_id="shown", version=None)
    r = admin_client.get(f"/admin/memory/memoryingestionprofile/?tenant_id={ctx.tenant_id}", SERVER_PORT=admin_port)
    html = r.content.decode()
    assert r.status_code == 200 and "shown" in html and "default (latest)" in html
