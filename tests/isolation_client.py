"""The plumbing of tests/kernel/test_tenant_isolation.py: one example's HTTP session against the shared ServiceSet,
its precise waits on the indexing outboxes, and the Ledger every example reports to (ids any example saw, for
probes across examples; operation and read counts; the leaks and misses found)."""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import psycopg
import requests

from tests.isolation_model import Ident, World, serials

SETTLE_TIMEOUT_S = 60
SERIALS_PER_EXAMPLE = 1_000_000
PROJECTS, AGENTS, ADMIN_AGENT = ("p1", "p2"), ("a1", "a2", "a3"), "admin"
# ELF_ISOLATION_BASE_CLIENT=1: requests as a client of the base commit e45159e had to make them (every body id
# stated; the /api/v1 queries name tenant_id only and no channel), so that a run there reaches its holes
BASE_CLIENT = os.environ.get("ELF_ISOLATION_BASE_CLIENT") == "1"


def example_tenants(index: int) -> tuple[str, str]:
    return f"x{index}-t1", f"x{index}-t2"


def token_of(seed: str, ident: Ident) -> str:
    """The static key of one identity: derived from the seed, so a run is reproducible (test keys only)."""
    return hashlib.sha256(f"isolation {seed} {'/'.join(ident)}".encode()).hexdigest()


def auth_keys(seed: str, examples: int) -> list[dict]:
    """[[security.auth_keys]] for every identity of every example (tenant x project x agent, user role) and one
    admin key a project for the admin bind (policy writes, the project's graph predicates): 16 an example,
    1,600 for the 10,000-operation soak."""
    keys = []
    for index in range(examples):
        for t in example_tenants(index):
            for ident in [(t, p, a) for p in PROJECTS for a in (*AGENTS, ADMIN_AGENT)]:
                keys.append({"token_id": "/".join(ident), "token": token_of(seed, ident), "tenant_id": ident[0],
                             "project_id": ident[1], "agent_id": ident[2],
                             "role": "admin" if ident[2] == ADMIN_AGENT else "user"})
    return keys


@dataclass
class Ledger:
    """Shared by the examples running in parallel: every change is made under ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    ops: Counter = field(default_factory=Counter)
    reads: Counter = field(default_factory=Counter)
    probes: Counter = field(default_factory=Counter)
    refusals: Counter = field(default_factory=Counter)
    # MCP calls by kind
    # identity probes refused as they must be, by surface
    mcp: Counter = field(default_factory=Counter)
    leaks: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    # ids seen by any example: kind (note, doc, entity, artifact) -> {id: tenant}
    seen: dict[str, dict[str, str]] = field(default_factory=dict)
    facets: set[tuple] = field(default_factory=set)  # which kinds of rule the examples exercised
    turns: Counter = field(default_factory=Counter)  # round-robin positions shared by every example

    def turn(self, name: str, values: tuple):
        """The next of ``values`` in one rotation shared by all examples: a run with at least len(values) draws
        exercises every value, whatever order the threads' operations interleave in."""
        with self.lock:
            self.turns[name] += 1
            return values[(self.turns[name] - 1) % len(values)]

    def remember(self, kind: str, item_id: str, tenant: str) -> None:
        with self.lock:
            self.seen.setdefault(kind, {})[item_id] = tenant

    def foreign(self, kind: str, rng: random.Random, tenants: tuple[str, ...]) -> str | None:
        """An id of ``kind`` some other example wrote (never readable here)."""
        with self.lock:
            pool = sorted(i for i, t in self.seen.get(kind, {}).items() if t not in tenants)
        return rng.choice(pool) if pool else None


