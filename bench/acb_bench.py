"""elf-bench acb -c elf.toml: what an Active Context Bundle costs (agent-memory-acb-prd 3, A9-A11), for a session
of 5,000 events in a tenant of 50,000.

Needs the config's API running (`make run`, or just `elf-api -c elf.toml`); the cold start part starts and stops
its own elf-api from a copy of the config on free loopback ports. Under one tenant (fresh unless --tenant):

- the background (--events-tenant minus --events-session events in sessions of --per-session) is loaded by SQL
  COPY in batches to save time: acb_events with one chunk per event in acb_chunks (the event's text, token
  estimate ceil(UTF-8 bytes / 3)), acb_decisions / acb_tasks rows for decision and task_update events and one
  acb_sessions row per session. Texts are English sentences generated deterministically from word lists (an
  engineering team's work: services, failures, fixes, decisions, tool calls and logs) and LoCoMo dialogue turns;
- the measured session's own events go through POST /api/v1/events (4 client threads), so they are chunked,
  redacted and ledgered by the service; the write rate is printed;
- then POST /api/v1/acb/build (max_tokens 65,000, channel private): the fast path (no query_text), the retrieval
  path (query_text from a rotating list of queries that hit the corpus), one agent and then 16 concurrent agents
  (each its own agent_id, not a writer of the session, so each bundle also carries a handoff packet), and the
  cold start: the first bundle after /health answers on a freshly started elf-api, then after each restart.

Every figure is printed beside its floor, the same SQL done in-process (psycopg) in the same run, interleaved with
the requests so that drift on a shared machine hits both alike: for the fast path the recent-window query; for
the retrieval path, one agent and 16 agents (from 16 threads) that plus the kept ranking pool's delta statement
(acb.ranking_pool: what a bundle of a query asked before runs), with the old floor beside it (the full-text pool
query, ts_rank_cd over the newest 2,000 matches, what every bundle ran before issue 35); for a query never asked
before and for the cold start (over a new connection) the recent-window query plus the full pool query. Server
time comes from Server-Timing: acb;dur=. Exit 1 when a bundle is wrong (over budget, pool over 2,000, no Server-Timing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import requests
from psycopg.types.json import Jsonb

from acb.domain.pool_sql import DELTA_SQL, FULL_SQL
from bench.add_note_bench import LOCOMO
from bench.pacing import think
from bench.server_timing import timings
from bench.stats import percentile
from bench.target import loopback_base_url
from elf_config import load_config
from elf_config.toml_writer import dumps
from elf_infra.qdrant_server.launcher import free_port

PROJECT, SESSION, CHANNEL = "bench", "bench-measured", "private"
WRITERS = ("planner", "coder")  # the measured session's agents; fast and retrieval bundles are built by "coder"
PRD_LIMITS = {"fast": 150.0, "retrieval": 500.0, "cold": 1500.0}
TARGETS = {"fast": 50.0, "retrieval": 150.0, "cold": 1000.0}
CONCURRENCY_FACTOR = 2.0  # our target: 16 agents' p95 within 2x one agent's
# Mirrors of acb.domain.vocabulary (bench may not import acb): what a private bundle may read, and the
# importance of each kind.
CHANNELS_VISIBLE = ["private", "team", "agent", "public"]
SENSITIVITIES_ALLOWED = ["none", "low", "high"]
IMPORTANCE = {"decision": 1.0, "task_update": 0.7, "message": 0.5, "artifact": 0.4, "tool_result": 0.4,
              "tool_call": 0.2}
POOL_MAX = 2000
# The two queries of a bundle this bench takes as its floor, as acb.selectors writes them.
POOL_SQL = """
WITH pool AS (
    SELECT c.chunk_id, c.tsv FROM acb_chunks c
     WHERE c.tenant_id = %(t)s AND c.tsv @@ %(q)s::tsquery
       AND c.channel = ANY(%(ch)s) AND c.sensitivity = ANY(%(sens)s)
     ORDER BY c.ts DESC, c.chunk_id DESC LIMIT %(n)s)
