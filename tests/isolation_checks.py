"""The reads of tests/kernel/test_tenant_isolation.py: each asks the API as one identity and compares the answer with
what the example's World says that identity may see. What comes back and may not be seen is a leak; what should
come back and does not is a miss. Every body is also scanned for serials the reader may not see."""

from __future__ import annotations

from tests.isolation_client import BASE_CLIENT, Client
from tests.isolation_model import CHANNELS, PROFILES, SHARED, Ident, serials
from tests.isolation_ops import CORE_KEYS, LEAD_SUBJECT

LIST_SCOPES = (None, "agent_private", "project_shared", "team_shared", "org_shared")
DOC_TOP_K = 32
BUNDLE_QUERY = "serial"


def _markdown_entries(text: str) -> dict[str, str]:
    """key -> value of a PROFILE.md / SESSION.md (one bullet line per entry)."""
    out = {}
    for line in text.splitlines():
        if line.startswith("- key:"):
            fields = dict(f.split(":", 1) for f in line[2:].split(" | "))
            out[fields["key"]] = fields["value"]
    return out


class Checks(Client):
    # --- notes ---

    def check_search(self, ident: Ident) -> None:
        self.settle("notes")
        profile = self.rng.choice(sorted(PROFILES))
        body = self.call("POST", "/v2/searches", ident, profile=profile,
                         json={"query": "ledger", "mode": "quick_find", "top_k": 100, "candidate_k": 1024})
        want = self.world.visible(self.world.notes, ident, PROFILES[profile])
        assert len(want) <= 100, "an example outgrew top_k; lower ELF_ISOLATION_OPS_PER_EXAMPLE"
        self.compare(ident, f"note search ({profile})", {i["note_id"] for i in body["items"]}, want)
        self.scan(ident, "note search", body, {self.world.notes[i].serial for i in want})
        self.read("note search")

    def check_list(self, ident: Ident) -> None:
        scope = self.rng.choice(LIST_SCOPES)
        got, cursor, texts = set(), None, []
        while True:
            params = {"limit": 200, **({"scope": scope} if scope else {}), **({"cursor": cursor} if cursor else {})}
            page = self.call("GET", "/v2/notes", ident, params=params)
            got |= {n["note_id"] for n in page["notes"]}
            texts.append(page)
            cursor = page["next_cursor"]
            if not cursor:
                break
        # an omitted scope lists the shared scopes; team_shared is the public name of project_shared
        scopes = {None: SHARED, "team_shared": {"project_shared"}}.get(scope, {scope})
        want = self.world.visible(self.world.notes, ident, scopes)
        self.compare(ident, f"note list ({scope})", got, want)
        self.scan(ident, "note list", texts, {self.world.notes[i].serial for i in want})
        self.read("note list")

    def check_get_notes(self, ident: Ident, ids: list[str]) -> None:
        for nid in ids:
            n = self.world.notes.get(nid)
            allowed = n is not None and self.world.readable(n, ident)
            r = self.request("GET", f"/v2/notes/{nid}", ident)
            if r.status_code == 200 and not allowed:
                self.leak(ident, f"GET note {nid}: 200")
            elif r.status_code != 200 and allowed:
                self.miss(ident, f"GET note {nid}: {r.status_code}")
            elif r.status_code == 200:
                self.scan(ident, f"GET note {nid}", r.text, {n.serial})
            else:
                assert r.status_code == 404, f"{self.where()}: GET note {nid}: {r.status_code} {r.text}"
            self.read("note get")

    # --- graph ---

    def check_facts(self, ident: Ident, state: str | None = None) -> None:
        """Facts of a random subject (all or current); ``state`` given: that state of the led_by subject."""
        subject = self.rng.choice((None, None, "North ledger", "South ledger", "East ledger", LEAD_SUBJECT))
        subject = LEAD_SUBJECT if state else subject
        state = state or self.rng.choice(("all", "current"))
        params = {"state": state, "limit": 200, **({"subject": subject} if subject else {})}
        facts = self.call("GET", "/v2/graph/facts", ident, params=params)["facts"]
        assert len(facts) < 200, "an example outgrew the facts page; lower ELF_ISOLATION_OPS_PER_EXAMPLE"
        visible = {s: f for s, f in self.world.visible_facts(ident, current=state == "current").items()
                   if subject in (None, f.entity[2])}
        got = {}
        for f in facts:
            (s,) = serials(f["object"]["value"] or "") or {None}
            got[s] = set(f["evidence_note_ids"])
            fact = self.world.facts.get(s)
            if fact is not None:
                self._learn_entity(ident, f["subject"], fact.entity)
        self.compare(ident, f"graph facts (subject {subject}, {state})", got, visible)
        if any(f.predicate != "records" for f in visible.values()):
            self.facet("graph", "single-valued facts read", state)
        for s in set(got) & set(visible):
            self.compare(ident, f"evidence of the fact of serial {s}", got[s], {visible[s].note_id})
        self.scan(ident, "graph facts", facts, set(visible))
        self.read("graph facts")

    def _learn_entity(self, ident: Ident, entity: dict, key: tuple) -> None:
        known = self.world.entity_ids.setdefault(key, entity["entity_id"])
        if known != entity["entity_id"] or entity["canonical"] != key[2]:
            self.leak(ident, f"graph entity {entity} is not {key} (known as {known})")
        self.ledger.remember("entity", entity["entity_id"], ident[0])

    def check_entity(self, ident: Ident, entity_id: str | None = None) -> None:
        mine = sorted(self.world.entity_ids.items())
        if entity_id is None:
            foreign = self.ledger.foreign("entity", self.probe_rng, self.tenants)
            if mine and (foreign is None or self.probe_rng.random() < 0.7):
                entity_id = self.probe_rng.choice(mine)[1]
            elif foreign is not None:
                entity_id = foreign
            else:
                return
        key = next((k for k, v in mine if v == entity_id), None)
        visible = {s for s, f in self.world.visible_facts(ident).items() if f.entity == key}
        r = self.request("GET", f"/v2/graph/entities/{entity_id}", ident)
        if r.status_code == 200:
            body = r.json()
            got = {s for f in body["current_facts"] + body["history"] for s in serials(f["object"]["value"] or "")}
            self.compare(ident, f"facts of entity {entity_id}", got, visible)
            self.scan(ident, f"entity {entity_id}", body, visible)
        elif visible:
            self.miss(ident, f"GET entity {entity_id} {key}: {r.status_code}")
        else:
            assert r.status_code == 404, f"{self.where()}: GET entity: {r.status_code} {r.text}"
        self.read("graph entity")

    # --- documents ---

    def check_doc_search(self, ident: Ident) -> None:
        self.settle("docs")
        want = self.world.visible(self.world.docs, ident)
        assert len(want) <= DOC_TOP_K, "an example outgrew docs top_k; lower ELF_ISOLATION_OPS_PER_EXAMPLE"
        body = self.call("POST", "/v2/docs/search/l0", ident,
                         json={"query": "archive record", "top_k": DOC_TOP_K, "candidate_k": 1024})
        self.compare(ident, "doc search", {i["doc_id"] for i in body["items"]}, want)
        self.scan(ident, "doc search", body, {self.world.docs[i].serial for i in want})
        self.read("doc search")

    def check_get_docs(self, ident: Ident, ids: list[str]) -> None:
        for doc_id in ids:
            d = self.world.docs.get(doc_id)
            allowed = d is not None and d.status == "active" and self.world.readable(d, ident)
            if self.rng.random() < 0.5:
                r = self.request("GET", f"/v2/docs/{doc_id}", ident, params={"include_content": "true"})
                what = "GET doc"
            else:
                quote = {"exact": f"serial {d.serial}." if d else "serial"}
                r = self.request(
                    "POST", "/v2/docs/excerpts", ident, json={"doc_id": doc_id, "level": "L0", "quote": quote}
                )
                what = "doc excerpt"
            if r.status_code == 200 and not allowed:
                self.leak(ident, f"{what} {doc_id}: 200")
            elif r.status_code != 200 and allowed:
                self.miss(ident, f"{what} {doc_id}: {r.status_code}")
            elif r.status_code == 200:
                found = self.scan(ident, f"{what} {doc_id}", r.text, {d.serial})
                if d.serial not in found:
                    self.miss(ident, f"{what} {doc_id}: does not quote serial {d.serial}")
            else:
                assert r.status_code == 404, f"{self.where()}: {what} {doc_id}: {r.status_code} {r.text}"
            self.read(what)

    # --- core memory ---

    def check_core(self, ident: Ident) -> None:
        tenant, project, _ = ident
        run = self.rng.choice((None, "r1", "r2"))
        keys = self.rng.random() < 0.3  # with keys: every key asked is resolved, POLICY.md included
        ask = {**({"run_id": run} if run else {}), **({"keys": list(CORE_KEYS)} if keys else {})}
        body = self.call("POST", "/v2/core-memory/resolve", ident, json=ask)
        want = self.world.resolved(tenant, project, run, listed=not keys)
        got = {i["key"]: (i["value"], i["provenance"]["scope"]) for i in body["items"] if i["found"]}
        self.compare(
            ident, f"core resolve (run {run}, keys {keys})", got.items(), {k: v[:2] for k, v in want.items()}.items()
        )
        self.scan(ident, "core resolve", body, {v[2] for v in want.values()})
        if not keys and any(scope == "policy" for _, scope, _, _ in self.world.resolved(tenant, project, run).values()):
            self.facet("core", "resolve listing beside policy")
        self.read("core resolve")
        run = run or self.rng.choice(("r1", "r2"))
        for path, doc in (
            (f"/v2/core-memory/runs/{run}/session.md", (tenant, project, "session", run)),
            ("/v2/core-memory/profile.md", (tenant, project, "profile", "")),
        ):
            text = self.call("GET", path, ident)
            want = {k: v[0] for k, v in self.world.core.get(doc, {}).items()}
            self.compare(ident, path, _markdown_entries(text).items(), want.items())
            self.scan(ident, path, text, {v[1] for v in self.world.core.get(doc, {}).values()})
            self.read(f"core {doc[2]}.md")
        audit = self.call("GET", f"/v2/core-memory/runs/{run}/audit.jsonl", ident)
        # a run's audit: this workspace's profile and session writes filed under the run, never policy rows
        self.scan(ident, f"audit of {run}", audit, self.world.core_history.get((tenant, project), set()))
        self.read("core audit")

    # --- event log and bundles ---

    def check_bundle(self, ident: Ident, channel: str | None = None) -> None:
        tenant, project, agent = ident
        session, channel = (
            self.rng.choice(("r1", "r2")),
            channel or self.rng.choice(("private", "public", "team", "agent")),
        )
        body = {
            **self.own_ids(ident),
            "session_id": session,
            "channel": channel,
            "query_text": BUNDLE_QUERY,
            "max_tokens": 65000,
        }
        bundle = self.call("POST", "/api/v1/acb/build", ident, json=body)
        who = (*ident, session, channel)
        found = self.scan(who, "bundle", bundle["sections"], self.world.bundle_serials(ident, session, channel))
        lost = self.world.bundle_must_quote(ident, channel, session) - found
        if lost:
            self.miss(
                who,
                f"bundle leaves out the loadable events of serials {sorted(lost)}: "
                + "; ".join(self.world.origin(x) for x in sorted(lost)),
            )
        self._bundle_refs(who, ident, channel, bundle)
        self.facet("bundle", channel)
        self.read("acb bundle")

    def _bundle_refs(self, who, ident: Ident, channel: str, bundle: dict) -> None:
        tenant, project, _ = ident
        w = self.world
        turns, own = w.event_ids_ok(ident, channel, None), w.project_ids(tenant, project)
        core = w.resolved(tenant, project, who[3])
        restricted = channel in ("public", "agent")
        for section in bundle["sections"]:
            for item in section["items"]:
                refs = set(item["refs"])
                if item["type"] == "text" and section["name"] != "identity":
                    bad = {r for r in refs if r.startswith(("evt_", "chk_"))} - turns
                elif item["type"] == "note":
                    ids = {r.removeprefix("note:") for r in refs}
                    bad = {
                        i
                        for i in ids
                        if i not in w.notes
                        or not w.readable(w.notes[i], ident)
                        or (restricted and w.notes[i].scope not in SHARED)
                    }
                elif item["type"] == "memory":
                    bad = {
                        r
                        for r in refs
                        if core.get(r.split(":", 2)[2], ("", ""))[1] != r.split(":", 2)[1]
                        or (restricted and core[r.split(":", 2)[2]][3] == "preference")
                    }
                elif item["type"] == "decision":
                    d = w.decisions.get(item["decision_id"])
                    bad = (
                        refs - own
                        if d and d.status == "active" and w.decision_loads(item["decision_id"], ident, channel)
                        else {item["decision_id"]}
                    )
                elif item["type"] == "task":
                    t = w.tasks.get(item["task_id"])
                    bad = (
                        refs - own
                        if t and (t.tenant, t.project) == (tenant, project) and t.status in ("open", "doing")
                        else {item["task_id"]}
                    )
                else:
                    bad = set()
                if bad:
                    self.leak(who, f"bundle section {section['name']} cites {sorted(bad)} in {item['text'][:80]!r}")

    def check_decisions(self, ident: Ident) -> None:
        """The project's ledger, as a bundle of ``channel`` (default private) may load it."""
        status, session = self.rng.choice(("active", "superseded", "all")), self.rng.choice((None, "r1", "r2"))
        channel = self.rng.choice((None, *CHANNELS))
        channel = None if BASE_CLIENT else channel  # the base commit's queries take no channel
        params = {
            **self.query_ids(ident, channel),
            "status": status,
            "limit": 200,
            **({"session_id": session} if session else {}),
        }
        got = self.call("GET", "/api/v1/decisions/query", ident, params=params)["decisions"]
        want = {
            i
            for i, d in self.world.decisions.items()
            if self.world.decision_loads(i, ident, channel or "private")
            and status in ("all", d.status)
            and session in (None, d.session)
        }
        self.compare(ident, f"decisions ({status}, {session}, {channel})", {d["decision_id"] for d in got}, want)
        self.scan(ident, "decisions", got, {self.world.decisions[i].serial for i in want})
        self.facet("decisions channel", channel)
        self.read("acb decisions")

    def check_artifact(self, ident: Ident, artifact_id: str | None = None) -> None:
        """An artifact of the caller's project whose event a bundle of ``channel`` may load: 200 with its text;
        any other (another project's, another tenant's or example's, a closed channel's): 404."""
        mine = sorted(self.world.artifacts)
        if artifact_id is None:
            foreign = self.ledger.foreign("artifact", self.probe_rng, self.tenants)
            candidates = mine + ([foreign] if foreign else [])
            if not candidates:
                return
            artifact_id = self.probe_rng.choice(candidates)
        channel = self.rng.choice((None, *CHANNELS))
        channel = None if BASE_CLIENT else channel  # the base commit's queries take no channel
        allowed = self.world.artifact_loads(artifact_id, ident, channel or "private")
        serial = self.world.artifacts.get(artifact_id, (None, None))[1]
        params = self.query_ids(ident, channel)
        r = self.request("GET", f"/api/v1/artifacts/{artifact_id}", ident, params=params)
        where = self.world.events[self.world.artifacts[artifact_id][2]] if artifact_id in self.world.artifacts else None
        if r.status_code == 200 and not allowed:
            self.leak(ident, f"artifact {artifact_id} of {where} read on channel {channel}: 200")
        elif r.status_code != 200 and allowed:
            self.miss(ident, f"artifact {artifact_id} (channel {channel}): {r.status_code}")
        elif r.status_code == 200:
            self.scan(ident, f"artifact {artifact_id}", r.text, {serial})
            if not r.json()["text"].startswith(f"log serial {serial}\n"):
                self.miss(ident, f"artifact {artifact_id}: not its text")
        else:
            assert r.status_code == 404, f"{self.where()}: artifact: {r.status_code} {r.text}"
        if where is not None and (where.tenant, where.project) != ident[:2]:
            self.facet("artifact", "another project" if where.tenant == ident[0] else "another tenant")
        self.read("acb artifact")