class Client:
    """One example: its world, its tenants, its random stream and its HTTP session."""

    def __init__(self, svc, ledger: Ledger, seed: str, index: int, key_seed: str, locked=None):
        self.svc, self.ledger, self.name, self.locked, self.index = svc, ledger, f"x{index}", locked, index
        self.key_seed = key_seed
        self.rng = random.Random(seed)
        # whether a request restates its key's ids (headers, body ids): its own stream, as for probes
        self.restate_rng = random.Random(f"{seed}-restate")
        # which ids of other examples are probed depends on timing: its own stream keeps ``rng``'s reproducible
        self.probe_rng = random.Random(f"{seed}-probes")
        self.serials = itertools.count(index * SERIALS_PER_EXAMPLE + 1)  # unique across examples
        self.world = World()
        self.tenants = example_tenants(index)
        self.identities: list[Ident] = [(t, p, a) for t in self.tenants for p in PROJECTS for a in AGENTS]
        self.http = requests.Session()
        self.db: psycopg.Connection | None = None
        self.locked_conn: psycopg.Connection | None = None
        self.pending = {"notes": set(), "docs": set()}
        self.step = "setup"

    def close(self) -> None:
        self.http.close()
        for conn in (self.db, self.locked_conn):
            if conn is not None:
                conn.close()

    # --- HTTP ---

    def admin_of(self, ident: Ident) -> Ident:
        return ident[0], ident[1], ADMIN_AGENT

    def headers(self, ident: Ident, profile: str | None = None, context: dict | None = None) -> dict[str, str]:
        """The identity's key; its context headers half the time (they may repeat the key's ids), or
        ``context`` (a probe's)."""
        t, p, a = ident
        # a fresh connection per request: a pooled one the server closed while idle would reset a write in flight
        h = {"Authorization": f"Bearer {token_of(self.key_seed, ident)}", "Connection": "close"}
        if context is not None:
            h.update(context)
        elif self.restate_rng.random() < 0.5:
            h.update({"X-ELF-Tenant-Id": t, "X-ELF-Project-Id": p, "X-ELF-Agent-Id": a})
        if profile:
            h["X-ELF-Read-Profile"] = profile
        return h

    def own_ids(self, ident: Ident) -> dict[str, str]:
        """tenant_id, project_id and agent_id of a body: each left out (the key's) or restated (all of them
        with BASE_CLIENT)."""
        return {
            k: v
            for k, v in zip(("tenant_id", "project_id", "agent_id"), ident, strict=False)
            if self.restate_rng.random() < 0.5 or BASE_CLIENT
        }

    def query_ids(self, ident: Ident, channel: str | None) -> dict[str, str]:
        """The ids and channel of an /api/v1 query string (BASE_CLIENT: tenant_id only, no channel)."""
        if BASE_CLIENT:
            return {"tenant_id": ident[0]}
        return {**self.own_ids(ident), **({"channel": channel} if channel else {})}

    def request(
        self,
        method: str,
        path: str,
        ident: Ident,
        *,
        admin: bool = False,
        profile: str | None = None,
        context: dict | None = None,
        base: str | None = None,
        **kw,
    ) -> requests.Response:
        if admin:
            ident = self.admin_of(ident)
        base = base or (self.svc.admin if admin else self.svc.public)
        r = self.http.request(method, base + path, headers=self.headers(ident, profile, context), timeout=60, **kw)
        assert r.status_code < 500, f"{self.where()}: {method} {path} as {ident}: {r.status_code} {r.text[:500]}"
        return r

    def call(self, method: str, path: str, ident: Ident, *, expect: int = 200, **kw):
        r = self.request(method, path, ident, **kw)
        assert r.status_code == expect, f"{self.where()}: {method} {path} as {ident}: {r.status_code} {r.text[:500]}"
        return r.json() if r.headers.get("Content-Type", "").startswith("application/json") else r.text

    # --- bookkeeping ---

    def where(self) -> str:
        return f"example {self.name}, {self.step}"

    def serial(self) -> int:
        return next(self.serials)

    def words(self, n: int) -> str:
        return " ".join(self.rng.sample(WORDS, n))

    def read(self, kind: str) -> None:
        with self.ledger.lock:
            self.ledger.reads[kind] += 1

    def facet(self, *what) -> None:
        with self.ledger.lock:
            self.ledger.facets.add(what)

    def leak(self, who, what: str) -> None:
        with self.ledger.lock:
            self.ledger.leaks.append(f"{self.where()}: {who}: {what}")

    def miss(self, who, what: str) -> None:
        with self.ledger.lock:
            self.ledger.misses.append(f"{self.where()}: {who}: {what}")

    def compare(self, who, what: str, got, want) -> None:
        """A leak for what came back but may not be seen, a miss for what should have come back."""
        got, want = set(got), set(want)
        if got - want:
            self.leak(who, f"{what}: not allowed {sorted(got - want, key=str)}")
        if want - got:
            self.miss(who, f"{what}: missing {sorted(want - got, key=str)}")

    def scan(self, who, what: str, body, allowed: set[int]) -> set[int]:
        """The serials a response names; any it may not name is a leak."""
        found = serials(body if isinstance(body, str) else str(body))
        for s in sorted(found - allowed):
            self.leak(who, f"{what}: names serial {s} it may not see: {self.world.origin(s)}")
        return found

    def database(self) -> psycopg.Connection:
        """The service's database, read only to wait on outboxes and to see that a refused write left nothing."""
        if self.db is None:
            self.db = psycopg.connect(self.svc.cfg.storage.postgres.dsn, autocommit=True)
        return self.db

    def locked_db(self) -> psycopg.Connection:
        if self.locked_conn is None:
            self.locked_conn = psycopg.connect(self.locked.cfg.storage.postgres.dsn, autocommit=True)
        return self.locked_conn

    # --- waits: exactly the outbox rows this example's reads depend on, no fixed sleeps ---

    def settle(self, kind: str) -> None:
        ids = self.pending[kind]
        if not ids:
            return
        table, column = {"notes": ("indexing_outbox", "note_id"), "docs": ("doc_indexing_outbox", "doc_id")}[kind]
        self.database()
        query = f"SELECT count(*) FROM {table} WHERE {column} = ANY(%s::uuid[]) AND status <> 'DONE'"
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while self.db.execute(query, (sorted(ids),)).fetchone()[0]:
            assert time.monotonic() < deadline, f"{self.where()}: {kind} outbox not done in {SETTLE_TIMEOUT_S}s"
            time.sleep(0.01)
        ids.clear()


WORDS = [
    "amber",
    "basil",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kelp",
    "lantern",
    "meadow",
    "nickel",
    "orchid",
    "pepper",
    "quartz",
    "raven",
    "saffron",
    "tundra",
    "umber",
    "violet",
    "willow",
    "xenon",
    "yarrow",
    "zephyr",
    "anchor",
    "beacon",
    "canyon",
    "dune",
    "falcon",
    "glacier",
    "hazel",
    "iris",
    "jasper",
    "lagoon",
    "mosaic",
    "nectar",
    "opal",
    "prairie",
]
