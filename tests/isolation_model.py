"""What each reader may see, restated independently of the service's selectors: the model behind
tests/kernel/test_tenant_isolation.py. One World is one example's state: two tenants (with colliding project, agent,
run and session ids) and everything their agents wrote, with the grants between them.

Rules (supplement section 7, doc-extension-v1, core-memory-markdown, agent-memory-acb-prd section 9):
- notes and documents live in a home: their project (agent_private, project_shared) or the tenant's org space
  (org_shared, project "__org__"). The owner reads them from any project whose homes include them; another
  agent reads a shared one only through an active grant from the owner for its scope and home (a project grant
  covers every agent there, every agent of the tenant for the org space; an agent grant one agent id). One grant
  covers the owner's notes and documents alike; publishing a note creates a project grant, publishing a
  document does not;
- a graph fact is visible when one of its evidence notes is active and readable, and lists only those;
  an entity is readable when a visible fact names it. A note update re-derives the note's relations: a fact
  it no longer states loses that evidence (and, with none left, is listed nowhere). A new fact of an active
  single-valued predicate closes the current facts of the same (tenant, project, scope, subject, predicate),
  in the writer's reach: for agent_private only the same agent's, for a shared scope only those whose
  evidence the writer may read (state=current lists what is not closed);
- core memory: PROFILE.md belongs to (tenant, project), SESSION.md to (tenant, project, run), POLICY.md to the
  tenant; resolve answers Policy > Profile > Session;
- core memory resolve without keys lists the keys of the caller's PROFILE.md and SESSION.md only (a key only
  POLICY.md has is not enumerated); a listed key that POLICY.md overrides reports the policy value, provenance
  scope "policy"; with keys, every asked key is resolved, POLICY.md included;
- the event log is read within the caller's (tenant, project): a session id names one session per project (the
  same id in p1 and p2 are two sessions), and every agent of the project shares it (handoff). A bundle for a
  channel loads only the project's events of channels at most as open as its own, with the sensitivities its
  channel allows, never a secret one; public and agent bundles leave out core memory preferences and
  agent_private notes (and facts known only from them); open tasks, the decision ledger and artifacts are the
  project's, and a direct read (decisions/query, artifacts, ``channel`` default private) returns only what a
  bundle of that channel may load (an artifact follows its event's channel and sensitivity);
- with API keys (security.auth_mode = "static_keys") a request's (tenant, project, agent) is its key's: a body,
  header or query id that differs from it is 403 FORBIDDEN naming its JSONPath, and nothing is written;
- a scope false in [scopes.write_allowed] is refused for documents as for notes (REJECT_SCOPE_DENIED).
Every written text carries a unique "serial N": a read whose body names a serial it may not see leaks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ORG = "__org__"
SPACE_OF = {"project_shared": "team_shared", "org_shared": "org_shared"}
PROFILES = {
    "private_only": {"agent_private"},
    "private_plus_project": {"agent_private", "project_shared"},
    "all_scopes": {"agent_private", "project_shared", "org_shared"},
}
SHARED = {"project_shared", "org_shared"}
TENANTS, PROJECTS, AGENTS, RUNS = ("t1", "t2"), ("p1", "p2"), ("a1", "a2", "a3"), ("r1", "r2")
CHANNELS = ("private", "public", "team", "agent")
VISIBLE_CHANNELS = {"public": {"public"}, "agent": {"agent", "public"}, "team": {"team", "agent", "public"},
                    "private": {"private", "team", "agent", "public"}}
ALLOWED_SENSITIVITIES = {"public": {"none", "low"}, "agent": {"none", "low"}, "private": {"none", "low", "high"},
                         "team": {"none", "low", "high"}}
SERIAL = re.compile(r"serial (\d+)\b")

Ident = tuple[str, str, str]  # (tenant, project, agent)


def serials(text: str) -> set[int]:
    return {int(n) for n in SERIAL.findall(text)}


@dataclass
class Owned:
    """A note or a document: where it lives and who owns it."""

    tenant: str
    home: str
    owner: str
    scope: str
    serial: int
    status: str = "active"


@dataclass
class Fact:
    """One fact per relation written: its subject entity (tenant, project at write, name) and evidence note
    (None once an update of that note no longer states the relation); superseded: closed by a later fact of a
    single-valued predicate."""

    entity: tuple[str, str, str]
    note_id: str | None
    predicate: str = "records"
    agent: str = ""
    scope: str = ""
    superseded: bool = False


@dataclass
class Event:
    tenant: str
    project: str
    session: str
    channel: str
    sensitivity: str
    kind: str
    serial: int
    ids: set[str]  # the event id and its chunk ids
    big: bool = False  # a tool result whose output went to an artifact (its chunks may be cut from a bundle)


@dataclass
class Decision:
    tenant: str
    project: str
    session: str
    channel: str
    sensitivity: str
    serial: int
    event_id: str
    status: str = "active"


@dataclass
class Task:
    tenant: str
    project: str
    status: str
    title: int  # the serials of its title and details as they stand
    details: int | None = None

    @property
    def serials(self) -> set[int]:
        return {self.title} | ({self.details} if self.details else set())


@dataclass
class World:
    notes: dict[str, Owned] = field(default_factory=dict)
    docs: dict[str, Owned] = field(default_factory=dict)
    grants: set[tuple] = field(default_factory=set)  # (tenant, home, scope, owner, kind, grantee|None)
    facts: dict[int, Fact] = field(default_factory=dict)  # the serial in the fact's object value -> fact
    entity_ids: dict[tuple[str, str, str], str] = field(default_factory=dict)  # Fact.entity -> id the API gave it
    single: set[tuple[str, str, str]] = field(default_factory=set)  # (tenant, project, predicate) made single
    keyed: dict[str, str] = field(default_factory=dict)  # note id -> key (never moved: a move may collide)
    # (tenant, project, scope, run) -> {key: (value, serial, kind)}; POLICY.md is (tenant, "", "policy", "")
    core: dict[tuple, dict[str, tuple[str, int, str]]] = field(default_factory=dict)
    ended_runs: set[tuple[str, str, str]] = field(default_factory=set)
    core_history: dict[tuple[str, str], set[int]] = field(default_factory=dict)  # (tenant, project) -> serials
    events: dict[str, Event] = field(default_factory=dict)
    decisions: dict[str, Decision] = field(default_factory=dict)
    tasks: dict[str, Task] = field(default_factory=dict)
    artifacts: dict[str, tuple[str, int, str]] = field(default_factory=dict)  # id -> (tenant, serial, event id)

    # --- notes and documents ---

    @staticmethod
    def in_home(n: Owned, ident: Ident) -> bool:
        tenant, project, _ = ident
        if n.tenant != tenant:
            return False
        return (n.home == project and n.scope != "org_shared") or (n.home == ORG and n.scope == "org_shared")

    def readable(self, n: Owned, ident: Ident) -> bool:
        if not self.in_home(n, ident):
            return False
        if n.owner == ident[2]:
            return True
        if n.scope == "agent_private":
            return False
        base = (n.tenant, n.home, n.scope, n.owner)
        return (*base, "project", None) in self.grants or (*base, "agent", ident[2]) in self.grants

    def visible(self, items: dict[str, Owned], ident: Ident, scopes=None, active_only=True) -> set[str]:
        return {i for i, n in items.items() if self.readable(n, ident) and (scopes is None or n.scope in scopes)
                and (n.status == "active" or not active_only)}

    def owned(self, items: dict[str, Owned], ident: Ident) -> list[str]:
        return [i for i, n in items.items() if n.owner == ident[2] and n.status == "active" and self.in_home(n, ident)]

    def space_items(self, tenant, home, scope, owner) -> list[str]:
        return [
            i for i, n in self.notes.items() if (n.tenant, n.home, n.scope, n.owner) == (tenant, home, scope, owner)
        ]

    # --- graph ---

    def live_evidence(self, fact: Fact, ident: Ident, scopes=None) -> bool:
        if fact.note_id is None:
            return False
        n = self.notes[fact.note_id]
        return n.status == "active" and self.readable(n, ident) and (scopes is None or n.scope in scopes)

    def visible_facts(self, ident: Ident, scopes=None, current: bool = False) -> dict[int, Fact]:
        return {
            s: f
            for s, f in self.facts.items()
            if self.live_evidence(f, ident, scopes) and not (current and f.superseded)
        }

    def rederive(self, note_id: str) -> int:
        """An update of ``note_id`` restates its relations: the facts it was evidence of lose it."""
        gone = [f for f in self.facts.values() if f.note_id == note_id]
        for f in gone:
            f.note_id = None
        return len(gone)

    def add_fact(self, serial: int, fact: Fact, writer: Ident) -> bool:
        """Record a fact; with its predicate single-valued, close the open facts it supersedes: those in the
        writer's reach (an agent_private fact only the same agent's; a shared one only one whose evidence note
        the writer may read). Whether another agent's open agent_private fact of the same key was left open."""
        kept_other = False
        if (*fact.entity[:2], fact.predicate) in self.single:
            for f in self.facts.values():
                if (f.entity, f.predicate, f.scope) != (fact.entity, fact.predicate, fact.scope) or f.superseded:
                    continue
                if f.note_id is None:
                    continue  # no evidence left: listed nowhere, whatever it is
                if fact.scope == "agent_private" and f.agent != fact.agent or not self.live_evidence(f, writer):
                    kept_other = kept_other or fact.scope == "agent_private"
                    continue
                f.superseded = True
        self.facts[serial] = fact
        return kept_other

    # --- core memory ---

    def resolved(
        self, tenant: str, project: str, run: str | None, listed: bool = False
    ) -> dict[str, tuple[str, str, int, str]]:
        """key -> (value, scope, serial, kind): Policy > Profile > Session (each document has one line a key).
        ``listed``: what resolve without keys lists (only keys the caller's PROFILE.md or SESSION.md has)."""
        out: dict[str, tuple[str, str, int, str]] = {}
        docs = [((tenant, project, "session", run), "session")] if run else []
        docs += [((tenant, project, "profile", ""), "profile"), ((tenant, "", "policy", ""), "policy")]
        for doc, scope in docs:  # the later (higher) document wins
            for key, (value, serial, kind) in self.core.get(doc, {}).items():
                if not listed or scope != "policy" or key in out:
                    out[key] = (value, scope, serial, kind)
        return out

    def origin(self, serial: int) -> str:
        """What wrote a serial (for a failure message)."""
        out = [f"note {i} {n}" for i, n in self.notes.items() if n.serial == serial]
        out += [
            f"fact {f} of note {self.notes.get(f.note_id) if f.note_id else '(evidence removed)'}"
            for s, f in self.facts.items()
            if s == serial
        ]
        out += [f"doc {i} {d}" for i, d in self.docs.items() if d.serial == serial]
        out += [
            f"core {doc} {key}: {v}"
            for doc, entries in self.core.items()
            for key, v in entries.items()
            if v[1] == serial
        ]
        out += [f"event {e}" for e in self.events.values() if e.serial == serial]
        out += [f"task {i} {t}" for i, t in self.tasks.items() if serial in t.serials]
        return "; ".join(out) or "nothing the model holds (a refused or secret write, or a replaced value)"

    # --- event log and bundles ---

    def event_loads(self, e: Event, ident: Ident, channel: str) -> bool:
        return (
            (e.tenant, e.project) == ident[:2]
            and e.channel in VISIBLE_CHANNELS[channel]
            and e.sensitivity in ALLOWED_SENSITIVITIES[channel]
        )

    def decision_loads(self, decision_id: str, ident: Ident, channel: str) -> bool:
        d = self.decisions.get(decision_id)
        return d is not None and self.event_loads(self.events[d.event_id], ident, channel)

    def artifact_loads(self, artifact_id: str, ident: Ident, channel: str) -> bool:
        a = self.artifacts.get(artifact_id)
        return a is not None and self.event_loads(self.events[a[2]], ident, channel)

    def bundle_serials(self, ident: Ident, session: str, channel: str) -> set[int]:
        """Every serial a bundle for (ident, session, channel) may quote."""
        tenant, project, _ = ident
        restricted = channel in ("public", "agent")
        scopes = SHARED if restricted else None
        out = {
            n.serial
            for n in self.notes.values()
            if n.status == "active" and self.readable(n, ident) and (scopes is None or n.scope in scopes)
        }
        out |= set(self.visible_facts(ident, scopes))
        out |= {
            serial
            for value, scope, serial, kind in self.resolved(tenant, project, session).values()
            if not (restricted and kind == "preference")
        }
        out |= {e.serial for e in self.events.values() if self.event_loads(e, ident, channel)}
        out |= {
            s
            for t in self.tasks.values()
            if (t.tenant, t.project) == (tenant, project) and t.status in ("open", "doing")
            for s in t.serials
        }
        return out

    def bundle_must_quote(self, ident: Ident, channel: str, session: str) -> set[int]:
        """Serials of loadable events every bundle of the project must quote (its query matches them all, and an
        example is far below every section's cap); a tool output that went to an artifact is left out, and so
        is a sensitivity-high event (sealed at rest, its text matches no full-text query: docs/deviations.md;
        only its session's recent window, of capped length, may quote it)."""
        return {
            e.serial
            for e in self.events.values()
            if self.event_loads(e, ident, channel) and not e.big and e.sensitivity != "high"
        }

    def event_ids_ok(self, ident: Ident, channel: str, session: str | None) -> set[str]:
        """Event and chunk ids a bundle's quoted turns may cite (``session``: the recent window's)."""
        return {
            i
            for e in self.events.values()
            if self.event_loads(e, ident, channel) and (session is None or e.session == session)
            for i in e.ids
        }

    def project_ids(self, tenant: str, project: str) -> set[str]:
        """Every event, chunk, decision, task and artifact id of a project (what its refs may name)."""
        out = {i for e in self.events.values() if (e.tenant, e.project) == (tenant, project) for i in e.ids}
        out |= {i for i, d in self.decisions.items() if (d.tenant, d.project) == (tenant, project)}
        out |= {i for i, t in self.tasks.items() if (t.tenant, t.project) == (tenant, project)}
        return out | {
            i
            for i, a in self.artifacts.items()
            if (self.events[a[2]].tenant, self.events[a[2]].project) == (tenant, project)
        }

    def foreign_ids(self, tenant: str, project: str) -> set[str]:
        """The example's event-log ids outside (tenant, project): another project's or the other tenant's."""
        every = {i for e in self.events.values() for i in e.ids} | set(self.decisions) | set(self.tasks)
        return (every | set(self.artifacts)) - self.project_ids(tenant, project)
