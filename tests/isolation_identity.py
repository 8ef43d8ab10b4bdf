"""Identity probes of tests/kernel/test_tenant_isolation.py: with API keys on, a request made with identity X's key that
names another identity's ids (another agent of the project, another project of the tenant, the other tenant)
in its body, its context headers or its query string must be 403 FORBIDDEN naming the JSONPath of the field
that differs, and must write nothing (the store holds no row quoting the probe's serial). Issue 31, item 1."""

from __future__ import annotations

from tests.isolation_client import Client
from tests.isolation_model import Ident

FIELDS = ("tenant_id", "project_id", "agent_id")
HEADER_OF = {"tenant_id": "X-ELF-Tenant-Id", "project_id": "X-ELF-Project-Id", "agent_id": "X-ELF-Agent-Id"}
# tables a refused write could have left a row in; each row is searched for the probe's serial
STORE = ("acb_events", "acb_chunks", "acb_decisions", "acb_tasks", "acb_bundles", "memory_notes", "doc_documents",
         "core_memory_entries")
BODY_ROUTES = ("POST /api/v1/events", "POST /api/v1/events actor", "POST /api/v1/acb/build", "POST /api/v1/decisions",
               "POST /api/v1/tasks", "POST /v1/memory/add_note")
HEADER_ROUTES = ("POST /v2/notes/ingest", "POST /v2/docs", "POST /v2/core-memory/entries",
                 "POST /v2/core-memory/resolve", "GET /v2/graph/facts", "GET /v2/notes", "POST /v2/searches")
QUERY_ROUTES = ("GET /api/v1/artifacts/{id}", "GET /api/v1/decisions/query", "GET /v1/memory/list")
# every (where, route), taken in turn from an offset of the example's index, so a short run probes each one
PROBES = tuple(("body", r) for r in BODY_ROUTES) + tuple(("header", r) for r in HEADER_ROUTES) + tuple(
    ("query", r) for r in QUERY_ROUTES)