SELECT chunk_id, ts_rank_cd(tsv, %(q)s::tsquery) AS rank, count(*) OVER ()
  FROM pool ORDER BY rank DESC, chunk_id LIMIT 200"""
RECENT_SQL = """SELECT chunk_id, event_id, ts, kind, actor_type, actor_id, token_est, text, artifact_id
             FROM acb_chunks
            WHERE tenant_id = %(t)s AND session_id = %(s)s AND channel = ANY(%(ch)s) AND sensitivity = ANY(%(sens)s)
            ORDER BY ts DESC, chunk_id DESC
            LIMIT %(n)s"""
# Since issue 35 a bundle keeps its ranking pool (acb.ranking_pool): the first bundle of a query ranks the pool in
# full (acb.domain.pool_sql's FULL_SQL, which also takes the snapshot), every later one only ranks the chunks
# written since under the kept snapshot (DELTA_SQL). A warm retrieval bundle's own SQL is DELTA_SQL plus the
# recent window; the old floor (POOL_SQL plus the recent window, what every bundle ran before) is printed beside it.
TERMS_SQL = "SELECT lexeme FROM unnest(to_tsvector('english', %s)) ORDER BY positions[1], lexeme"

SUBJECTS = ("billing service", "login page", "search index", "nightly export", "payment webhook", "release pipeline",
            "database schema", "cache layer", "onboarding flow", "mobile client", "audit log", "rate limiter",
            "report generator", "email queue", "config loader", "test suite", "deploy script", "API gateway",
            "backup job", "migration script", "invoice template", "session store", "feature flag service",
            "image resizer")
PROBLEMS = ("fails", "times out", "slows down", "breaks", "needs a review", "passes again", "was refactored",
            "leaks memory", "retries too often", "drops events", "returns stale data", "logs too much")
CONDITIONS = ("after the last release", "under heavy load", "when the queue is full", "on the staging server",
              "during the nightly run", "for large customers", "since we upgraded Postgres",
              "when two agents write at once", "in the public channel", "with the new parser", "on Monday mornings",
              "for tenants in Europe")
ACTIONS = ("add a regression test", "roll back the change", "increase the timeout", "split the job into batches",
           "add an index on the tenant column", "cache the result for an hour", "log the request id",
           "ask the user for the expected output", "write a short design note", "pin the library version",
           "move the work to a background worker", "rename the confusing setting", "document the recovery steps",
           "remove the dead code path", "measure it before changing anything", "ask the team lead to review it")
REASONS = ("it keeps the code small", "the customer asked for it", "it is cheaper to run", "the old approach lost data",
           "it matches the existing convention", "it makes the tests deterministic", "the deadline is on Friday",
           "nobody understood the old behaviour", "the logs showed the same error twice", "it is easy to undo")
MODULES = ("billing", "auth", "search", "export", "webhooks", "pipeline", "schema", "cache", "onboarding", "mobile",
           "audit", "limits", "reports", "mail", "config", "deploy")
TOOLS = ("fs.read_file", "shell.run", "git.diff", "db.query", "http.get")
QUERIES = ("why does the billing service time out under heavy load", "what did we decide about the search index",
           "rollback plan for the migration script", "which tests fail in the release pipeline",
           "add an index on the tenant column", "memory leak in the email queue", "rate limiter retries too often",
           "who reviewed the database schema change", "nightly export drops events on the staging server",
           "Caroline adoption agency support group", "Melanie painting and pottery with the kids",
           "open tasks for the onboarding flow", "cache the result for an hour", "audit log in the public channel",
           "config loader after the Postgres upgrade", "deploy script pinned library version")
WITHHELD = {"withheld": True, "reason": "sensitivity secret: never stored"}
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


# --- Deterministic event content -------------------------------------------------------------------------------

def locomo_turns(limit: int = 6000) -> list[tuple[str, str]]:
    """(speaker, text) of LoCoMo dialogue turns in file order (ASCII only; none when the file is missing)."""
    if not LOCOMO.exists():
        return []
    out = []
    for conv in json.loads(LOCOMO.read_text()):
        for key, turns in conv["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                out += [(t["speaker"], t["text"]) for t in turns if t.get("text", "").isascii() and len(t["text"]) > 20]
    return out[:limit]


def _sentence(rng: random.Random) -> str:
    s, p, c, a, r = (rng.choice(x) for x in (SUBJECTS, PROBLEMS, CONDITIONS, ACTIONS, REASONS))
    return rng.choice((
        f"The {s} {p} {c}. I think we should {a}.",
        f"Can you check why the {s} {p} {c}?",
        f"I looked at the {s}: it {p} {c}, so the next step is to {a}.",
        f"Status update on the {s}: {rng.randint(3, 9)} of {rng.randint(10, 20)} checks pass; we still need to {a}.",
        f"We agreed to {a} because {r}.",
        f"Please {a} before we touch the {s} again, since {r}.",
    ))


def _pick(rng: random.Random, table: tuple[tuple[str, float], ...]) -> str:
    x = rng.random()
    for name, upto in table:
        if x < upto:
            return name
    return table[-1][0]


KIND_TABLE = (("message", 0.55), ("tool_call", 0.70), ("tool_result", 0.85), ("decision", 0.90), ("task_update", 1.0))
CHANNEL_TABLE = (("private", 0.75), ("team", 0.87), ("public", 0.95), ("agent", 1.0))
SENSITIVITY_TABLE = (("none", 0.88), ("low", 0.95), ("high", 0.99), ("secret", 1.0))


def make_event(rng: random.Random, agents: tuple[str, ...], turns: list[tuple[str, str]]) -> dict:
    """One event as POST /api/v1/events takes it (without tenant, session and agent): kind, channel, actor, ..."""
    kind = _pick(rng, KIND_TABLE)
    agent = rng.choice(agents)
    subject = rng.choice(SUBJECTS)
    ev = {"agent_id": agent, "kind": kind, "channel": _pick(rng, CHANNEL_TABLE),
          "sensitivity": _pick(rng, SENSITIVITY_TABLE), "tags": ["topic:" + subject.replace(" ", "-")], "refs": []}
    if kind == "message":
        if turns and rng.random() < 0.4:
            speaker, text = turns[rng.randrange(len(turns))]
            ev["actor"], ev["content"] = {"type": "human", "id": speaker.lower()}, {"text": text}
        else:
            human = rng.random() < 0.5
            ev["actor"] = {"type": "human", "id": "user"} if human else {"type": "agent", "id": agent}
            ev["content"] = {"text": " ".join(_sentence(rng) for _ in range(rng.randint(1, 3)))}
        return ev
    module = rng.choice(MODULES)
    tool = rng.choice(TOOLS)
    if kind == "tool_call":
        args = {
            "fs.read_file": {"path": f"src/{module}/{rng.choice(MODULES)}.py"},
            "shell.run": {"cmd": f"pytest tests/test_{module}.py -q"},
            "git.diff": {"ref": f"HEAD~{rng.randint(1, 9)}"},
            "db.query": {"sql": f"SELECT count(*) FROM {module}_jobs WHERE tenant_id = $1"},
            "http.get": {"url": f"http://localhost:8080/{module}/status"},
        }[tool]
        ev["actor"], ev["content"] = {"type": "agent", "id": agent}, {"tool": tool, "args": args}
    elif kind == "tool_result":
        lines = [
            f"2026-11-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} "
            f"{rng.choice(('INFO', 'WARN', 'ERROR'))} {module}: the {rng.choice(SUBJECTS)} {rng.choice(PROBLEMS)} "
            f"{rng.choice(CONDITIONS)}"
            for _ in range(rng.randint(2, 9))
        ]
        ev["actor"] = {"type": "tool", "id": tool}
        ev["content"] = {"tool": tool, "output": "\n".join(lines), "path": f"logs/{module}.log"}
    elif kind == "decision":
        ev["actor"] = {"type": "agent", "id": agent}
        ev["content"] = {
            "decision": f"We will {rng.choice(ACTIONS)} for the {subject}.",
            "rationale": [f"It helps because {rng.choice(REASONS)}.", _sentence(rng)],
        }
    else:
        action = rng.choice(ACTIONS)
        ev["actor"] = {"type": "agent", "id": agent}
        ev["content"] = {
            "title": f"{action[0].upper()}{action[1:]} for the {subject}",
            "status": rng.choice(("open", "doing", "done")),
        }
    return ev


# --- Bulk load by SQL (the background of the tenant) -----------------------------------------------------------


def ulid(ms: int, rng: random.Random) -> str:
    value = (ms << 80) | rng.getrandbits(80)
    return "".join(_ALPHABET[(value >> shift) & 31] for shift in range(125, -1, -5))


def stored_text(kind: str, content: dict) -> tuple[dict, str]:
    """(content as the service stores it, its text) — acb.domain.event_text.event_text, simplified."""
    if kind == "message":
        return content, content["text"]
    if kind == "tool_call":
        return content, f"call {content['tool']} {json.dumps(content['args'], sort_keys=True, ensure_ascii=False)}"
    if kind == "tool_result":
        out = content["output"]
        stored = {
            "tool": content["tool"],
            "path": content["path"],
            "excerpt_text": out,
            "truncated": False,
            "line_range": [1, out.count("\n") + 1],
            "output_bytes": len(out.encode()),
        }
        return stored, f"{content['tool']} result for {content['path']}:\n{out}"
    if kind == "decision":
        return content, "\n".join(
            [f"Decision: {content['decision']}", *(f"Rationale: {r}" for r in content["rationale"])]
        )
    return content, f"Task {content['title']} [{content['status']}]"


def content_key(text: str) -> str:
    return hashlib.blake2b(" ".join(text.lower().split()).encode("utf-8"), digest_size=16).hexdigest()


def bulk_load(
    dsn: str, tenant: str, start: int, total: int, per_session: int, batch: int, turns: list[tuple[str, str]]
) -> float:
    """Background events start..total-1 of the tenant (event i is event i % per_session of session
    i // per_session, sessions six hours apart from 40 days ago, events 15 s apart)."""
    t0 = time.perf_counter()
    origin = datetime.now(UTC) - timedelta(days=40)
    with psycopg.connect(dsn) as conn:
        for lo in range(start, total, batch):
            events, chunks, decisions, tasks, sessions = [], [], [], [], {}
            for i in range(lo, min(total, lo + batch)):
                k, j = divmod(i, per_session)
                rng = random.Random(f"{tenant}/{i}")
                agents = tuple(f"agent-{(k + d) % 7}" for d in range(3))
                ev = make_event(rng, agents, turns)
                sid = f"bench-bg-{k:04d}"
                ts = origin + timedelta(hours=6 * k, seconds=15 * j + rng.random())
                event_id = "evt_" + ulid(int(ts.timestamp() * 1000), rng)
                kind, sens = ev["kind"], ev["sensitivity"]
                content, text = stored_text(kind, ev["content"])
                if sens == "secret":
                    content = dict(WITHHELD)
                events.append(
                    (
                        event_id,
                        ts,
                        tenant,
                        PROJECT,
                        sid,
                        ev["agent_id"],
                        ev["channel"],
                        ev["actor"]["type"],
                        ev["actor"]["id"],
                        kind,
                        sens,
                        ev["tags"],
                        Jsonb(content),
                        [],
                    )
                )
                s = sessions.setdefault(sid, [set(), 0, ts, ts])
                s[0].add(ev["agent_id"])
                s[1] += 1
                s[2], s[3] = min(s[2], ts), max(s[3], ts)
                if sens == "secret":
                    continue
                chunk_id = f"chk_{event_id.removeprefix('evt_')}_0"
                chunks.append(
                    (
                        chunk_id,
                        tenant,
                        PROJECT,
                        sid,
                        event_id,
                        0,
                        ts,
                        kind,
                        ev["channel"],
                        sens,
                        ev["tags"],
                        max(1, math.ceil(len(text.encode("utf-8")) / 3)),
                        IMPORTANCE[kind],
                        text,
                        content_key(text),
                    )
                )
                if kind == "decision":
                    c = ev["content"]
                    decisions.append(
                        (
                            "dec_" + ulid(int(ts.timestamp() * 1000), rng),
                            tenant,
                            PROJECT,
                            sid,
                            ev["agent_id"],
                            event_id,
                            ev["channel"],
                            sens,
                            ts,
                            "active",
                            "project",
                            c["decision"],
                            c["rationale"],
                            [event_id, chunk_id],
                            "\n".join([c["decision"], *c["rationale"]]),
                        )
                    )
                elif kind == "task_update":
                    c = ev["content"]
                    tasks.append(
                        (
                            "tsk_" + ulid(int(ts.timestamp() * 1000), rng),
                            tenant,
                            PROJECT,
                            sid,
                            ev["agent_id"],
                            ts,
                            c["status"],
                            c["title"],
                            [event_id],
                        )
                    )
            with conn.cursor() as cur:
                for table, cols, rows in (
                    (
                        "acb_events",
                        "event_id, ts, tenant_id, project_id, session_id, agent_id, channel, actor_type, "
                        "actor_id, kind, sensitivity, tags, content, refs",
                        events,
                    ),
                    (
                        "acb_chunks",
                        "chunk_id, tenant_id, project_id, session_id, event_id, ord, ts, kind, channel, "
                        "sensitivity, tags, token_est, importance, text, text_hash",
                        chunks,
                    ),
                    (
                        "acb_decisions",
                        "decision_id, tenant_id, project_id, session_id, agent_id, event_id, "
                        "channel, sensitivity, ts, status, scope, decision, rationale, refs, search_text",
                        decisions,
                    ),
                    (
                        "acb_tasks",
                        "task_id, tenant_id, project_id, session_id, agent_id, ts, status, title, refs",
                        tasks,
                    ),
                ):
                    with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as cp:
                        for row in rows:
                            cp.write_row(row)
                cur.executemany(
                    """INSERT INTO acb_sessions (tenant_id, session_id, project_id, agents, event_count, first_ts,
                                                last_ts)
                       VALUES (%s, %s, %s, %s, %s, %s, %s)
                       ON CONFLICT (tenant_id, project_id, session_id) DO UPDATE SET
                         event_count = acb_sessions.event_count + EXCLUDED.event_count,
                         first_ts = LEAST(acb_sessions.first_ts, EXCLUDED.first_ts),
                         last_ts = GREATEST(acb_sessions.last_ts, EXCLUDED.last_ts),
                         agents = ARRAY(SELECT DISTINCT a FROM unnest(acb_sessions.agents || EXCLUDED.agents) a
                                        ORDER BY a)""",
                    [(tenant, sid, PROJECT, sorted(a), n, f, la) for sid, (a, n, f, la) in sessions.items()],
                )
            conn.commit()
            done = min(total, lo + batch)
            print(
                f"  SQL: {done - start} of {total - start} background events ({len(chunks)} chunks in the last batch)"
                f" after {time.perf_counter() - t0:.1f} s",
                flush=True,
            )
        conn.execute("ANALYZE acb_events")
        conn.execute("ANALYZE acb_chunks")
        conn.execute("ANALYZE acb_decisions")
        conn.execute("ANALYZE acb_tasks")
        conn.commit()
    return time.perf_counter() - t0


# --- The measured session through the API ---------------------------------------------------------------------


def post_events(
    base: str, tenant: str, start: int, total: int, turns: list[tuple[str, str]], threads: int
) -> tuple[float, list[float]]:
    bodies = []
    for i in range(start, total):
        ev = make_event(random.Random(f"{tenant}/{SESSION}/{i}"), WRITERS, turns)
        bodies.append({"tenant_id": tenant, "session_id": SESSION, "project_id": PROJECT, **ev})
    local = threading.local()

    def send(body: dict) -> float:
        http = getattr(local, "http", None) or requests.Session()
        local.http = http
        t0 = time.perf_counter()
        r = http.post(f"{base}/api/v1/events", json=body, timeout=120)
        if r.status_code != 200:
            raise SystemExit(f"POST /api/v1/events: {r.status_code} {r.text[:500]}")
        return (time.perf_counter() - t0) * 1000

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        times = list(pool.map(send, bodies))
    return time.perf_counter() - t0, times


# --- Bundles and floors ----------------------------------------------------------------------------------------


class Checks:
    def __init__(self, max_tokens: int):
        self.max_tokens, self.problems = max_tokens, []

    def bundle(self, r: requests.Response) -> tuple[float, dict]:
        if r.status_code != 200:
            raise SystemExit(f"POST /api/v1/acb/build: {r.status_code} {r.text[:500]}")
        timing = timings(r.headers)
        if "acb" not in timing:
            self.problems.append("no Server-Timing: acb;dur= header")
            return math.nan, r.json()
        body = r.json()
        if body["token_used_est"] > self.max_tokens:
            self.problems.append(f"bundle of {body['token_used_est']} tokens over its budget {self.max_tokens}")
        if body["provenance"]["candidate_pool_size"] > POOL_MAX:
            self.problems.append(f"candidate pool {body['provenance']['candidate_pool_size']} over {POOL_MAX}")
        return timing["acb"], body


def build(
    http: requests.Session, base: str, checks: Checks, tenant: str, agent: str, query: str | None
) -> tuple[float, float, dict]:
    body = {
        "tenant_id": tenant,
        "session_id": SESSION,
        "agent_id": agent,
        "project_id": PROJECT,
        "channel": CHANNEL,
        "max_tokens": checks.max_tokens,
    }
    if query:
        body["query_text"] = query
    t0 = time.perf_counter()
    r = http.post(f"{base}/api/v1/acb/build", json=body, timeout=120)
    client = (time.perf_counter() - t0) * 1000
    server, out = checks.bundle(r)
    return client, server, out


class Floor:
    """The bundle's own SQL, in-process over one psycopg connection."""

    def __init__(self, dsn: str, tenant: str, max_tokens: int):
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.tenant, self.recent_n = tenant, 200  # one page of acb.selectors.recent_chunks
        self.tsq: dict[str, str] = {}
        self.snapshots: dict[str, str] = {}  # query -> the snapshot its kept pool was last brought up to date under

    def tsquery(self, text: str) -> str:
        if text not in self.tsq:
            terms = [r[0] for r in self.conn.execute(TERMS_SQL, (text,))]
            self.tsq[text] = " | ".join("'" + t.replace("'", "''") + "'" for t in terms)
        return self.tsq[text]

    def params(self, **more) -> dict:
        return {"t": self.tenant, "p": PROJECT, "s": SESSION, "ch": CHANNELS_VISIBLE, "sens": SENSITIVITIES_ALLOWED,
                **more}

    def recent(self) -> float:
        t0 = time.perf_counter()
        self.conn.execute(RECENT_SQL, self.params(n=self.recent_n)).fetchall()
        return (time.perf_counter() - t0) * 1000

    def pool(self, query: str, limit: int = POOL_MAX) -> tuple[float, int]:
        q = self.tsquery(query)
        t0 = time.perf_counter()
        rows = self.conn.execute(POOL_SQL, self.params(q=q, n=limit)).fetchall()
        return (time.perf_counter() - t0) * 1000, len(rows)

    def kept_pool(self, query: str) -> float:
        """A warm bundle's pool SQL: the chunks written since the kept snapshot (the first call per query ranks the
        pool in full, as the service's first bundle of a query does, untimed: it is that query's one cold bundle)."""
        q = self.tsquery(query)
        if query not in self.snapshots:
            self.snapshots[query] = self.conn.execute(FULL_SQL, self.params(q=q, n=POOL_MAX)).fetchone()[0]
        t0 = time.perf_counter()
        row = self.conn.execute(DELTA_SQL, self.params(q=q, snap=self.snapshots[query])).fetchone()
        ms = (time.perf_counter() - t0) * 1000
        self.snapshots[query] = row[0]
        return ms

    def retrieval(self, query: str) -> float:
        """A warm retrieval bundle's own SQL: the kept pool's delta and the recent window."""
        return self.kept_pool(query) + self.recent()

    def full_pool(self, query: str) -> float:
        """A cold bundle's pool SQL (no kept pool for its query in the process): the pool ranked in full."""
        t0 = time.perf_counter()
        self.conn.execute(FULL_SQL, self.params(q=self.tsquery(query), n=POOL_MAX)).fetchone()
        return (time.perf_counter() - t0) * 1000

    def retrieval_cold(self, query: str) -> float:
        return self.full_pool(query) + self.recent()

    def retrieval_old(self, query: str) -> float:
        """What every retrieval bundle ran before issue 35: the full pool and the recent window."""
        return self.pool(query)[0] + self.recent()

    def close(self) -> None:
        self.conn.close()


def _ms(values: list[float]) -> str:
    return f"p50={percentile(values, 50):.1f} ms p95={percentile(values, 95):.1f} ms"


class Api:
    """An elf-api of this bench's own, from a copy of the config on free loopback ports (for the cold start)."""

    def __init__(self, config: Path, workdir: Path):
        data = tomllib.loads(config.read_text())
        svc = data["service"]
        svc["http_bind"], svc["admin_bind"], svc["mcp_bind"] = (f"127.0.0.1:{free_port()}" for _ in range(3))
        # Beside the original, so that relative paths (stack.data_dir) resolve the same way.
        self.config = config.parent / f".elf-bench-acb-{uuid.uuid4().hex[:6]}.toml"
        self.config.write_text(dumps(data))
        self.base = loopback_base_url(svc["http_bind"])
        self.log_path = workdir / "api-acb-bench.log"
        self.exe = shutil.which("elf-api") or str(Path(sys.executable).with_name("elf-api"))
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 180) -> float:
        """Start it and wait until /health answers 200: the seconds that took."""
        t0 = time.perf_counter()
        with self.log_path.open("a") as log:
            self.proc = subprocess.Popen([self.exe, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"elf-api exited with {self.proc.returncode}; see {self.log_path}")
            try:
                if requests.get(self.base + "/health", timeout=2).status_code == 200:
                    return time.perf_counter() - t0
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"elf-api not healthy within {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def close(self) -> None:
        self.stop()
        self.config.unlink(missing_ok=True)


def cold_start(config: Path, workdir: Path, dsn: str, checks: Checks, tenant: str, restarts: int, warm_n: int) -> dict:
    api = Api(config, workdir)
    out = {"cold": [], "cold_server": [], "second": [], "floor": [], "health_s": [], "warm": [], "warm_server": []}
    try:
        for start in range(restarts + 1):
            if start:
                api.stop()
            out["health_s"].append(api.start())
            http = requests.Session()
            query = QUERIES[start % len(QUERIES)]
            client, server, _ = build(http, api.base, checks, tenant, WRITERS[1], query)
            out["cold"].append(client)
            out["cold_server"].append(server)
            out["second"].append(build(http, api.base, checks, tenant, WRITERS[1], query)[0])
            t0 = time.perf_counter()
            floor = Floor(dsn, tenant, checks.max_tokens)  # a new connection, as a new worker opens one
            floor.retrieval_cold(query)  # a new process keeps no pool: its first bundle ranks in full
            out["floor"].append((time.perf_counter() - t0) * 1000)
            floor.close()
            if start == 0:
                for i in range(warm_n):
                    c, s, _ = build(http, api.base, checks, tenant, WRITERS[1], QUERIES[i % len(QUERIES)])
                    out["warm"].append(c)
                    out["warm_server"].append(s)
            http.close()
    finally:
        api.close()
    return out


def concurrent_agents(base: str, dsn: str, checks: Checks, tenant: str, agents: int, n: int,
                      think_s: float = 0.0) -> dict:
    """``agents`` threads, each building ``n`` retrieval bundles: back to back (``think_s`` 0, the closed loop),
    or paced: an exponential think time of mean ``think_s`` after each answer, as an agent's LLM turn between two
    bundles, the same pacing as ``elf-bench concurrency --mix`` (the first bundle of each after one think time
    too, so the agents do not arrive in lockstep)."""
    barrier = threading.Barrier(agents)
    client, server, floor_ms, old_ms = [], [], [], []
    lock = threading.Lock()

    def agent(a: int) -> None:
        http, rng = requests.Session(), random.Random(f"agent-{a}")
        barrier.wait()
        for i in range(n):
            if think_s > 0:
                think(http, rng, think_s)
            c, s, _ = build(http, base, checks, tenant, f"reviewer-{a:02d}", QUERIES[(a + i) % len(QUERIES)])
            with lock:
                client.append(c)
                server.append(s)

    def floor_agent(a: int, old: bool) -> None:
        f = Floor(dsn, tenant, checks.max_tokens)
        for q in QUERIES:
            f.tsquery(q)
            if not old:
                f.kept_pool(q)  # the pools the service keeps from the bundles before
        barrier.wait()
        for i in range(n):
            q = QUERIES[(a + i) % len(QUERIES)]
            ms = f.retrieval_old(q) if old else f.retrieval(q)
            with lock:
                (old_ms if old else floor_ms).append(ms)
        f.close()

    t0 = time.perf_counter()
    with ThreadPoolExecutor(agents) as pool:
        list(pool.map(agent, range(agents)))
    wall = time.perf_counter() - t0
    for old in (False, True):
        barrier.reset()
        with ThreadPoolExecutor(agents) as pool:
            list(pool.map(floor_agent, range(agents), [old] * agents))
    return {"client": client, "server": server, "floor": floor_ms, "old_floor": old_ms, "wall": wall}


def _met(p95: float, limit: float, target: float) -> str:
    return f"PRD {'yes' if p95 <= limit else 'NO'}, target {'yes' if p95 <= target else 'no'}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="elf-bench acb", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--tenant", help="reuse this tenant (loading only what it lacks); default: a fresh one")
    ap.add_argument("--events-session", type=int, default=5000, help="events of the measured session (API)")
    ap.add_argument("--events-tenant", type=int, default=50000, help="events of the tenant, the session's included")
    ap.add_argument("--per-session", type=int, default=500, help="events per background session")
    ap.add_argument("--batch", type=int, default=5000, help="background events per COPY transaction")
    ap.add_argument("--write-threads", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=65000)
    ap.add_argument("--n", type=int, default=200, help="bundles of the fast path and of the retrieval path")
    ap.add_argument("--agents", type=int, default=16)
    ap.add_argument("--agent-n", type=int, default=20, help="bundles per concurrent agent")
    ap.add_argument("--think-s", type=float, default=1.0,
                    help="mean think time of the paced phase's agents between bundles (exponential); 0 skips it")
    ap.add_argument("--single-n", type=int, default=100, help="bundles of the one agent measured right before")
    ap.add_argument("--new-query-n", type=int, default=50, help="retrieval bundles of a query never asked before")
    ap.add_argument("--restarts", type=int, default=3, help="restarts of the bench's own elf-api (cold start)")
    args = ap.parse_args(argv)
    config = Path(args.config).resolve()
    cfg = load_config(config)
    dsn = cfg.storage.postgres.dsn
    base = loopback_base_url(cfg.service.http_bind)
    requests.get(base + "/health", timeout=10).raise_for_status()
    tenant = args.tenant or f"bench-acb-{uuid.uuid4().hex[:8]}"
    background = max(args.events_tenant - args.events_session, 0)
    turns = locomo_turns()
    checks = Checks(args.max_tokens)
    print(
        f"tenant {tenant}: a session of {args.events_session} events in a tenant of {args.events_tenant} "
        f"({len(turns)} LoCoMo turns available for dialogue); machine: {os.cpu_count()} cores",
        flush=True,
    )

    with psycopg.connect(dsn, autocommit=True) as conn:
        have_bg, have_s = conn.execute(
            "SELECT count(*) FILTER (WHERE session_id <> %(s)s), count(*) FILTER (WHERE session_id = %(s)s) "
            "FROM acb_events WHERE tenant_id = %(t)s",
            {"t": tenant, "s": SESSION},
        ).fetchone()
    if have_bg >= background:
        print(f"background: the tenant already has {have_bg} events outside the session; nothing loaded", flush=True)
    else:
        print(
            f"background: loading events {have_bg}..{background - 1} by SQL COPY (not through the API, to save "
            f"time; one chunk per event, token estimate ceil(UTF-8 bytes / 3))",
            flush=True,
        )
        took = bulk_load(dsn, tenant, have_bg, background, args.per_session, args.batch, turns)
        print(
            f"background: {background - have_bg} events loaded by SQL in {took:.1f} s "
            f"({(background - have_bg) / took:.0f} events/s)",
            flush=True,
        )
    if have_s >= args.events_session:
        print(f"session: already has {have_s} events; nothing posted", flush=True)
    else:
        wall, times = post_events(base, tenant, have_s, args.events_session, turns, args.write_threads)
        n = args.events_session - have_s
        print(
            f"session: {n} events through POST /api/v1/events ({args.write_threads} client threads) in {wall:.1f} s:"
            f" {n / wall:.1f} events/s; per request {_ms(times)}",
            flush=True,
        )
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ANALYZE acb_chunks")
        ev, ch, se = conn.execute(
            "SELECT (SELECT count(*) FROM acb_events WHERE tenant_id = %(t)s), "
            "(SELECT count(*) FROM acb_chunks WHERE tenant_id = %(t)s), "
            "(SELECT count(*) FROM acb_chunks WHERE tenant_id = %(t)s AND session_id = %(s)s)",
            {"t": tenant, "s": SESSION},
        ).fetchone()
    print(f"tenant now: {ev} events, {ch} chunks ({se} of them in the measured session)", flush=True)

    http = requests.Session()
    floor = Floor(dsn, tenant, args.max_tokens)
    for i in range(2 * len(QUERIES)):  # warm-up: connections open, plans and caches warm, every query's pool kept
        build(http, base, checks, tenant, WRITERS[1], None)
        build(http, base, checks, tenant, WRITERS[1], QUERIES[i % len(QUERIES)])
        floor.retrieval(QUERIES[i % len(QUERIES)])
    res: dict[str, dict[str, list[float]]] = {}
    extra: dict[str, list] = {"pool": [], "used_fast": [], "used_ret": [], "pool_ms": [], "pool200_ms": [],
                              "old": [], "one_old": []}

    fast = res["fast"] = {"client": [], "server": [], "floor": []}
    for _ in range(args.n):
        c, s, body = build(http, base, checks, tenant, WRITERS[1], None)
        fast["client"].append(c)
        fast["server"].append(s)
        fast["floor"].append(floor.recent())
        extra["used_fast"].append(body["token_used_est"])
        if body["provenance"]["candidate_pool_size"]:
            checks.problems.append("a fast-path bundle searched (candidate_pool_size > 0)")
    ret = res["retrieval"] = {"client": [], "server": [], "floor": []}
    for i in range(args.n):
        q = QUERIES[i % len(QUERIES)]
        c, s, body = build(http, base, checks, tenant, WRITERS[1], q)
        ret["client"].append(c)
        ret["server"].append(s)
        t_pool, _ = floor.pool(q)
        ret["floor"].append(floor.retrieval(q))
        extra["old"].append(t_pool + floor.recent())
        extra["pool_ms"].append(t_pool)
        extra["pool200_ms"].append(floor.pool(q, 200)[0])
        extra["pool"].append(body["provenance"]["candidate_pool_size"])
        extra["used_ret"].append(body["token_used_est"])
    one = res["one"] = {"client": [], "server": [], "floor": []}
    for i in range(args.single_n):
        q = QUERIES[i % len(QUERIES)]
        c, s, _ = build(http, base, checks, tenant, "reviewer-00", q)
        one["client"].append(c)
        one["server"].append(s)
        one["floor"].append(floor.retrieval(q))
        extra["one_old"].append(floor.retrieval_old(q))
    cold_q = res["new_query"] = {"client": [], "server": [], "floor": []}
    for i in range(args.new_query_n):  # a query no bundle asked before: no process keeps its pool
        q = f"{QUERIES[i % len(QUERIES)]} {uuid.uuid4().hex[:10]}"
        c, s, _ = build(http, base, checks, tenant, WRITERS[1], q)
        cold_q["client"].append(c)
        cold_q["server"].append(s)
        cold_q["floor"].append(floor.retrieval_cold(q))
    floor.close()
    print(
        f"fast path (no query_text, n={args.n}): server {_ms(fast['server'])}, client {_ms(fast['client'])} | "
        f"floor (recent-window SQL, {floor.recent_n} rows asked) {_ms(fast['floor'])}; bundles of "
        f"{min(extra['used_fast'])}-{max(extra['used_fast'])} tokens",
        flush=True,
    )
    print(
        f"retrieval path (n={args.n}, {len(QUERIES)} rotating queries): server {_ms(ret['server'])}, client "
        f"{_ms(ret['client'])} | floor (kept pool's delta SQL + recent-window SQL) {_ms(ret['floor'])}; old floor "
        f"(full pool SQL + recent-window SQL) {_ms(extra['old'])}; full pool SQL alone "
        f"{_ms(extra['pool_ms'])}, with LIMIT 200 {_ms(extra['pool200_ms'])}; candidate_pool_size "
        f"min={min(extra['pool'])} median={percentile(extra['pool'], 50)} max={max(extra['pool'])}; bundles of "
        f"{min(extra['used_ret'])}-{max(extra['used_ret'])} tokens",
        flush=True,
    )
    print(
        f"one agent (reviewer-00, not a writer: a handoff packet too, n={args.single_n}): server "
        f"{_ms(one['server'])}, client {_ms(one['client'])} | floor {_ms(one['floor'])}; old floor "
        f"{_ms(extra['one_old'])}",
        flush=True,
    )
    print(
        f"retrieval, a query never asked before (pool ranked in full, n={args.new_query_n}): server "
        f"{_ms(cold_q['server'])}, client {_ms(cold_q['client'])} | floor (full pool SQL + recent-window SQL) "
        f"{_ms(cold_q['floor'])}",
        flush=True,
    )

    conc = concurrent_agents(base, dsn, checks, tenant, args.agents, args.agent_n)
    res["conc"] = conc
    total = args.agents * args.agent_n
    print(
        f"{args.agents} concurrent agents x {args.agent_n} retrieval bundles: server {_ms(conc['server'])}, client "
        f"{_ms(conc['client'])} ({total / conc['wall']:.1f} bundles/s over {conc['wall']:.1f} s) | floor "
        f"({args.agents} threads, own connections: kept pool's delta SQL + recent-window SQL) {_ms(conc['floor'])};"
        f" old floor (full pool SQL + recent-window SQL) {_ms(conc['old_floor'])}",
        flush=True,
    )

    if args.think_s > 0:
        paced = concurrent_agents(base, dsn, checks, tenant, args.agents, args.agent_n, think_s=args.think_s)
        res["paced"] = paced
        print(
            f"{args.agents} paced agents (think time {args.think_s:g} s mean) x {args.agent_n} retrieval bundles: "
            f"server {_ms(paced['server'])}, client {_ms(paced['client'])} ({total / paced['wall']:.1f} bundles/s "
            f"over {paced['wall']:.1f} s) | floor ({args.agents} threads back to back: kept pool's delta SQL + "
            f"recent-window SQL) {_ms(paced['floor'])}",
            flush=True,
        )

    cold = cold_start(config, Path(cfg.resolve_path(cfg.stack.data_dir)), dsn, checks, tenant, args.restarts, 20)
    print(
        f"cold start (own elf-api, {args.restarts} restarts): /health after "
        f"{', '.join(f'{s:.1f}' for s in cold['health_s'])} s; first bundle after /health (client) "
        f"{', '.join(f'{c:.0f}' for c in cold['cold'])} ms (server {', '.join(f'{c:.0f}' for c in cold['cold_server'])}"
        f" ms), second {', '.join(f'{c:.0f}' for c in cold['second'])} ms; warm on the same process "
        f"{_ms(cold['warm'])} | floor (new connection + pool + recent SQL) "
        f"{', '.join(f'{c:.0f}' for c in cold['floor'])} ms",
        flush=True,
    )

    one_p95 = percentile(one["server"], 95)
    one_p95_client = percentile(one["client"], 95)
    rows = []
    for key, name in (("fast", "fast path"), ("retrieval", "retrieval path"), ("new_query", "retrieval, new query")):
        for side in ("server", "client"):
            r = res[key]
            p95 = percentile(r[side], 95)
            rows.append(
                (
                    f"{name} ({side})",
                    percentile(r[side], 50),
                    p95,
                    r["floor"],
                    f"p95 {PRD_LIMITS.get(key, PRD_LIMITS['retrieval']):.0f}",
                    f"p95 {TARGETS.get(key, TARGETS['retrieval']):.0f}",
                    _met(p95, PRD_LIMITS.get(key, PRD_LIMITS["retrieval"]), TARGETS.get(key, TARGETS["retrieval"])),
                )
            )
    rows.append(
        (
            "cold start, 1st bundle (client)",
            percentile(cold["cold"], 50),
            max(cold["cold"]),
            cold["floor"],
            f"{PRD_LIMITS['cold']:.0f}",
            f"{TARGETS['cold']:.0f}",
            _met(max(cold["cold"]), PRD_LIMITS["cold"], TARGETS["cold"]),
        )
    )
    for side, ref in (("server", one_p95), ("client", one_p95_client)):
        rows.append(
            (
                f"1 agent (retrieval, {side})",
                percentile(one[side], 50),
                percentile(one[side], 95),
                one["floor"],
                "p95 500",
                "p95 150",
                _met(percentile(one[side], 95), 500, 150),
            )
        )
        phases = [("conc", f"{args.agents} agents back to back")]
        phases += [("paced", f"{args.agents} agents, {args.think_s:g} s think time")] if "paced" in res else []
        for key, label in phases:
            p95 = percentile(res[key][side], 95)
            rows.append(
                (
                    f"{label} (retrieval, {side})",
                    percentile(res[key][side], 50),
                    p95,
                    res[key]["floor"],
                    "p95 500",
                    f"<= {CONCURRENCY_FACTOR:.0f}x 1 agent = {CONCURRENCY_FACTOR * ref:.0f}",
                    f"{_met(p95, 500, CONCURRENCY_FACTOR * ref)} ({p95 / ref:.1f}x)",
                )
            )
    print("\n| measure | p50 ms | p95 ms | floor p50/p95 ms | PRD limit ms | our target ms | met? |", flush=True)
    print("|---|---|---|---|---|---|---|")
    for name, p50, p95, fl, limit, target, met in rows:
        print(
            f"| {name} | {p50:.1f} | {p95:.1f} | {percentile(fl, 50):.1f} / {percentile(fl, 95):.1f} | {limit} | "
            f"{target} | {met} |",
            flush=True,
        )
    print(
        f"(cold start: p50 / max over {args.restarts + 1} starts; the bench restarts only elf-api, not Postgres, so "
        "Postgres' buffers stay warm)",
        flush=True,
    )
    for problem in dict.fromkeys(checks.problems):
        print(f"WRONG: {problem}", flush=True)
    return 1 if checks.problems else 0
