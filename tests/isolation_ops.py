"""The writes of tests/kernel/test_tenant_isolation.py: each operation acts as one identity over HTTP, asserts its own
answer, updates the example's World, and returns the note and document ids whose readability may have changed.
Some operations are probes: a write naming another tenant's decision, event or task must change nothing there."""

from __future__ import annotations

from tests.isolation_client import Client
from tests.isolation_model import ORG, SPACE_OF, Decision, Event, Fact, Ident, Owned, Task

SUBJECTS = ("North ledger", "South ledger", "East ledger")
LEAD_SUBJECT, LEAD_PREDICATE = "Project Larkspur", "led_by"
CORE_KEYS = ("response.tone", "fact.harbor", "instruction.cite", "constraint.budget")
KINDS = ("preference", "fact", "constraint", "instruction")
EVENT_KINDS = ("message", "message", "tool_call", "tool_result", "decision", "decision", "task_update")
SENSITIVITIES = ("none", "none", "low", "high", "secret")
BIG_OUTPUT_LINES = 2600  # about 75 KB: past the 64 KB excerpt, so the output goes to an artifact


def _stored(scope: str) -> str:
    return {"team_shared": "project_shared"}.get(scope, scope)


class Ops(Client):
    cross_probes = 0

    # --- notes and grants ---

    def op_add(self, ident: Ident) -> list[str]:
        scope = self.rng.choice(["agent_private", "team_shared", "org_shared"])
        s = self.serial()
        text = f"Fact serial {s}: the {self.words(4)} ledger."
        subject = self.rng.choice(SUBJECTS)
        relation = {"subject": {"canonical": subject}, "predicate": "records", "object": {"value": f"entry serial {s}"}}
        body = {"scope": scope, "notes": [{"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9,
                                           "structured": {"relations": [relation]}}]}
        res = self.call("POST", "/v2/notes/ingest", ident, json=body)["results"][0]
        assert res["policy_decision"] in ("remember", "update"), res
        nid, stored = res["note_id"], _stored(scope)
        home = ORG if stored == "org_shared" else ident[1]
        if res["op"] == "ADD":
            self.world.notes[nid] = Owned(ident[0], home, ident[2], stored, s)
        else:  # a similar note of the same group was updated (new text) or kept: same home, owner and scope
            n = self.world.notes[nid]
            assert (n.tenant, n.home, n.owner, n.scope) == (ident[0], home, ident[2], stored), (res, n)
            if res["op"] == "UPDATE":
                n.serial = s
                if self.world.rederive(nid):  # the update's text states only the new relation
                    self.facet("graph", "update re-derives")
        # the relation is recorded whatever the op, with the note as evidence, in the note's project at write
        self.world.add_fact(s, Fact((ident[0], self.world.notes[nid].home, subject), nid, agent=ident[2],
                                    scope=stored), ident)
        self.ledger.remember("note", nid, ident[0])
        self.pending["notes"].add(nid)
        self.facet("note scope", stored)
        return [nid]

    def op_lead(self, ident: Ident) -> list[str]:
        """A keyed note about who leads Project Larkspur (led_by: made active and single-valued in each project
        once it exists), or the same key updated to a text that states no relation. Half the time it acts as the
        owner of a keyed note (not ``ident``), so that updates of one are frequent."""
        scope = self.rng.choice(["agent_private", "agent_private", "team_shared"])
        w = self.world
        mine = sorted(i for i, k in w.keyed.items() if w.notes[i].status == "active")
        if mine and self.rng.random() < 0.5:  # half the time, update a keyed note (as its owner)
            n = w.notes[self.rng.choice(mine)]
            ident, scope = (n.tenant, n.home, n.owner), {"project_shared": "team_shared"}.get(n.scope, n.scope)
        return self.write_lead(ident, scope, states_leader=self.rng.random() >= 0.4)

    def opening(self, tenant: str, project: str, agents: tuple[str, str]) -> None:
        """What no random sequence is sure to reach. Two agents of one project each write an agent_private
        leader: the second, with led_by single-valued by then, must leave the first agent's fact current. And
        that project records a task and a decision, so the other project's probes have one of each to name."""
        for agent in agents:
            self.write_lead((tenant, project, agent), "agent_private", states_leader=True)
        ident = (tenant, project, agents[0])
        self._task(ident, self.serial(), "r1", "private", "none")
        self._decision(ident, self.serial(), "r1", "private", "none")

    def write_lead(self, ident: Ident, scope: str, *, states_leader: bool) -> list[str]:
        """The keyed note ``larkspur.lead`` of ``ident`` in ``scope``: it states a leader or names none."""
        stored, s, key = _stored(scope), self.serial(), "larkspur.lead"
        relations = [] if not states_leader else [
            {"subject": {"canonical": LEAD_SUBJECT}, "predicate": LEAD_PREDICATE,
             "object": {"value": f"person serial {s}"}}]
        text = (f"Lead serial {s}: {self.words(3)} leads Project Larkspur." if relations
                else f"Lead serial {s}: the {self.words(3)} note names no leader.")
        note = {"type": "fact", "key": key, "text": text, "importance": 0.5, "confidence": 0.9,
                "structured": {"relations": relations}}
        res = self.call("POST", "/v2/notes/ingest", ident, json={"scope": scope, "notes": [note]})["results"][0]
        assert res["policy_decision"] in ("remember", "update"), res
        nid = res["note_id"]
        if res["op"] == "ADD":
            self.world.notes[nid] = Owned(ident[0], ident[1], ident[2], stored, s)
        else:
            n = self.world.notes[nid]
            assert (n.tenant, n.home, n.owner, n.scope) == (ident[0], ident[1], ident[2], stored), (res, n)
            if res["op"] == "UPDATE":
                n.serial = s
                if self.world.rederive(nid):
                    self.facet("graph", "relation removed" if not relations else "update re-derives")
        self.world.keyed[nid] = key
        if relations:
            fact = Fact((ident[0], ident[1], LEAD_SUBJECT), nid, LEAD_PREDICATE, ident[2], stored)
            if self.world.add_fact(s, fact, ident):
                self.facet("graph", "other agent's private fact stays current")
            self._make_single(ident)
        self.ledger.remember("note", nid, ident[0])
        self.pending["notes"].add(nid)
        return [nid]

    def _make_single(self, ident: Ident) -> None:
        """led_by of this project: active and single-valued (the project's admin key; once)."""
        if (ident[0], ident[1], LEAD_PREDICATE) in self.world.single:
            return
        admin = (ident[0], ident[1], "admin")
        listed = self.call("GET", "/v2/admin/graph/predicates", admin, admin=True,
                           params={"scope": "tenant_project"})["predicates"]
        (pred,) = [p for p in listed if p["canonical_norm"] == LEAD_PREDICATE]
        self.call("PATCH", f"/v2/admin/graph/predicates/{pred['predicate_id']}", admin, admin=True,
                  json={"status": "active", "cardinality": "single"})
        self.world.single.add((ident[0], ident[1], LEAD_PREDICATE))

    def _grant_args(self, ident: Ident):
        scope = self.rng.choice(["project_shared", "org_shared"])
        kind = self.rng.choice(["project", "agent"])
        grantee = self.rng.choice([a for a in ("a1", "a2", "a3") if a != ident[2]]) if kind == "agent" else None
        home = ORG if scope == "org_shared" else ident[1]
        return scope, kind, grantee, (ident[0], home, scope, ident[2], kind, grantee)

    def _space(self, key) -> list[str]:
        docs = [i for i, d in self.world.docs.items() if (d.tenant, d.home, d.scope, d.owner) == tuple(key[:4])]
        return self.world.space_items(*key[:4]) + docs

    def op_grant(self, ident: Ident) -> list[str]:
        scope, kind, grantee, key = self._grant_args(ident)
        body = {"grantee_kind": kind, **({"grantee_agent_id": grantee} if grantee else {})}
        assert self.call("POST", f"/v2/spaces/{SPACE_OF[scope]}/grants", ident, json=body)["granted"] is True
        self.world.grants.add(key)
        self.facet("grant", scope, kind)
        return self._space(key)

    def op_revoke(self, ident: Ident) -> list[str]:
        scope, kind, grantee, key = self._grant_args(ident)
        if self.rng.random() < 0.7:  # mostly revoke a grant that exists
            mine = [g for g in self.world.grants if g[0] == ident[0] and g[3] == ident[2] and g[1] in (ident[1], ORG)]
            if mine:
                key = self.rng.choice(sorted(mine, key=str))
                scope, kind, grantee = key[2], key[4], key[5]
        body = {"grantee_kind": kind, **({"grantee_agent_id": grantee} if grantee else {})}
        revoked = self.call("POST", f"/v2/spaces/{SPACE_OF[scope]}/grants/revoke", ident, json=body)["revoked"]
        assert revoked == (key in self.world.grants), (key, revoked)
        self.world.grants.discard(key)
        self.facet("revoke", revoked)
        return self._space(key)

    def op_publish(self, ident: Ident) -> list[str]:
        mine = [i for i in self.world.owned(self.world.notes, ident) if i not in self.world.keyed]
        if not mine:
            return self.op_add(ident)
        nid = self.rng.choice(mine)
        scope = self.rng.choice(["project_shared", "org_shared"])
        self.call("POST", f"/v2/notes/{nid}/publish", ident, json={"space": SPACE_OF[scope]})
        n = self.world.notes[nid]
        n.scope, n.home = scope, ORG if scope == "org_shared" else ident[1]
        self.world.grants.add((n.tenant, n.home, scope, n.owner, "project", None))
        self.pending["notes"].add(nid)
        self.facet("note scope", scope)
        return [nid, *self._space((n.tenant, n.home, scope, n.owner))]

    def op_unpublish(self, ident: Ident) -> list[str]:
        mine = [i for i in self.world.owned(self.world.notes, ident)
                if self.world.notes[i].scope != "agent_private" and i not in self.world.keyed]
        if not mine:
            return self.op_publish(ident)
        nid = self.rng.choice(mine)
        n = self.world.notes[nid]
        out = self.call("POST", f"/v2/notes/{nid}/unpublish", ident, json={"space": SPACE_OF[n.scope]})
        assert out["space"] == "agent_private", out
        n.scope, n.home = "agent_private", ident[1]
        self.pending["notes"].add(nid)
        return [nid]

    def op_delete(self, ident: Ident) -> list[str]:
        mine = self.world.owned(self.world.notes, ident)
        if not mine:
            return self.op_add(ident)
        nid = self.rng.choice(mine)
        assert self.call("DELETE", f"/v2/notes/{nid}", ident)["op"] == "DELETE"
        self.world.notes[nid].status = "deleted"
        self.pending["notes"].add(nid)
        return [nid]

    # --- documents ---

    def op_doc_put(self, ident: Ident) -> list[str]:
        scope = self.rng.choice(["agent_private", "team_shared", "org_shared"])
        s = self.serial()
        content = (f"Archive record serial {s}. The {self.words(3)} archive keeps the harbor logbooks. "
                   f"Each page lists the {self.words(3)} shipments of one week, signed by the clerk on duty.")
        body = {"scope": scope, "title": f"Archive serial {s}", "content": content}
        doc_id = self.call("POST", "/v2/docs", ident, json=body)["doc_id"]
        stored = _stored(scope)
        self.world.docs[doc_id] = Owned(ident[0], ORG if stored == "org_shared" else ident[1], ident[2], stored, s)
        self.ledger.remember("doc", doc_id, ident[0])
        self.pending["docs"].add(doc_id)
        self.facet("doc scope", stored)
        return [doc_id]

    def op_doc_publish(self, ident: Ident) -> list[str]:
        mine = self.world.owned(self.world.docs, ident)
        if not mine:
            return self.op_doc_put(ident)
        doc_id = self.rng.choice(mine)
        scope = self.rng.choice(["project_shared", "org_shared"])
        out = self.call("POST", f"/v2/docs/{doc_id}/publish", ident, json={"space": SPACE_OF[scope]})
        assert out["scope"] == scope, out
        d = self.world.docs[doc_id]
        d.scope, d.home = scope, ORG if scope == "org_shared" else ident[1]  # no grant: readers need one
        self.pending["docs"].add(doc_id)
        return [doc_id]

    def op_doc_unpublish(self, ident: Ident) -> list[str]:
        mine = [i for i in self.world.owned(self.world.docs, ident) if self.world.docs[i].scope != "agent_private"]
        if not mine:
            return self.op_doc_publish(ident)
        doc_id = self.rng.choice(mine)
        d = self.world.docs[doc_id]
        out = self.call("POST", f"/v2/docs/{doc_id}/unpublish", ident, json={"space": SPACE_OF[d.scope]})
        assert out["scope"] == "agent_private", out
        d.scope, d.home = "agent_private", ident[1]
        self.pending["docs"].add(doc_id)
        return [doc_id]

    def op_doc_delete(self, ident: Ident) -> list[str]:
        mine = self.world.owned(self.world.docs, ident)
        if not mine:
            return self.op_doc_put(ident)
        doc_id = self.rng.choice(mine)
        self.call("DELETE", f"/v2/docs/{doc_id}", ident)
        self.world.docs[doc_id].status = "deleted"
        self.pending["docs"].add(doc_id)
        return [doc_id]

    def op_scope_denied(self, ident: Ident) -> list[str]:
        """On the locked elf-api ([scopes.write_allowed] org_shared = false): an org_shared document, a publish
        of a document to org_shared, and an org_shared note are all refused, and leave no org_shared document
        or note quoting the serial (issue 31, item 3: documents honour write_allowed by value, as notes do)."""
        for what in ("doc put", "doc publish", "note"):
            self._scope_denied(ident, what, self.serial())
        return []

    def _scope_denied(self, ident: Ident, what: str, s: int) -> None:
        base = self.locked.public
        content = f"Archive record serial {s}. The {self.words(3)} archive keeps the harbor logbooks."
        if what == "note":
            body = {"scope": "org_shared", "notes": [{"type": "fact", "text": f"Fact serial {s}: the ledger.",
                                                      "importance": 0.5, "confidence": 0.9}]}
            res = self.call("POST", "/v2/notes/ingest", ident, base=base, json=body)["results"][0]
            if res.get("reason_code") != "REJECT_SCOPE_DENIED" or res.get("note_id"):
                self.leak(ident, f"locked org_shared note: {res}")
        else:
            scope = "org_shared" if what == "doc put" else "agent_private"
            body = {"scope": scope, "title": f"Archive serial {s}", "content": content}
            r = self.request("POST", "/v2/docs", ident, base=base, json=body)
            if what == "doc publish":
                assert r.status_code == 200, f"{self.where()}: locked agent_private doc: {r.status_code} {r.text}"
                r = self.request("POST", f"/v2/docs/{r.json()['doc_id']}/publish", ident, base=base,
                                 json={"space": "org_shared"})
            fields = r.json().get("fields") if r.status_code != 200 else None
            if r.status_code != 403 or r.json().get("error_code") not in ("SCOPE_DENIED", "REJECT_SCOPE_DENIED") \
                    or fields != ["$.scope" if what == "doc put" else "$.space"]:
                self.leak(ident, f"locked org_shared {what}: {r.status_code} {r.text[:300]}")
        for table in ("memory_notes", "doc_documents"):
            n = self.locked_db().execute(f"SELECT count(*) FROM {table} t WHERE scope = 'org_shared' AND t::text ~ %s",
                                         (f"serial {s}([^0-9]|$)",)).fetchone()[0]
            if n:
                self.leak(ident, f"locked org_shared {what} (serial {s}) left {n} org_shared row(s) in {table}")
        self.facet("write_allowed false", what)

    # --- core memory ---

    def _core_write(self, ident: Ident, doc: tuple, key: str, kind: str) -> tuple[str, int]:
        s = self.serial()
        value = f"serial {s} {self.words(2)}"
        self.world.core.setdefault(doc, {})[key] = (value, s, kind)
        self.world.core_history.setdefault(doc[:2], set()).add(s)
        return value, s

    def op_core_upsert(self, ident: Ident) -> list[str]:
        tenant, project, _ = ident
        scope, run = self.rng.choice(["profile", "session"]), self.rng.choice(("r1", "r2"))
        key, kind = self.rng.choice(CORE_KEYS), self.rng.choice(KINDS)
        body = {"scope": scope, "kind": kind, "key": key, "source": "user_explicit", "run_id": run}
        if scope == "session" and (tenant, project, run) in self.world.ended_runs:
            body["value"] = f"serial {self.serial()} {self.words(2)}"  # refused: never stored
            self.call("POST", "/v2/core-memory/entries", ident, json=body, expect=409)
            self.facet("core", "ended run refused")
            return []
        doc = (tenant, project, scope, run if scope == "session" else "")
        body["value"], _ = self._core_write(ident, doc, key, kind)
        out = self.call("POST", "/v2/core-memory/entries", ident, json=body)
        assert out["status"] == "written" and out["key"] == key, out
        self.facet("core", scope)
        return []

    def op_core_delete(self, ident: Ident) -> list[str]:
        tenant, project, _ = ident
        run = self.rng.choice(("r1", "r2"))
        scope = (
            "profile" if (tenant, project, run) in self.world.ended_runs else self.rng.choice(["profile", "session"])
        )
        doc = (tenant, project, scope, run if scope == "session" else "")
        key = self.rng.choice(CORE_KEYS)
        present = key in self.world.core.get(doc, {})
        self.call(
            "DELETE",
            f"/v2/core-memory/entries/{scope}/{key}",
            ident,
            params={"run_id": run},
            expect=200 if present else 404,
        )
        self.world.core.get(doc, {}).pop(key, None)
        self.facet("core delete", present)
        return []

    def op_policy_upsert(self, ident: Ident) -> list[str]:
        key, kind = self.rng.choice(CORE_KEYS), self.rng.choice(("constraint", "instruction"))
        value, _ = self._core_write(ident, (ident[0], "", "policy", ""), key, kind)
        body = {"scope": "policy", "kind": kind, "key": key, "value": value}
        assert self.call("POST", "/v2/admin/core-memory/entries", ident, admin=True, json=body)["status"] == "written"
        self.facet("core", "policy")
        return []

    def op_run_end(self, ident: Ident) -> list[str]:
        run = self.rng.choice(("r1", "r2"))
        out = self.call("POST", f"/v2/core-memory/runs/{run}/end", ident)
        assert out["already_ended"] == ((ident[0], ident[1], run) in self.world.ended_runs), out
        self.world.ended_runs.add((ident[0], ident[1], run))
        self.facet("core", "run ended")
        return []

    # --- event log ---

    def _acb_body(self, ident: Ident, session: str) -> dict:
        return {**self.own_ids(ident), "session_id": session}

    def _own_refs(self, ident: Ident) -> list[str]:
        pool = sorted(self.world.project_ids(*ident[:2]))
        return self.rng.sample(pool, min(len(pool), self.rng.choice((0, 0, 1, 2))))

    def _record(
        self,
        ident: Ident,
        kind: str,
        content: dict,
        *,
        session: str,
        channel: str,
        sensitivity: str,
        serial: int,
        big: bool = False,
        path: str = "/api/v1/events",
    ) -> dict:
        body = {**self._acb_body(ident, session), "channel": channel, "refs": self._own_refs(ident)}
        if path == "/api/v1/events":
            body.update(
                actor={
                    "type": "tool" if kind == "tool_result" else "agent",
                    "id": "fs" if kind == "tool_result" else ident[2],
                },
                kind=kind,
                sensitivity=sensitivity,
                content=content,
            )
        else:  # the flat bodies of /api/v1/decisions and /api/v1/tasks
            body.update(content, **({"sensitivity": sensitivity} if kind == "decision" else {}))
        out = self.call("POST", path, ident, json=body)
        if sensitivity == "secret":
            assert out["withheld"] and out["chunk_ids"] == [] and out["decision_id"] is None, out
        else:
            self.world.events[out["event_id"]] = Event(
                ident[0],
                ident[1],
                session,
                channel,
                sensitivity,
                kind,
                serial,
                {out["event_id"], *out["chunk_ids"]},
                big,
            )
        self.facet("event", kind, channel, sensitivity)
        return out

    def op_event(self, ident: Ident) -> list[str]:
        kind = self.rng.choice(EVENT_KINDS)
        session, channel = self.rng.choice(("r1", "r2")), self.rng.choice(("private", "public", "team", "agent"))
        # a shared rotation, not ``rng``: every sensitivity is written in every run (``rng``'s stream is not fully
        # reproducible, since ``foreign`` draws from it only when other examples have written ids)
        sensitivity = self.ledger.turn("sensitivity", SENSITIVITIES)
        s = self.serial()
        if kind == "message":
            content = {"text": f"Note serial {s}: the {self.words(3)} crew reports in."}
        elif kind == "tool_call":
            content = {"tool": "read_file", "args": {"path": f"logs serial {s}.txt"}}
        elif kind == "tool_result":
            content = {"tool": "fs", "output": f"log serial {s}\n{self.words(5)}\n", "path": "log.txt"}
        elif kind == "decision":
            return self._decision(ident, s, session, channel, sensitivity)
        else:
            return self._task(ident, s, session, channel, sensitivity)
        self._record(ident, kind, content, session=session, channel=channel, sensitivity=sensitivity, serial=s)
        return []

    def _decision(self, ident: Ident, s: int, session: str, channel: str, sensitivity: str) -> list[str]:
        content = {"decision": f"Use the {self.words(2)} route, serial {s}", "rationale": [f"it is {self.words(2)}"]}
        active = sorted(i for i, d in self.world.decisions.items() if d.status == "active")
        if active and self.rng.random() < 0.5:  # supersede one, as an agent of its project (the project's ledger)
            content["supersedes"] = self.rng.choice(active)
            d = self.world.decisions[content["supersedes"]]
            ident = (d.tenant, d.project, ident[2])
        flat = sensitivity != "secret" and self.rng.random() < 0.3
        out = self._record(
            ident,
            "decision",
            content,
            session=session,
            channel=channel,
            sensitivity=sensitivity,
            serial=s,
            path="/api/v1/decisions" if flat else "/api/v1/events",
        )
        if sensitivity != "secret":
            self.world.decisions[out["decision_id"]] = Decision(
                ident[0], ident[1], session, channel, sensitivity, s, out["event_id"]
            )
            if content.get("supersedes"):
                self.world.decisions[content["supersedes"]].status = "superseded"
                self.facet("decision superseded")
        return []

    def _task(self, ident: Ident, s: int, session: str, channel: str, sensitivity: str) -> list[str]:
        mine = sorted(i for i, t in self.world.tasks.items() if (t.tenant, t.project) == (ident[0], ident[1]))
        status = self.rng.choice(("open", "doing", "done"))
        content: dict = {"status": status}
        if mine and self.rng.random() < 0.5:
            content.update(task_id=self.rng.choice(mine), details=f"progress serial {s}")
        else:
            content["title"] = f"Check the {self.words(2)} manifest serial {s}"
        flat = self.rng.random() < 0.3
        sensitivity = "none" if flat else sensitivity  # the flat body has no sensitivity
        out = self._record(
            ident,
            "task_update",
            content,
            session=session,
            channel=channel,
            sensitivity=sensitivity,
            serial=s,
            path="/api/v1/tasks" if flat else "/api/v1/events",
        )
        if sensitivity != "secret":
            task = self.world.tasks.setdefault(out["task_id"], Task(ident[0], ident[1], status, s))
            assert (task.tenant, task.project) == (ident[0], ident[1]), (out, task)
            task.status = status
            if "details" in content:
                task.details = s
        return []

    def op_big_tool_result(self, ident: Ident) -> list[str]:
        s = self.serial()
        lines = [f"log serial {s}"] + [f"row {i} of the nightly export" for i in range(BIG_OUTPUT_LINES)]
        session, channel = self.rng.choice(("r1", "r2")), self.rng.choice(("private", "team"))
        out = self._record(
            ident,
            "tool_result",
            {"tool": "fs", "output": "\n".join(lines) + "\n", "path": "export.txt"},
            session=session,
            channel=channel,
            sensitivity="none",
            serial=s,
            big=True,
        )
        assert out["artifact_id"], out
        self.world.artifacts[out["artifact_id"]] = (ident[0], s, out["event_id"])
        self.ledger.remember("artifact", out["artifact_id"], ident[0])
        return []

    # --- probes: writes that name another project's or tenant's ids ---

    def op_probe(self, ident: Ident) -> list[str]:
        w, here = self.world, ident[:2]
        targets = {
            # another project's decision, active or superseded: 404 alike (a 409 would tell it exists)
            "supersede": sorted(i for i, d in w.decisions.items() if (d.tenant, d.project) != here),
            "task": sorted(i for i, t in w.tasks.items() if (t.tenant, t.project) != here),
            "refs": sorted(w.foreign_ids(*here)),
        }
        kinds = [k for k in ("supersede", "task", "refs") if targets[k]]
        if not kinds:
            return []
        turn = ("supersede", "task", "refs")[(self.index + self.cross_probes) % 3]  # each kind in turn
        self.cross_probes += 1
        kind = turn if turn in kinds else self.rng.choice(kinds)
        target = self.rng.choice(targets[kind])
        base = {**self._acb_body(ident, "r1"), "channel": "private"}
        s = self.serial()
        if kind == "supersede":
            body = {**base, "decision": f"Override serial {s}", "supersedes": target}
            self._refused(ident, "POST", "/api/v1/decisions", body, 404, f"supersedes {target} of another project")
        elif kind == "task":
            self._probe_task(ident, target, base, s)
        else:
            body = {
                **base,
                "actor": {"type": "agent", "id": ident[2]},
                "kind": "message",
                "content": {"text": f"Probe serial {s}"},
                "refs": [target],
            }
            self._refused(ident, "POST", "/api/v1/events", body, 400, f"refs {target} of another project")
        with self.ledger.lock:
            self.ledger.probes[kind] += 1
        return []

    def _refused(self, ident: Ident, method: str, path: str, body: dict, status: int, what: str) -> None:
        """A write naming another project's id: ``status``, as for an id that exists nowhere. A 200 is a leak
        (it wrote across projects), and so is any other answer (e.g. 409 DECISION_SUPERSEDED: it exists)."""
        r = self.request(method, path, ident, json=body)
        if r.status_code != status:
            self.leak(ident, f"{method} {path} naming {what}: {r.status_code} {r.text[:200]} (want {status})")

    def _probe_task(self, ident: Ident, task_id: str, base: dict, s: int) -> None:
        """A task update naming another project's task: refused (that task is left as it was, which its own
        project's reads check), with or without a title."""
        body = {**base, "task_id": task_id, "status": "done", "details": f"closed serial {s}"}
        for extra in ({}, {"title": f"Hijack serial {s}"}):
            r = self.request("POST", "/api/v1/tasks", ident, json={**body, **extra})
            if r.status_code == 200:
                self.leak(ident, f"a task update in {ident[:2]} naming task {task_id} of another project: {r.json()}")
            else:
                assert r.status_code in (400, 404), f"{self.where()}: {r.status_code} {r.text}"
