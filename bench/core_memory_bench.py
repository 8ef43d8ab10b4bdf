"""elf-bench core-memory -c elf.toml: what memory_resolve costs an agent before each turn.

Against a running API (`make run`, or just elf-api), under one tenant (fresh unless --tenant) it PUTs a
PROFILE.md and a run's SESSION.md as text/markdown, 200 entries each, 50 of their keys in both documents (the
session lines carry the higher priority, so scope precedence decides them: profile wins). It then times N
resolves of 10 random keys with the run, and N resolves of every key (no keys field), and prints p50/p95 of the
client latency (loopback HTTP) and of the server time (Server-Timing: resolve;dur=), each beside its floor: the
same read done in-process in the same run, one psycopg query on storage.postgres.dsn selecting the workspace's
live entries, interleaved with the HTTP requests so drift on a shared machine hits both alike.
"""

from __future__ import annotations

import argparse
import random
import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import requests

from bench.server_timing import duration
from bench.stats import percentile
from bench.target import loopback_base_url
from elf_config import load_config

PROJECT, RUN = "bench", "bench-run-1"
ENTRIES, SHARED = 200, 50
TARGET_SERVER_P95_MS = 10.0
WORDS = [
    "the",
    "user",
    "prefers",
    "short",
    "clear",
    "answers",
    "with",
    "examples",
    "and",
    "plain",
    "words",
    "when",
    "a",
    "task",
    "is",
    "new",
    "or",
    "when",
    "the",
    "topic",
    "needs",
    "care",
    "about",
    "tests",
    "release",
    "notes",
    "code",
    "review",
    "tables",
    "lists",
    "summaries",
    "before",
    "details",
    "after",
    "each",
    "meeting",
    "during",
    "planning",
    "for",
    "every",
    "project",
    "in",
    "the",
    "morning",
    "over",
    "email",
    "on",
    "the",
    "team",
    "page",
]
FLOOR_SQL = (
    "SELECT scope, key, value, priority, updated_at FROM core_memory_entries WHERE tenant_id = %s AND ("
    "(scope = 'profile' AND project_id = %s AND run_id = '') OR (scope = 'session' AND project_id = %s AND run_id = %s)"
    " OR (scope = 'policy' AND project_id = '' AND run_id = ''))"
)


def _value(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12)))


def _line(key: str, value: str, priority: int, ttl: str, source: str, at: datetime) -> str:
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"- key:{key} | value:{value} | priority:{priority} | ttl:{ttl} | source:{source} | updated_at:{stamp}\n"


def documents(rng: random.Random) -> tuple[str, str, list[str], list[str]]:
    """(PROFILE.md, SESSION.md, every distinct key, the keys in both). Times are fixed, so the same seed gives
    the same text and a re-run on the same tenant stores no new version."""
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    shared = [f"bench.shared.k{i:03d}" for i in range(SHARED)]
    profile_keys = [f"bench.profile.k{i:03d}" for i in range(ENTRIES - SHARED)] + shared
    session_keys = [f"bench.session.k{i:03d}" for i in range(ENTRIES - SHARED)] + shared
    profile = "# PROFILE\n\n## Preferences\n" + "".join(
        _line(k, _value(rng), 50, "none", "user_explicit", t0 + timedelta(minutes=i))
        for i, k in enumerate(profile_keys)
    )
    session = "# SESSION\n\n## Context\n" + "".join(
        _line(k, _value(rng), 90 if k in shared else 50, "session_end", "system", t0 + timedelta(minutes=i))
        for i, k in enumerate(session_keys)
    )
    return profile, session, sorted(set(profile_keys) | set(session_keys)), shared


def put(session: requests.Session, url: str, headers: dict, text: str) -> dict:
    r = session.put(url, data=text.encode("utf-8"), headers={**headers, "Content-Type": "text/markdown"}, timeout=60)
    if r.status_code != 200:
        raise SystemExit(f"PUT {url}: {r.status_code} {r.text[:500]}")
    return r.json()


def resolve(session: requests.Session, url: str, headers: dict, keys: list[str] | None) -> tuple[float, float, dict]:
    body = {"run_id": RUN, **({"keys": keys} if keys is not None else {})}
    t0 = time.perf_counter()
    r = session.post(url, json=body, headers=headers, timeout=60)
    client = (time.perf_counter() - t0) * 1000
    if r.status_code != 200:
        raise SystemExit(f"POST {url}: {r.status_code} {r.text[:500]}")
    return client, duration(r.headers, "resolve"), r.json()