class IdentityProbes(Client):
    def other_identity(self, ident: Ident, field: str) -> tuple[str, Ident]:
        """The identity that differs from ``ident`` in ``field`` (tenant, project or agent)."""
        t, p, a = ident
        if field == "tenant_id":
            return field, (next(x for x in self.tenants if x != t), p, a)
        if field == "project_id":
            return field, (t, "p2" if p == "p1" else "p1", a)
        return field, (t, p, self.rng.choice([x for x in ("a1", "a2", "a3") if x != a]))

    identity_probes = 0

    def op_identity_probe(self, ident: Ident) -> list[str]:
        turn = self.index * 3 + self.identity_probes  # every route in turn, and the field that differs with it
        self.identity_probes += 1
        where, route = PROBES[turn % len(PROBES)]
        field, other = self.other_identity(ident, FIELDS[turn % len(FIELDS)])
        s = self.serial()
        if where == "body":
            r, path = self._body_probe(ident, other, field, route, s)
        elif where == "header":
            r, path = self._header_probe(ident, other, field, route, s)
        else:
            r, path = self._query_probe(ident, other, field, route)
        fields = r.json().get("fields") if r.headers.get("Content-Type", "").startswith("application/json") else None
        if r.status_code == 200:
            self.leak(ident, f"{route} naming {other} in {path}: 200 {r.text[:300]}")
        elif r.status_code != 403 or r.json().get("error_code") != "FORBIDDEN" or fields != [path]:
            self.leak(ident, f"{route} naming {other} in {path}: {r.status_code} {r.text[:300]} (want 403 "
                             f"FORBIDDEN {[path]})")
        else:
            with self.ledger.lock:
                self.ledger.refusals[f"{where} {field}"] += 1
        self._nothing_stored(ident, route, s)
        self.facet("identity probe", where, field)
        self.facet("identity route", route)
        return []

    def _body_probe(self, ident: Ident, other: Ident, field: str, route: str, s: int):
        # the body states every id: the key's, but for the one that differs
        ids = dict(zip(FIELDS, ident, strict=False)) | {field: other[FIELDS.index(field)]}
        path = f"$.{field}"
        base = {**ids, "session_id": "r1", "channel": "private"}
        text = f"Probe serial {s}: the harbor crew reports in."
        if route.startswith("POST /api/v1/events"):
            actor = ident[2]
            if route.endswith("actor"):  # the ids are the key's; actor.id names another agent
                base, actor, path = (
                    {**dict(zip(FIELDS, ident, strict=False)), "session_id": "r1", "channel": "private"},
                    self.rng.choice([x for x in ("a1", "a2", "a3") if x != ident[2]]),
                    "$.actor.id",
                )
            body = {**base, "actor": {"type": "agent", "id": actor}, "kind": "message", "content": {"text": text}}
            return self.request("POST", "/api/v1/events", ident, json=body), path
        if route == "POST /api/v1/acb/build":
            body = {**base, "query_text": text, "max_tokens": 2000}
            return self.request("POST", "/api/v1/acb/build", ident, json=body), path
        if route == "POST /api/v1/decisions":
            return self.request("POST", "/api/v1/decisions", ident, json={**base, "decision": text}), path
        if route == "POST /api/v1/tasks":
            return self.request("POST", "/api/v1/tasks", ident, json={**base, "title": text, "status": "open"}), path
        note = {"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9}
        return self.request(
            "POST", "/v1/memory/add_note", ident, json={**ids, "scope": "agent_private", "notes": [note]}
        ), path

    def _header_probe(self, ident: Ident, other: Ident, field: str, route: str, s: int):
        context = {HEADER_OF[f]: v for f, v in zip(FIELDS, ident, strict=False)} | {
            HEADER_OF[field]: other[FIELDS.index(field)]
        }
        path, text = f"$.headers.{HEADER_OF[field]}", f"Probe serial {s}: the harbor crew reports in."
        method, url = route.split(" ")
        body = {
            "/v2/notes/ingest": {
                "scope": "agent_private",
                "notes": [{"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9}],
            },
            "/v2/docs": {"scope": "agent_private", "title": f"Probe serial {s}", "content": text},
            "/v2/core-memory/entries": {
                "scope": "profile",
                "kind": "fact",
                "key": "fact.harbor",
                "value": f"serial {s} probe",
                "source": "user_explicit",
            },
            "/v2/core-memory/resolve": {},
            "/v2/searches": {"query": "ledger", "mode": "quick_find", "top_k": 5},
        }.get(url)
        params = {"state": "all"} if url == "/v2/graph/facts" else None
        return self.request(method, url, ident, context=context, json=body, params=params), path

    def _query_probe(self, ident: Ident, other: Ident, field: str, route: str):
        path = f"$.query.{field}"
        if route == "GET /v1/memory/list":  # v1 names every id
            params = dict(zip(FIELDS, ident, strict=False)) | {field: other[FIELDS.index(field)]}
            return self.request("GET", "/v1/memory/list", ident, params=params), path
        params = {field: other[FIELDS.index(field)]}
        if route == "GET /api/v1/decisions/query":
            return self.request("GET", "/api/v1/decisions/query", ident, params=params), path
        # an artifact of the named identity's project when there is one: the refusal comes before any lookup
        theirs = sorted(
            i
            for i, a in self.world.artifacts.items()
            if (self.world.events[a[2]].tenant, self.world.events[a[2]].project) == other[:2]
        )
        artifact_id = self.rng.choice(theirs) if theirs else "art_00000000000000000000000000"
        return self.request("GET", f"/api/v1/artifacts/{artifact_id}", ident, params=params), path

    def _nothing_stored(self, ident: Ident, route: str, s: int) -> None:
        db = self.database()
        pattern = f"serial {s}([^0-9]|$)"
        for table in STORE:
            n = db.execute(f"SELECT count(*) FROM {table} t WHERE t::text ~ %s", (pattern,)).fetchone()[0]
            if n:
                self.leak(ident, f"a refused {route} (serial {s}) left {n} row(s) in {table}")
