"""[security.rate_limits] against real elf-api processes (two gunicorn workers each) and the test stack's Redis.

One runaway API key gets 429 RATE_LIMITED with Retry-After while another key is unaffected; writes have their own
lower budget; a limiter whose Redis is unreachable lets everything through; an omitted table limits nothing.
Without keys the (tenant, project, agent) context headers name the caller (checked in-process on the same Redis).
"""

from __future__ import annotations

import math
import re
import secrets
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
import requests
from django.test import RequestFactory

from elf_config.schema import RateLimitsConfig
from elf_domain.rate_limits import bucket_keys, caller_identity, retry_after_seconds
from elf_infra.qdrant_server.launcher import free_port
from elf_kernel.rate_limit import TokenBuckets, caller_of

RATE, BURST, WRITE_RATE, WRITE_BURST = 5, 5, 1, 2
LIMITS = {"requests_per_second": RATE, "burst": BURST, "write_requests_per_second": WRITE_RATE,
          "write_burst": WRITE_BURST}
TOKENS = {name: secrets.token_urlsafe(24) for name in ("A", "B")}
KEYS = [{"token_id": f"key-{name}", "token": token, "tenant_id": "t1", "project_id": "p1", "agent_id": name.lower(),
         "role": "user"} for name, token in TOKENS.items()]
RETRY_MESSAGE = re.compile(r"^Rate limit exceeded for this caller; retry after \d+ seconds?\.$")


def _limited(extra: dict | None = None):
    def mutate(data: dict) -> None:
        data["security"]["rate_limits"] = {**LIMITS, **(extra or {})}
    return mutate


def _keyed(data: dict) -> None:
    _limited()(data)
    data["security"].update(auth_mode="static_keys", auth_keys=KEYS)


@pytest.fixture(scope="module")
def sets(isolated_services_module):
    made = {
        "keys": isolated_services_module("rl_keys", mutate=_keyed),
        # Nothing listens on a port just found free: every limiter call is refused.
        "store_down": isolated_services_module(
            "rl_store_down", mutate=_limited({"redis_url": f"redis://127.0.0.1:{free_port()}/0"})),
        "off": isolated_services_module("rl_off"),
    }
    with ThreadPoolExecutor(len(made)) as pool:
        list(pool.map(lambda s: s.start_api(), made.values()))
    yield made
    with ThreadPoolExecutor(len(made)) as pool:  # the factory's cleanup would stop them one after another
        list(pool.map(lambda s: s.stop(), made.values()))


def caller(kind: str, name: str) -> dict[str, str]:
    """Request headers of caller ``name``: its API key, or (without keys) its own agent id in the context headers."""
    if kind == "keys":
        return {"Authorization": f"Bearer {TOKENS[name]}"}
    return context_headers(f"agent-{name}-{kind}")


def context_headers(agent: str, tenant: str = "t1", project: str = "p1") -> dict[str, str]:
    return {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": project, "X-ELF-Agent-Id": agent}


def get_context(s, headers: dict) -> requests.Response:
    return requests.get(s.public + "/v2/context", headers=headers, timeout=10)


def assert_429(r: requests.Response) -> int:
    assert r.status_code == 429, r.text
    body = r.json()
    assert body["error_code"] == "RATE_LIMITED" and body["fields"] == [], body
    assert RETRY_MESSAGE.match(body["message"]), body["message"]
    retry_after = r.headers["Retry-After"]
    assert retry_after.isdigit() and int(retry_after) >= 1, retry_after
    assert f"retry after {retry_after} second" in body["message"]
    return int(retry_after)


def test_a_runaway_key_is_limited_and_other_keys_are_not(sets):
    s = sets["keys"]
    # A fires 24 requests 8 at a time (spread over both gunicorn workers); B sends 4 meanwhile, under its burst.
    jobs = [("A", i) for i in range(24)]
    for n in range(4):
        jobs.insert(6 * n, ("B", n))
    start = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda job: (job[0], get_context(s, caller("keys", job[0]))), jobs))
    elapsed = time.monotonic() - start
    a = [r for who, r in results if who == "A"]
    b = [r for who, r in results if who == "B"]
    assert [r.status_code for r in b] == [200] * 4, [r.text for r in b]
    assert {r.status_code for r in a} <= {200, 429}, [r.text for r in a]
    ok = sum(r.status_code == 200 for r in a)
    # One bucket for all API processes: at most the burst plus what refilled meanwhile.
    assert BURST <= ok <= BURST + math.ceil(RATE * elapsed), (ok, elapsed)
    retry_after = max(assert_429(r) for r in a if r.status_code != 200)
    assert retry_after == 1  # a token is back within 1/RATE seconds
    time.sleep(retry_after)
    assert get_context(s, caller("keys", "A")).status_code == 200


