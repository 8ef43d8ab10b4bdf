"""Tenant isolation as a property: a seeded random sequence of writes, grants, revocations, publishes,
unpublishes and deletes by agents of two tenants (with colliding project and agent ids), and after every
step each agent's search, list, get and graph fact results over real HTTP are exactly what the grant
rules allow (every note is evidence of one fact, so a fact is visible exactly when its note is).

The model below restates the rules of supplement section 7 independently of memory.selectors:
- a note lives in its home: its project (agent_private, project_shared) or the tenant's org space
  (org_shared, project "__org__");
- its owner reads it from any project whose home set contains it;
- another agent reads a shared note only through an active grant from the owner, for the note's scope and
  home: a project grant covers every agent there (every agent of the tenant for the org space), an agent
  grant one agent id.

Set ELF_ISOLATION_SEED / ELF_ISOLATION_STEPS to explore other sequences.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest
import requests

from tests.notes_helpers import rows

ORG = "__org__"
SPACE_OF = {"project_shared": "team_shared", "org_shared": "org_shared"}
PROFILES = {
    "private_only": {"agent_private"},
    "private_plus_project": {"agent_private", "project_shared"},
    "all_scopes": {"agent_private", "project_shared", "org_shared"},
}
LIST_SCOPES = (None, "agent_private", "project_shared", "team_shared", "org_shared")
TENANTS, PROJECTS, AGENTS = ("t1", "t2"), ("p1", "p2"), ("a1", "a2", "a3")
IDENTITIES = [(t, p, a) for t in TENANTS for p in PROJECTS for a in AGENTS]
WORDS = ("amber basil cedar delta ember fjord garnet harbor indigo juniper kelp lantern meadow nickel orchid "
         "pepper quartz raven saffron tundra umber violet willow xenon yarrow zephyr anchor beacon canyon dune "
         "falcon glacier hazel iris jasper lagoon mosaic nectar opal prairie").split()


@dataclass
class Note:
    tenant: str
    home: str
    owner: str
    scope: str
    status: str = "active"


@dataclass
class Model:
    notes: dict[str, Note] = field(default_factory=dict)
    grants: set[tuple] = field(default_factory=set)  # (tenant, home, scope, owner, kind, grantee|None)
    facts: dict[str, set[str]] = field(default_factory=dict)  # graph fact subject -> its evidence note ids

    def in_home(self, n: Note, ident) -> bool:
        tenant, project, _ = ident
        if n.tenant != tenant:
            return False
        return (n.home == project and n.scope != "org_shared") or (n.home == ORG and n.scope == "org_shared")

    def readable(self, n: Note, ident) -> bool:
        agent = ident[2]
        if not self.in_home(n, ident):
            return False
        if n.owner == agent:
            return True
        if n.scope == "agent_private":
            return False
        base = (n.tenant, n.home, n.scope, n.owner)
        return (*base, "project", None) in self.grants or (*base, "agent", agent) in self.grants

    def owned(self, ident, status="active") -> list[str]:
        return [i for i, n in self.notes.items() if n.owner == ident[2] and n.status == status and self.in_home(n, ident)]


def _headers(ident, profile=None) -> dict[str, str]:
    t, p, a = ident
    h = {"X-ELF-Tenant-Id": t, "X-ELF-Project-Id": p, "X-ELF-Agent-Id": a}
    if profile:
        h["X-ELF-Read-Profile"] = profile
    return h


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["search"]["prefilter"]["max_candidates"] = 1024
        data["search"]["explain"]["retention_days"] = 1
    s = isolated_services_module("isolation", mutate)
    s.start_api()
    s.start_worker()
    return s


class Driver:
    def __init__(self, svc, rng: random.Random):
        self.svc, self.rng, self.model = svc, rng, Model()
        self.http = requests.Session()
        self.counter = 0

    def call(self, method, path, ident, *, profile=None, **kw):
        r = self.http.request(method, self.svc.public + path, headers=_headers(ident, profile), timeout=60, **kw)
        assert r.status_code == 200, f"{method} {path} as {ident}: {r.status_code} {r.text}"
        return r.json()

    def wait_indexed(self, nid: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if not rows(self.svc, "SELECT 1 FROM indexing_outbox WHERE note_id = %s AND status <> 'DONE'", (nid,)):
                return
            time.sleep(0.03)
        raise AssertionError(f"outbox of {nid} not done")

    # --- operations: each returns the note ids whose readability may have changed ---

    def op_add(self, ident) -> list[str]:
        scope = self.rng.choice(["agent_private", "team_shared", "org_shared"])
        self.counter += 1
        text = f"Fact {self.counter}: the {' '.join(self.rng.sample(WORDS, 4))} ledger."
        # Every note is evidence of one graph fact about its own subject: graph reads follow the same rule.
        subject = f"Ledger {self.counter}"
        relation = {"subject": {"canonical": subject}, "predicate": "records",
                    "object": {"value": f"entry {self.counter}"}}
        body = {"scope": scope, "notes": [{"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9,
                                           "structured": {"relations": [relation]}}]}
        res = self.call("POST", "/v2/notes/ingest", ident, json=body)["results"][0]
        assert res["policy_decision"] in ("remember", "update"), res
        self.model.facts[subject] = {res["note_id"]}
        stored = {"team_shared": "project_shared"}.get(scope, scope)
        home = ORG if stored == "org_shared" else ident[1]
        if res["op"] == "ADD":
            self.model.notes[res["note_id"]] = Note(ident[0], home, ident[2], stored)
            self.wait_indexed(res["note_id"])
        else:  # a similar note of the same group was updated or kept: same home, owner and scope
            n = self.model.notes[res["note_id"]]
            assert (n.tenant, n.home, n.owner, n.scope) == (ident[0], home, ident[2], stored), res
            self.wait_indexed(res["note_id"])
        return [res["note_id"]]

    def _space_notes(self, tenant, home, scope, owner) -> list[str]:
        return [i for i, n in self.model.notes.items() if (n.tenant, n.home, n.scope, n.owner) == (tenant, home, scope, owner)]

    def _grant_args(self, ident):
        scope = self.rng.choice(["project_shared", "org_shared"])
        kind = self.rng.choice(["project", "agent"])
        grantee = self.rng.choice([a for a in AGENTS if a != ident[2]]) if kind == "agent" else None
        home = ORG if scope == "org_shared" else ident[1]
        return scope, kind, grantee, (ident[0], home, scope, ident[2], kind, grantee)

    def op_grant(self, ident) -> list[str]:
        scope, kind, grantee, key = self._grant_args(ident)
        body = {"grantee_kind": kind, **({"grantee_agent_id": grantee} if grantee else {})}
        assert self.call("POST", f"/v2/spaces/{SPACE_OF[scope]}/grants", ident, json=body)["granted"] is True
        self.model.grants.add(key)
        return self._space_notes(*key[:4])

    def op_revoke(self, ident) -> list[str]:
        scope, kind, grantee, key = self._grant_args(ident)
        if self.rng.random() < 0.7:  # mostly revoke a grant that exists
            mine = [g for g in self.model.grants if g[0] == ident[0] and g[3] == ident[2]
                    and g[1] in (ident[1], ORG)]
            if mine:
                key = self.rng.choice(sorted(mine, key=str))
                scope, kind, grantee = key[2], key[4], key[5]
        body = {"grantee_kind": kind, **({"grantee_agent_id": grantee} if grantee else {})}
        revoked = self.call("POST", f"/v2/spaces/{SPACE_OF[scope]}/grants/revoke", ident, json=body)["revoked"]
        assert revoked == (key in self.model.grants), (key, revoked)
        self.model.grants.discard(key)
        return self._space_notes(*key[:4])

    def op_publish(self, ident) -> list[str]:
        mine = self.model.owned(ident)
        if not mine:
            return self.op_add(ident)
        nid = self.rng.choice(mine)
        scope = self.rng.choice(["project_shared", "org_shared"])
        self.call("POST", f"/v2/notes/{nid}/publish", ident, json={"space": SPACE_OF[scope]})
        n = self.model.notes[nid]
        n.scope, n.home = scope, ORG if scope == "org_shared" else ident[1]
        self.model.grants.add((n.tenant, n.home, scope, n.owner, "project", None))
        self.wait_indexed(nid)
        return [nid, *self._space_notes(n.tenant, n.home, scope, n.owner)]

    def op_unpublish(self, ident) -> list[str]:
        mine = [i for i in self.model.owned(ident) if self.model.notes[i].scope != "agent_private"]
        if not mine:
            return self.op_publish(ident)
        nid = self.rng.choice(mine)
        n = self.model.notes[nid]
        assert self.call("POST", f"/v2/notes/{nid}/unpublish", ident, json={"space": SPACE_OF[n.scope]})["space"] == "agent_private"
        n.scope, n.home = "agent_private", ident[1]
        self.wait_indexed(nid)
        return [nid]

    def op_delete(self, ident) -> list[str]:
        mine = self.model.owned(ident)
        if not mine:
            return self.op_add(ident)
        nid = self.rng.choice(mine)
        assert self.call("DELETE", f"/v2/notes/{nid}", ident)["op"] == "DELETE"
        self.model.notes[nid].status = "deleted"
        self.wait_indexed(nid)
        return [nid]

    # --- checks ---

    def expected(self, ident, scopes, active_only=True) -> set[str]:
        return {i for i, n in self.model.notes.items() if n.scope in scopes and self.model.readable(n, ident)
                and (n.status == "active" or not active_only)}

    def listed(self, ident, scope: str | None) -> set[str]:
        out, cursor = set(), None
        while True:
            params = {"limit": 200, **({"scope": scope} if scope else {}), **({"cursor": cursor} if cursor else {})}
            page = self.call("GET", "/v2/notes", ident, params=params)
            out |= {n["note_id"] for n in page["notes"]}
            cursor = page["next_cursor"]
            if not cursor:
                return out

    def facts_seen(self, ident) -> dict[str, set[str]]:
        page = self.call("GET", "/v2/graph/facts", ident, params={"state": "all", "limit": 200})["facts"]
        assert len(page) < 200, "the generator outgrew the facts page; lower the step count"
        return {f["subject"]["canonical"]: set(f["evidence_note_ids"]) for f in page}

    def facts_expected(self, ident) -> dict[str, set[str]]:
        out = {}
        for subject, evidence in self.model.facts.items():
            live = {i for i in evidence if self.model.notes[i].status == "active"
                    and self.model.readable(self.model.notes[i], ident)}
            if live:
                out[subject] = live
        return out

    def check_identity(self, ident, touched: list[str], profile: str, list_scope: str | None) -> list[str]:
        problems = []
        seen, want_facts = self.facts_seen(ident), self.facts_expected(ident)
        if seen != want_facts:
            leaked = {k: v for k, v in seen.items() if want_facts.get(k) != v}
            missing = {k: v for k, v in want_facts.items() if seen.get(k) != v}
            problems.append(f"graph facts: leaked or wrong {leaked}, missing or wrong {missing}")
        found = {i["note_id"] for i in self.call(
            "POST", "/v2/searches", ident, profile=profile,
            json={"query": "ledger", "mode": "quick_find", "top_k": 100, "candidate_k": 1024})["items"]}
        want = self.expected(ident, PROFILES[profile])
        assert len(want) <= 100, "the generator outgrew top_k; lower the step count"
        if found != want:
            problems.append(f"search {profile}: leaked {found - want}, missing {want - found}")
        # an omitted scope lists the shared scopes; team_shared is the public name of project_shared
        scopes = {None: {"project_shared", "org_shared"}, "team_shared": {"project_shared"}}.get(list_scope, {list_scope})
        got, want = self.listed(ident, list_scope), self.expected(ident, scopes)
        if got != want:
            problems.append(f"list {list_scope}: leaked {got - want}, missing {want - got}")
        for nid in touched:
            r = self.http.get(f"{self.svc.public}/v2/notes/{nid}", headers=_headers(ident), timeout=30)
            allowed = self.model.readable(self.model.notes[nid], ident)
            if r.status_code != (200 if allowed else 404):
                problems.append(f"get {nid}: {r.status_code}, expected {'200' if allowed else '404'}")
        return [f"{ident}: {p}" for p in problems]

    def check_all(self, touched: list[str], pool: ThreadPoolExecutor) -> list[str]:
        profiles = [self.rng.choice(sorted(PROFILES)) for _ in IDENTITIES]
        scopes = [self.rng.choice(LIST_SCOPES) for _ in IDENTITIES]
        futures = [pool.submit(self.check_identity, ident, touched, prof, scope)
                   for ident, prof, scope in zip(IDENTITIES, profiles, scopes)]
        return [p for f in futures for p in f.result()]


OPS = (("op_add", 30), ("op_grant", 20), ("op_revoke", 15), ("op_publish", 15), ("op_unpublish", 10), ("op_delete", 10))


def test_every_agent_sees_exactly_what_the_grant_rules_allow(svc):
    seed = int(os.environ.get("ELF_ISOLATION_SEED", "20261121"))
    steps = int(os.environ.get("ELF_ISOLATION_STEPS", "500"))
    rng = random.Random(seed)
    d = Driver(svc, rng)
    names, weights = zip(*OPS)
    counts: dict[str, int] = {}
    with ThreadPoolExecutor(4) as pool:
        for step in range(steps):
            ident, op = rng.choice(IDENTITIES), rng.choices(names, weights)[0]
            counts[op] = counts.get(op, 0) + 1
            touched = getattr(d, op)(ident)
            problems = d.check_all(sorted(set(touched)), pool)
            assert not problems, f"seed {seed}, step {step} ({op} by {ident}):\n" + "\n".join(problems)
        # a last sweep: every note, every identity, by get
        final = d.check_all(sorted(d.model.notes), pool)
        assert not final, f"seed {seed}, final sweep:\n" + "\n".join(final)
    print(f"isolation: seed {seed}, {steps} steps {counts}, {len(d.model.notes)} notes, {len(d.model.grants)} grants")
    # the sequence exercised every kind of rule
    assert all(counts.get(n, 0) > 0 for n in names)
    scopes = {n.scope for n in d.model.notes.values()}
    assert scopes == {"agent_private", "project_shared", "org_shared"}
    assert {g[4] for g in d.model.grants} == {"project", "agent"}
