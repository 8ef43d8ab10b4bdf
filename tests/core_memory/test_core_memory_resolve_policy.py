"""memory_resolve without keys lists only the caller's own keys (issue 31 item 6; core-memory-markdown: POLICY.md
is admin only, "No ordinary API route reads raw policy", memory_resolve(keys[]) -> effective values +
provenance), over HTTP with static keys.

Without ``keys`` the public route lists the keys with a live line in the caller's PROFILE.md or the run's
SESSION.md; such a key that POLICY.md overrides reports the policy's value with provenance scope "policy". A key
only POLICY.md has is never enumerated; named in ``keys`` it resolves over all three documents, as before.
"""

from __future__ import annotations

import pytest
import requests

from tests.keys_helpers import Keys

KEYS = Keys(("a", "t1", "proj-a", "agent-a"), ("c", "t1", "proj-b", "agent-c"),
            ("admin", "t1", "proj-a", "ops", "admin"))
POLICY_ONLY = {"scope": "policy", "kind": None, "priority": None, "updated_at": None, "source": None, "ttl": None,
               "expires_at": None}


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("core_memory_resolve_policy", mutate=KEYS.configure)
    s.start_api()
    admin = KEYS.bearer("admin")
    for key, value in (("guard.secret_codename", "Bluebird"), ("response.language", "en-GB")):
        r = requests.post(s.admin + "/v2/admin/core-memory/entries", headers=admin, timeout=30, json={
            "scope": "policy", "kind": "instruction", "key": key, "value": value, "reason": "house rule"})
        assert r.status_code == 200, r.text
    for body in ({"scope": "profile", "kind": "preference", "key": "response.language", "value": "en"},
                 {"scope": "session", "kind": "fact", "key": "task.goal", "value": "ship the report", "run_id": "r1"}):
        r = requests.post(s.public + "/v2/core-memory/entries", headers=bearer("a"), timeout=30,
                          json={**body, "source": "user_explicit"})
        assert r.status_code == 200, r.text
    return s


def bearer(who: str) -> dict[str, str]:
    return KEYS.bearer(who)


def resolve(svc, who: str, **body) -> dict[str, dict]:
    r = requests.post(svc.public + "/v2/core-memory/resolve", headers=bearer(who), json=body, timeout=30)
    assert r.status_code == 200, r.text
    return {i["key"]: i for i in r.json()["items"]}


def test_without_keys_a_policy_only_key_is_not_enumerated(svc):
    got = resolve(svc, "a", run_id="r1")
    assert set(got) == {"response.language", "task.goal"}, got
    # the caller's own key, overridden: the policy's effective value, nothing else of the policy
    assert got["response.language"]["value"] == "en-GB" and got["response.language"]["provenance"] == POLICY_ONLY
    assert got["task.goal"]["value"] == "ship the report" and got["task.goal"]["provenance"]["scope"] == "session"
    assert set(resolve(svc, "a")) == {"response.language"}  # no run: the profile's keys only


def test_a_caller_with_no_memory_of_its_own_lists_nothing(svc):
    assert resolve(svc, "c") == {}  # another project of the tenant: POLICY.md applies, but is not listed
    assert resolve(svc, "c", run_id="r1") == {}


def test_asked_by_name_a_policy_key_still_resolves(svc):
    got = resolve(svc, "c", keys=["guard.secret_codename", "response.language"])
    assert got["guard.secret_codename"]["value"] == "Bluebird"
    assert got["guard.secret_codename"]["provenance"] == POLICY_ONLY
    assert got["response.language"]["value"] == "en-GB"
