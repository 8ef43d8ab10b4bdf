"""A real elf-mcp process in front of recording fake APIs: what exactly it sends (headers, URL, body) and how
it turns answers and failures into tool results. Also its start-up refusals."""

from __future__ import annotations

import json
import subprocess

import pytest

from elf_infra.qdrant_server.launcher import free_port
from tests.conftest import entry_point, mcp_call, mcp_session, start_elf_mcp, write_mcp_config
from tests.fake_provider_server import FakeProviderServer, FakeResponse

MCP_CONTEXT = {"tenant_id": "t-fwd", "project_id": "p-fwd", "agent_id": "a-fwd"}  # read_profile omitted on purpose
USER_TOKEN, ADMIN_TOKEN = "user-token-0123456789", "admin-token-0123456789"


def _key(token_id: str, token: str, role: str, **context) -> dict:
    return {"token_id": token_id, "token": token, **MCP_CONTEXT, **context, "role": role}


def _binds(public: FakeProviderServer | None, admin: FakeProviderServer | None):
    def mutate(data):
        data["service"]["http_bind"] = f"127.0.0.1:{public.port if public else free_port()}"
        data["service"]["admin_bind"] = f"127.0.0.1:{admin.port if admin else free_port()}"
        data["mcp"] = dict(MCP_CONTEXT)
    return mutate


def _static_keys(token_id: str | None, keys: list[dict]):
    def mutate(data):
        data["security"].update(auth_mode="static_keys", auth_keys=keys)
        if token_id is not None:
            data["mcp"]["auth_token_id"] = token_id
    return mutate


def _both(*mutations):
    def mutate(data):
        for m in mutations:
            m(data)
    return mutate


@pytest.fixture
def start_mcp(tmp_path):
    """``start_mcp(mutate) -> url``: an elf-mcp process for one test."""
    procs = []

    def start(mutate) -> str:
        n = len(procs)
        proc, url = start_elf_mcp(write_mcp_config(tmp_path / f"elf{n}.toml", mutate), tmp_path / f"mcp{n}.log")
        procs.append(proc)
        return url

    yield start
    for p in procs:
        p.stop()


@pytest.fixture(scope="module")
def fakes():
    public, admin = FakeProviderServer().start(), FakeProviderServer().start()
    yield public, admin
    public.stop()
    admin.stop()


