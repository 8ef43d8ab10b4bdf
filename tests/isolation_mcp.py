"""The MCP surface of tests/kernel/test_tenant_isolation.py: each example starts one elf-mcp acting for one of its
identities (its [mcp] context and auth_token_id: that identity's static key) and calls its tools, checked
against the same World as the HTTP reads: it records events and notes, builds bundles, queries the decision
ledger, lists notes and reads artifacts; and it names another project, agent or tenant in a tool's context
arguments, which elf-mcp must refuse without calling the API (ELF_MCP_CONTEXT_MISMATCH / _TENANT_MISMATCH).
The v1 tools (memory_add_note, memory_list, memory_search, ...: v1 section 17, their ids in the body like the
/api/v1 ones) do the same: every example writes, lists and searches through them and probes each id with one, and
the random sequence's note writes and lists take the v1 tool every other time (the v2 one first)."""

from __future__ import annotations

import logging
import tomllib
import uuid

from tests.conftest import dumps, free_port, mcp_call, start_elf_mcp
from tests.fake_provider_server import FakeResponse, RecordedRequest
from tests.isolation_client import BASE_CLIENT, Client
from tests.isolation_model import CHANNELS, PROFILES, Event, Ident, Owned

FIELDS = ("tenant_id", "project_id", "agent_id")
READ_PROFILE = "private_plus_project"
KINDS = ("probe", "record", "build", "decisions", "probe", "note", "notes", "artifact")
V1_TOOLS = ("memory_add_note", "memory_add_event", "memory_search", "memory_list", "memory_update", "memory_delete")


def flat_rerank(request: RecordedRequest) -> FakeResponse:
    """The rerank endpoint the v1 search (planned_search) calls: every document scores the same."""
    return FakeResponse(json={"results": [{"index": i, "relevance_score": 0.0}
                                          for i in range(len(request.json["documents"]))]})