def test_writes_have_their_own_lower_budget_and_buckets_expire(sets):
    s, headers = sets["keys"], caller("keys", "B")
    posts = [requests.post(s.public + "/v2/notes/ingest", json={}, headers=headers, timeout=10) for _ in range(3)]
    # The first two are spent by the view (an empty body is invalid); the third is over the write budget.
    assert [r.status_code for r in posts[:2]] == [400, 400], [r.text for r in posts]
    assert assert_429(posts[2]) == 1
    # Reads still have tokens left in the caller's other bucket.
    assert get_context(s, headers).status_code == 200
    store = redis.Redis.from_url(s.cfg.worker.broker_url)
    identity = caller_identity("key-B", ("t1", "p1", "b"), None)
    for key, rate, burst in zip(
        bucket_keys(identity, write=True), (RATE, WRITE_RATE), (BURST, WRITE_BURST), strict=False
    ):
        ttl_ms = store.pttl(key)
        assert 0 < ttl_ms <= burst / rate * 1000 + 1000, (key, ttl_ms)


def test_health_schema_docs_and_admin_pages_are_never_limited(sets):
    s = sets["keys"]
    time.sleep(0.3)  # key A's bucket (one token spent last by the first test) is full again
    headers = caller("keys", "A")
    urls = [
        s.public + "/health",
        s.public + "/openapi.json",
        s.public + "/docs/",
        s.admin + "/admin/login/",
        s.admin + "/health",
    ]
    codes = {requests.get(url, headers=headers, timeout=10).status_code for url in urls * 2}
    assert codes == {200}
    # None of those spent a token of the caller's bucket.
    assert [get_context(s, headers).status_code for _ in range(BURST)] == [200] * BURST


def test_an_unreachable_store_lets_every_request_through(sets):
    s = sets["store_down"]
    headers = caller("store_down", "A")
    codes = [get_context(s, headers).status_code for _ in range(3 * BURST)]
    codes += [
        requests.post(s.public + "/v2/notes/ingest", json={}, headers=headers, timeout=10).status_code
        for _ in range(2 * WRITE_BURST)
    ]
    assert codes == [200] * 3 * BURST + [400] * 2 * WRITE_BURST
    warnings = (s.workdir / "api.log").read_text().count("rate limiter store unavailable")
    assert 1 <= warnings <= 2, warnings  # once per gunicorn worker that met the dead store, within the minute


def test_an_omitted_table_never_limits(sets):
    s = sets["off"]
    assert s.cfg.security.rate_limits is None
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda _: get_context(s, caller("off", "A")).status_code, range(50)))
    assert codes == [200] * 50


def test_retry_after_is_whole_seconds_at_least_one():
    assert [retry_after_seconds(ms) for ms in (1, 200, 1000, 1001, 2500)] == [1, 1, 1, 2, 3]


def test_caller_identity_prefers_the_key_then_the_full_context_then_the_address():
    assert caller_identity("k1", ("t", "p", "a"), "10.0.0.1") == "key:k1"
    assert caller_identity(None, ("t", "p", "a"), "10.0.0.1") == 'context:["t", "p", "a"]'
    assert caller_identity(None, ("t", None, "a"), "10.0.0.1") == "addr:10.0.0.1"
    # Ids holding the separator cannot collide with other ids.
    assert caller_identity(None, ('t", "p', "x", "a"), None) != caller_identity(None, ("t", 'p", "x', "a"), None)
    assert bucket_keys("key:k1", write=False) == bucket_keys("key:k1", write=True)[:1]


def test_without_keys_the_context_headers_name_the_caller(sets):
    # A slow refill: no token comes back during the test.
    limits = RateLimitsConfig(
        requests_per_second=0.01, burst=3, write_requests_per_second=None, write_burst=None, redis_url=None
    )
    buckets = TokenBuckets(limits, sets["keys"].cfg.worker.broker_url)
    run = secrets.token_hex(4)
    factory = RequestFactory()

    def wait(headers: dict, addr: str = "10.1.2.3") -> int | None:
        meta = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}
        return buckets.wait_ms(caller_of(factory.get("/v2/context", REMOTE_ADDR=addr, **meta)), write=False)

    a1, a2 = context_headers(f"a1-{run}"), context_headers(f"a2-{run}")
    assert [wait(a1) for _ in range(3)] == [0, 0, 0]
    assert wait(a1) > 90_000  # about 1/0.01 s until a token is back
    assert wait(a2) == 0  # another agent of the same tenant and project
    assert wait(context_headers(f"a1-{run}", tenant="t2")) == 0
    # Without all three headers the client address is the caller.
    addr, other_addr = f"2001:db8::{run[:4]}:{run[4:]}", f"2001:db8::1:{run[:4]}:{run[4:]}"
    assert [wait({"X-ELF-Tenant-Id": "t1"}, addr) for _ in range(3)] == [0, 0, 0]
    assert wait({}, addr) > 0
    assert wait({}, other_addr) == 0