def floor(conn: psycopg.Connection, tenant: str, keys: list[str] | None) -> tuple[float, int]:
    sql, params = FLOOR_SQL, [tenant, PROJECT, PROJECT, RUN]
    if keys is not None:
        sql, params = sql + " AND key = ANY(%s)", params + [keys]
    t0 = time.perf_counter()
    rows = conn.execute(sql, params).fetchall()
    return (time.perf_counter() - t0) * 1000, len(rows)


def check(items: list[dict], keys: list[str], shared: list[str]) -> list[str]:
    """What is wrong with a resolve of every key: each key found once, the shared ones decided by scope."""
    problems = []
    if [i["key"] for i in items] != keys:
        problems.append(f"resolve returned {len(items)} keys, expected {len(keys)}")
    wrong = [i["key"] for i in items if i["key"] in shared and (i["provenance"] or {}).get("scope") != "profile"]
    if wrong:
        problems.append(f"{len(wrong)} keys in both documents not decided by PROFILE.md, e.g. {wrong[0]}")
    return problems


def _ms(values: list[float]) -> str:
    return f"p50={percentile(values, 50):.2f} ms p95={percentile(values, 95):.2f} ms"


def report(name: str, n: int, server: list[float], client: list[float], floor_ms: list[float]) -> None:
    p95 = percentile(server, 95)
    verdict = "met" if p95 < TARGET_SERVER_P95_MS else "MISSED"
    print(
        f"resolve {name} (n={n}): server {_ms(server)} (target: p95 under {TARGET_SERVER_P95_MS:.0f} ms, {verdict})"
        f" | client {_ms(client)} | floor (one SQL query in-process) {_ms(floor_ms)}",
        flush=True,
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench core-memory", description=__doc__)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--tenant", help="the tenant to write and read (default: a fresh one)")
    ap.add_argument("--n", type=int, default=300, help="resolves of each kind (and floor queries)")
    ap.add_argument("--warmup", type=int, default=20)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = loopback_base_url(cfg.service.http_bind)
    requests.get(base + "/health", timeout=10).raise_for_status()
    tenant = args.tenant or f"bench-core-{uuid.uuid4().hex[:8]}"
    headers = {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": PROJECT, "X-ELF-Agent-Id": "agent-0"}
    rng = random.Random(7)
    profile, session_md, keys, shared = documents(rng)
    http = requests.Session()
    p = put(http, f"{base}/v2/core-memory/profile.md", headers, profile)
    s = put(http, f"{base}/v2/core-memory/runs/{RUN}/session.md", headers, session_md)
    print(
        f"tenant {tenant}: PROFILE.md {p['entries']} entries ({len(profile.encode())} bytes, version "
        f"{p['doc_version']}, {'changed' if p['changed'] else 'unchanged'}), SESSION.md of run {RUN} "
        f"{s['entries']} entries ({len(session_md.encode())} bytes, version {s['doc_version']}, "
        f"{'changed' if s['changed'] else 'unchanged'}); {len(keys)} distinct keys, {SHARED} in both",
        flush=True,
    )

    url = f"{base}/v2/core-memory/resolve"
    problems = check(resolve(http, url, headers, None)[2]["items"], keys, shared)
    for problem in problems:
        print(f"WRONG: {problem}", flush=True)
    with psycopg.connect(cfg.storage.postgres.dsn, autocommit=True) as conn:
        found = floor(conn, tenant, None)[1]
        if found != 2 * ENTRIES:
            print(f"WRONG: the floor query found {found} live entries, expected {2 * ENTRIES}", flush=True)
            problems.append("floor")
        samples = [rng.sample(keys, 10) for _ in range(args.n)]
        for keys_or_all in ([None] * args.warmup) + samples[: args.warmup]:  # connections open, plans cached
            resolve(http, url, headers, keys_or_all)
            floor(conn, tenant, keys_or_all)
        for name, asks in (("10 random keys", samples), (f"all keys ({len(keys)} items)", [None] * args.n)):
            server, client, floor_ms = [], [], []
            for ask in asks:
                c, sv, _ = resolve(http, url, headers, ask)
                client.append(c)
                server.append(sv)
                floor_ms.append(floor(conn, tenant, ask)[0])
            report(name, args.n, server, client, floor_ms)
    return 1 if problems else 0