class McpSurface(Client):
    mcp_proc = None
    mcp_url: str | None = None
    mcp_ident: Ident | None = None
    mcp_probes = 0
    mcp_calls = 0
    mcp_turns = None  # per kind ("note", "notes"): how many calls the random sequence made, for v1 every other one

    def mcp_start(self) -> None:
        logging.getLogger("httpx2").setLevel(logging.WARNING)  # the MCP client logs every request
        self.mcp_ident = self.identities[self.rng.randrange(len(self.identities))]
        t, p, a = self.mcp_ident
        data = tomllib.loads(self.svc.config_path.read_text())
        data["service"]["mcp_bind"] = f"127.0.0.1:{free_port()}"
        data["mcp"] = {"tenant_id": t, "project_id": p, "agent_id": a, "read_profile": READ_PROFILE,
                       "auth_token_id": "/".join(self.mcp_ident)}
        config = self.svc.workdir / f"elf-mcp-{self.name}.toml"
        config.write_text(dumps(data))
        self.mcp_proc, self.mcp_url = start_elf_mcp(config, self.svc.workdir / f"mcp-{self.name}.log")

    def mcp_stop(self) -> None:
        if self.mcp_proc is not None:
            self.mcp_proc.stop()

    def tool(self, name: str, args: dict, *, ok: bool = True):
        result = mcp_call(self.mcp_url, name, args)
        text = result.content[0].text if result.content else ""
        assert result.is_error != ok, f"{self.where()}: MCP {name} {args}: {text[:500]}"
        return result.structured_content if result.structured_content is not None else text

    def op_mcp(self, ident: Ident) -> list[str]:
        """One MCP call as the example's MCP identity (``ident`` is not used: elf-mcp acts for one identity)."""
        me = self.mcp_ident
        kind = KINDS[(self.index + self.mcp_calls) % len(KINDS)]  # each kind in turn
        self.mcp_calls += 1
        getattr(self, f"_mcp_{kind}")(me)
        with self.ledger.lock:
            self.ledger.mcp[kind] += 1
        return []

    def _mcp_record(self, me: Ident) -> None:
        s = self.serial()
        session, channel = self.rng.choice(("r1", "r2")), self.rng.choice(CHANNELS)
        sensitivity = self.rng.choice(("none", "low", "high"))
        args = {"session_id": session, "channel": channel, "sensitivity": sensitivity, "kind": "message",
                "actor": {"type": "agent", "id": me[2]}, "content": {"text": f"Note serial {s}: the crew reports in."},
                **self.own_ids(me)}
        out = self.tool("elf_acb_record_event", args)
        self.world.events[out["event_id"]] = Event(me[0], me[1], session, channel, sensitivity, "message", s,
                                                   {out["event_id"], *out["chunk_ids"]})
        self.facet("mcp", "write event")

    def _mcp_note(self, me: Ident, v1: bool | None = None) -> None:
        s = self.serial()
        v1 = self._v1_turn("note") if v1 is None else v1
        note = {"type": "fact", "text": f"Fact serial {s}: the {self.words(4)} ledger.", "importance": 0.5,
                "confidence": 0.9}
        args = {"scope": "agent_private", "notes": [note]}
        res = self.tool("memory_add_note" if v1 else "elf_notes_ingest", args)["results"][0]
        assert res["op"] in ("ADD", "UPDATE") if v1 else res["policy_decision"] in ("remember", "update"), res
        nid = res["note_id"]
        if res["op"] == "ADD":
            self.world.notes[nid] = Owned(me[0], me[1], me[2], "agent_private", s)
        elif res["op"] == "UPDATE":
            self.world.notes[nid].serial = s
        self.ledger.remember("note", nid, me[0])
        self.pending["notes"].add(nid)
        self.facet("mcp", "v1 write note" if v1 else "write note")

    def _mcp_build(self, me: Ident) -> None:
        session, channel = self.rng.choice(("r1", "r2")), self.rng.choice(CHANNELS)
        bundle = self.tool("elf_acb_build", {"session_id": session, "channel": channel, "query_text": "serial",
                                             "max_tokens": 65000})
        who = ("mcp", *me, session, channel)
        found = self.scan(who, "MCP bundle", bundle["sections"], self.world.bundle_serials(me, session, channel))
        lost = self.world.bundle_must_quote(me, channel, session) - found
        if lost:
            self.miss(who, f"MCP bundle leaves out the loadable events of serials {sorted(lost)}")
        self.facet("mcp", "bundle")
        self.read("mcp bundle")

    def _mcp_decisions(self, me: Ident) -> None:
        channel = self.rng.choice((None, *CHANNELS))
        channel = None if BASE_CLIENT else channel  # the base commit's queries take no channel
        args = {"status": "all", "limit": 200, **({"channel": channel} if channel else {})}
        got = self.tool("elf_acb_query_decisions", args)["decisions"]
        want = {i for i in self.world.decisions if self.world.decision_loads(i, me, channel or "private")}
        self.compare(("mcp", *me), f"MCP decisions ({channel})", {d["decision_id"] for d in got}, want)
        self.scan(("mcp", *me), "MCP decisions", got, {self.world.decisions[i].serial for i in want})
        self.facet("mcp", "ledger")
        self.read("mcp decisions")

    def _mcp_notes(self, me: Ident, v1: bool | None = None) -> None:
        v1 = self._v1_turn("notes") if v1 is None else v1
        page = self.tool("memory_list" if v1 else "elf_notes_list", {"limit": 200, "scope": "agent_private"})
        want = self.world.visible(self.world.notes, me, {"agent_private"})
        what = "MCP v1 note list" if v1 else "MCP note list"
        self.compare(("mcp", *me), f"{what} (agent_private)", {n["note_id"] for n in page["notes"]}, want)
        self.scan(("mcp", *me), what, page, {self.world.notes[i].serial for i in want})
        self.facet("mcp", "v1 notes" if v1 else "notes")
        self.read("mcp v1 notes" if v1 else "mcp notes")

    def _v1_turn(self, kind: str) -> bool:
        """The random sequence's calls of a kind take the v2 tool first, then the v1 tool every other time."""
        self.mcp_turns = self.mcp_turns or {}
        self.mcp_turns[kind] = self.mcp_turns.get(kind, 0) + 1
        return self.mcp_turns[kind] % 2 == 0

    def _mcp_v1_search(self, me: Ident) -> None:
        """memory_search (planned_search, full notes): nothing the identity may not read. Only leaks are
        counted: the rerank cut may leave readable notes out."""
        self.settle("notes")
        items = self.tool("memory_search", {"query": "ledger", "top_k": 100, "candidate_k": 1024})["items"]
        want = self.world.visible(self.world.notes, me, PROFILES[READ_PROFILE])
        for nid in sorted({i["note_id"] for i in items} - want):
            self.leak(("mcp", *me), f"MCP v1 search: note {nid} not allowed")
        self.scan(("mcp", *me), "MCP v1 search", items, {self.world.notes[i].serial for i in want})
        self.facet("mcp", "v1 search")
        self.read("mcp v1 search")

    def _mcp_artifact(self, me: Ident) -> None:
        if not self.world.artifacts:
            return self._mcp_decisions(me)
        artifact_id = self.rng.choice(sorted(self.world.artifacts))
        allowed = self.world.artifact_loads(artifact_id, me, "private")
        result = mcp_call(self.mcp_url, "elf_acb_get_artifact", {"artifact_id": artifact_id})
        body = result.structured_content or {}
        if not result.is_error and not allowed:
            self.leak(("mcp", *me), f"MCP artifact {artifact_id} of another project: read")
        elif result.is_error and allowed:
            self.miss(("mcp", *me), f"MCP artifact {artifact_id}: {body}")
        elif result.is_error:
            assert body.get("error_code") == "NOT_FOUND", f"{self.where()}: MCP artifact: {body}"
        else:
            self.scan(("mcp", *me), f"MCP artifact {artifact_id}", body, {self.world.artifacts[artifact_id][1]})
        self.facet("mcp", "artifact")
        self.read("mcp artifact")

    def mcp_opening(self) -> None:
        """One refused probe naming each of the other ids, and one through a v1 tool, whatever the random sequence
        then calls; a note written, listed and searched for through the v1 tools."""
        for field in FIELDS:
            self._mcp_probe(self.mcp_ident, field)
            self._mcp_probe(self.mcp_ident, field, v1=True)
        self._mcp_note(self.mcp_ident, v1=True)
        self._mcp_notes(self.mcp_ident, v1=True)
        self._mcp_v1_search(self.mcp_ident)

    def _mcp_probe(self, me: Ident, field: str | None = None, v1: bool = False) -> None:
        """A tool call naming another tenant, project or agent: refused by elf-mcp, nothing sent."""
        if field is None:
            field = FIELDS[(self.index + self.mcp_probes) % len(FIELDS)]  # each in turn
            self.mcp_probes += 1
        t, p, a = me
        value = {"tenant_id": next(x for x in self.tenants if x != t), "project_id": "p2" if p == "p1" else "p1",
                 "agent_id": self.rng.choice([x for x in ("a1", "a2", "a3") if x != a])}[field]
        s = self.serial()
        name, args = self.rng.choice(self._v1_probes(me, s) if v1 else (
            ("elf_acb_build", {"session_id": "r1", "query_text": f"probe serial {s}"}),
            ("elf_acb_query_decisions", {"status": "all"}),
            ("elf_acb_record_event", {"session_id": "r1", "kind": "message", "actor": {"type": "human", "id": "u"},
                                      "content": {"text": f"Probe serial {s}"}}),
            ("elf_acb_task", {"session_id": "r1", "title": f"Probe serial {s}", "status": "open"}),
        ))
        result = mcp_call(self.mcp_url, name, {**args, field: value})
        body = result.structured_content or {}
        want = "ELF_MCP_TENANT_MISMATCH" if field == "tenant_id" else "ELF_MCP_CONTEXT_MISMATCH"
        if not result.is_error or body.get("error_code") != want or body.get("fields") != [f"$.{field}"]:
            self.leak(("mcp", *me), f"MCP {name} naming {field}={value}: {str(body or result.content)[:300]}")
        self._nothing_stored(me, f"MCP {name}", s)
        self.facet("mcp", "v1 probe" if v1 else "probe", field)
        with self.ledger.lock:
            self.ledger.refusals[f"mcp {field}"] += 1

    def _v1_probes(self, me: Ident, s: int) -> tuple[tuple[str, dict], ...]:
        """A call of each v1 tool (names in V1_TOOLS) as the probe may make it, with serial ``s`` in its text."""
        note = {"type": "fact", "text": f"Fact probe serial {s}.", "importance": 0.5, "confidence": 0.9}
        # the identity's own newest note, if any: a probe must be refused before its note_id matters
        own = self.world.owned(self.world.notes, me) or [str(uuid.uuid4())]
        probes = (
            ("memory_add_note", {"scope": "agent_private", "notes": [note]}),
            ("memory_add_event", {"dry_run": False, "messages": [{"role": "user", "content": f"Probe serial {s}."}]}),
            ("memory_search", {"query": f"probe serial {s}"}),
            ("memory_list", {"scope": "agent_private"}),
            ("memory_update", {"note_id": own[-1], "text": f"Fact probe serial {s}."}),
            ("memory_delete", {"note_id": own[-1]}),
        )
        assert tuple(name for name, _ in probes) == V1_TOOLS
        return probes