@pytest.fixture(scope="module")
def url(fakes, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("mcp-fwd")
    proc, url = start_elf_mcp(write_mcp_config(workdir / "elf.toml", _binds(*fakes)), workdir / "mcp.log")
    yield url
    proc.stop()


@pytest.fixture
def public(fakes):
    fakes[0].reset()
    fakes[1].reset()
    return fakes[0]


@pytest.fixture
def admin(fakes, public):
    return fakes[1]


def test_every_call_carries_the_mcp_context_and_the_spec_default_read_profile(url, public, admin):
    public.respond("/v2/notes", FakeResponse(json={"notes": [], "next_cursor": None}))
    admin.respond("/v2/admin/traces/recent", FakeResponse(json={"schema": "elf.recent_traces/v1", "traces": []}))
    listed = mcp_call(url, "elf_notes_list")
    recent = mcp_call(url, "elf_admin_traces_recent")
    assert not listed.is_error and listed.structured_content == {"notes": [], "next_cursor": None}
    assert not recent.is_error and recent.structured_content["schema"] == "elf.recent_traces/v1"
    (to_public,), (to_admin,) = public.requests, admin.requests
    for req in (to_public, to_admin):
        assert req.method == "GET"
        assert req.header("X-ELF-Tenant-Id") == "t-fwd"
        assert req.header("X-ELF-Project-Id") == "p-fwd"
        assert req.header("X-ELF-Agent-Id") == "a-fwd"
        assert req.header("X-ELF-Read-Profile") == "private_plus_project"  # [mcp].read_profile is omitted
        assert req.header("Authorization") is None  # security.auth_mode is off


def test_body_reaches_the_api_untouched(url, public):
    public.respond("/v2/notes/ingest", FakeResponse(json={"results": []}))
    args = {"scope": "nowhere", "notes": [{"type": 7, "text": "Привет, мир. " * 100, "bogus": {"a": [1, None, 2.5]}}],
            "unknown": True}
    assert not mcp_call(url, "elf_notes_ingest", args).is_error
    (req,) = public.requests
    assert (req.method, req.path, req.json) == ("POST", "/v2/notes/ingest", args)
    assert req.header("Content-Type") == "application/json"


def test_path_arguments_go_into_the_url_and_the_rest_into_the_query_or_body(url, public):
    public.respond("/v2/notes/n-1/publish", FakeResponse(json={"note_id": "n-1", "space": "team_shared"}))
    mcp_call(url, "elf_searches_get", {"search_id": "a/../b c", "top_k": 3, "touch": False})
    mcp_call(url, "elf_notes_list", {"scope": None, "limit": 2, "cursor": "c=1&x"})
    published = mcp_call(url, "elf_notes_publish", {"note_id": "n-1", "space": "team_shared"})
    searched, listed, publish = public.requests
    assert searched.path == "/v2/searches/a%2F..%2Fb%20c?top_k=3&touch=false"
    assert listed.path == "/v2/notes?limit=2&cursor=c%3D1%26x"  # a null argument is left out
    assert (publish.path, publish.json) == ("/v2/notes/n-1/publish", {"space": "team_shared"})
    assert published.structured_content == {"note_id": "n-1", "space": "team_shared"}


def test_a_missing_path_argument_is_a_tool_error_and_sends_nothing(url, public):
    result = mcp_call(url, "elf_notes_get", {})
    assert result.is_error
    assert result.structured_content["error_code"] == "ELF_MCP_MISSING_PATH_PARAM"
    assert result.structured_content["fields"] == ["$.note_id"]
    assert public.requests == []


def test_read_profile_argument_overrides_the_header_for_one_search(url, public):
    public.respond("/v2/searches", FakeResponse(json={"items": []}))
    mcp_call(url, "elf_searches_create", {"query": "Which editor theme?", "read_profile": "all_scopes"})
    mcp_call(url, "elf_searches_create", {"query": "Which editor theme?", "read_profile": "everything"})
    mcp_call(url, "elf_searches_create", {"query": "Which editor theme?"})
    assert [r.header("X-ELF-Read-Profile") for r in public.requests] == ["all_scopes", "everything",
                                                                           "private_plus_project"]
    assert all(r.json == {"query": "Which editor theme?"} for r in public.requests)


def test_v1_tools_send_v1_bodies_with_the_mcp_ids_and_refuse_another_identity(url, public):
    public.respond("/v1/memory/search", FakeResponse(json={"items": []}))
    listed_at = "/v1/memory/list?scope=agent_private&tenant_id=t-fwd&project_id=p-fwd&agent_id=a-fwd"
    public.respond(listed_at, FakeResponse(json={"notes": [], "next_cursor": None}))
    public.respond("/v1/memory/update", FakeResponse(json={"note_id": "n-1", "op": "NONE", "reason_code": None}))
    assert not mcp_call(url, "memory_search", {"query": "Which editor theme?"}).is_error
    assert not mcp_call(url, "memory_search", {"query": "q", "read_profile": "all_scopes", "agent_id": None}).is_error
    assert not mcp_call(url, "memory_list", {"scope": "agent_private"}).is_error
    assert not mcp_call(url, "memory_update", {"note_id": "n-1", "importance": 0.5}).is_error
    first, second, listed, updated = public.requests
    assert first.json == {"query": "Which editor theme?", **MCP_CONTEXT, "read_profile": "private_plus_project"}
    assert second.json == {"query": "q", **MCP_CONTEXT, "read_profile": "all_scopes"}  # a per-call choice
    assert listed.path == listed_at  # the list's ids go into its query string
    assert (updated.path, updated.json) == ("/v1/memory/update", {"note_id": "n-1", "importance": 0.5, **MCP_CONTEXT})
    public.reset()
    for tool, args in (("memory_add_note", {"scope": "agent_private", "notes": [], "tenant_id": "t-other"}),
                       ("memory_delete", {"note_id": "n-1", "agent_id": "a-other"}),
                       ("memory_list", {"project_id": "p-other"})):
        result = mcp_call(url, tool, args)
        code = "ELF_MCP_TENANT_MISMATCH" if "tenant_id" in args else "ELF_MCP_CONTEXT_MISMATCH"
        assert result.is_error and result.structured_content["error_code"] == code, result.structured_content
    assert public.requests == []


def test_an_argument_http_cannot_carry_is_refused_and_nothing_is_sent(url, public):
    result = mcp_call(url, "elf_searches_create", {"query": "q", "read_profile": "all_scopes\r\nX-ELF-Agent-Id: root"})
    assert result.is_error
    assert result.structured_content["error_code"] == "ELF_MCP_UNSENDABLE_REQUEST"
    assert public.requests == []


def test_api_error_body_comes_back_as_a_tool_error_with_the_http_status(url, public):
    body = {"error_code": "NON_ENGLISH_INPUT", "message": "Non-English input detected.", "fields": ["$.notes[0].text"]}
    public.respond("/v2/notes/ingest", FakeResponse(status=422, json=body))
    result = mcp_call(url, "elf_notes_ingest", {"scope": "agent_private", "notes": []})
    assert result.is_error
    assert result.structured_content == {**body, "http_status": 422}
    assert json.loads(result.content[0].text) == {**body, "http_status": 422}


def test_an_answer_without_the_error_body_is_elf_api_bad_response(url, public):
    public.respond("/v2/notes", FakeResponse(status=502, body="Bad gateway"))
    result = mcp_call(url, "elf_notes_list")
    assert result.is_error
    assert result.structured_content["error_code"] == "ELF_API_BAD_RESPONSE"
    assert (result.structured_content["http_status"], result.structured_content["body"]) == (502, "Bad gateway")


def test_unknown_tool_is_a_tool_error(url, public):
    result = mcp_call(url, "elf_notes_forget_everything")
    assert result.is_error and result.structured_content["error_code"] == "ELF_MCP_UNKNOWN_TOOL"
    assert public.requests == []


def test_unreachable_api_is_elf_api_unavailable(start_mcp):
    url = start_mcp(_binds(None, None))  # nothing listens on either bind
    for tool, args in (("elf_notes_list", {}), ("elf_admin_trace_get", {"trace_id": "t"})):
        result = mcp_call(url, tool, args)
        assert result.is_error
        assert result.structured_content["error_code"] == "ELF_API_UNAVAILABLE"


def test_static_keys_user_key_sends_its_token_and_disables_admin_tools(start_mcp, fakes, public, admin):
    keys = [_key("mcp-user", USER_TOKEN, "user"), _key("ops", ADMIN_TOKEN, "admin", agent_id="ops")]
    url = start_mcp(_both(_binds(*fakes), _static_keys("mcp-user", keys)))
    public.respond("/v2/notes", FakeResponse(json={"notes": [], "next_cursor": None}))
    assert not mcp_call(url, "elf_notes_list").is_error
    assert public.requests[0].header("Authorization") == f"Bearer {USER_TOKEN}"
    result = mcp_call(url, "elf_admin_traces_recent")
    assert result.is_error and result.structured_content["error_code"] == "ELF_MCP_TOOL_DISABLED"
    assert admin.requests == []  # failed closed: nothing was sent
    tools = mcp_session(url, lambda s: s.list_tools()).tools
    admin_tools = [t for t in tools if t.name.startswith("elf_admin_")]
    assert admin_tools and all(t.description.startswith("DISABLED") for t in admin_tools)
    assert not any(t.description.startswith("DISABLED") for t in tools if not t.name.startswith("elf_admin_"))


def test_static_keys_admin_key_reaches_the_admin_api(start_mcp, fakes, public, admin):
    url = start_mcp(_both(_binds(*fakes), _static_keys("mcp-admin", [_key("mcp-admin", ADMIN_TOKEN, "admin")])))
    admin.respond("/v2/admin/traces/recent", FakeResponse(json={"traces": []}))
    assert not mcp_call(url, "elf_admin_traces_recent").is_error
    assert admin.requests[0].header("Authorization") == f"Bearer {ADMIN_TOKEN}"


def _drop_mcp(data):
    del data["mcp"]


@pytest.mark.parametrize("mutate, expected", [
    (_drop_mcp, "elf-mcp needs an [mcp] section"),
    (_both(_binds(None, None), _static_keys(None, [_key("k", USER_TOKEN, "user")])),
     "set mcp.auth_token_id to the token_id"),
    (_both(_binds(None, None), _static_keys("nope", [_key("k", USER_TOKEN, "user")])),
     "mcp.auth_token_id = 'nope' names no [[security.auth_keys]] entry"),
    (_both(_binds(None, None), _static_keys("k", [_key("k", USER_TOKEN, "user", agent_id="someone-else")])),
     "mcp.agent_id = 'a-fwd' but the key's agent_id = 'someone-else'"),
    (_both(_binds(None, None), _static_keys("k", [_key("k", USER_TOKEN, "user", read_profile="all_scopes")])),
     "mcp.read_profile = 'private_plus_project' but the key's read_profile = 'all_scopes'"),
], ids=["no-mcp-section", "no-token-id", "unknown-token-id", "other-agent", "other-read-profile"])
def test_refuses_to_start_when_it_could_only_fail(tmp_path, mutate, expected):
    config = write_mcp_config(tmp_path / "elf.toml", mutate)
    done = subprocess.run([entry_point("elf-mcp"), "-c", str(config)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert USER_TOKEN not in done.stderr + done.stdout
