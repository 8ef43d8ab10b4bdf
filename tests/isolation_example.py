"""One example of tests/kernel/test_tenant_isolation.py: a seeded random sequence of writes by the agents of two fresh
tenants (colliding project, agent, run and session ids) over notes, grants, documents, graph facts, core memory
and the event log, each followed by reads of the kind it could have changed (and a random one), then a sweep
where every identity reads everything."""

from __future__ import annotations

from tests.isolation_checks import Checks
from tests.isolation_identity import IdentityProbes
from tests.isolation_mcp import McpSurface
from tests.isolation_ops import Ops

OPS = (("op_add", 12), ("op_grant", 7), ("op_revoke", 5), ("op_publish", 5), ("op_unpublish", 3),
       ("op_delete", 3), ("op_doc_put", 6), ("op_doc_publish", 3), ("op_doc_unpublish", 2), ("op_doc_delete", 3),
       ("op_core_upsert", 6), ("op_core_delete", 2), ("op_policy_upsert", 2), ("op_run_end", 2), ("op_event", 10),
       ("op_big_tool_result", 2), ("op_probe", 5), ("op_identity_probe", 12), ("op_mcp", 8), ("op_scope_denied", 2),
       ("op_lead", 8))
NOTE_READS = ("check_search", "check_list", "check_facts", "check_entity")
DOC_READS = ("check_doc_search", "check_some_docs")
CORE_READS = ("check_core", "check_bundle")
ACB_READS = ("check_bundle", "check_decisions", "check_artifact")
FAMILY = {"op_add": NOTE_READS, "op_grant": NOTE_READS + DOC_READS, "op_revoke": NOTE_READS + DOC_READS,
          "op_publish": NOTE_READS, "op_unpublish": NOTE_READS, "op_delete": NOTE_READS,
          "op_doc_put": DOC_READS, "op_doc_publish": DOC_READS, "op_doc_unpublish": DOC_READS,
          "op_doc_delete": DOC_READS, "op_core_upsert": CORE_READS, "op_core_delete": CORE_READS,
          "op_policy_upsert": CORE_READS, "op_run_end": CORE_READS, "op_event": ACB_READS,
          "op_big_tool_result": ACB_READS, "op_probe": ACB_READS, "op_identity_probe": ACB_READS + NOTE_READS,
          "op_mcp": ACB_READS + NOTE_READS, "op_scope_denied": DOC_READS,
          "op_lead": ("check_facts", "check_facts", "check_entity")}
TOUCHED = 2
SWEEP_ENTITIES = 4
ALL_READS = NOTE_READS + DOC_READS + CORE_READS + ACB_READS + ("check_foreign",)


class Example(Ops, Checks, IdentityProbes, McpSurface):
    def run(self, ops: int) -> None:
        self.mcp_start()
        (tenant, project, first), (_, _, second) = self.identities[:2]
        self.opening(tenant, project, (first, second))
        self.mcp_opening()
        names, weights = zip(*OPS, strict=False)
        for step in range(ops):
            ident, op = self.rng.choice(self.identities), self.rng.choices(names, weights)[0]
            self.step = f"step {step} ({op} by {ident})"
            touched = getattr(self, op)(ident)
            with self.ledger.lock:
                self.ledger.ops[op] += 1
            self.after(op, ident, touched)
        self.step = "final sweep"
        self.sweep()

    def close(self) -> None:
        self.mcp_stop()
        super().close()

    def after(self, op: str, ident, touched: list[str]) -> None:
        """Whether up to TOUCHED ids the operation touched are readable, asked of two identities of the writer's
        tenant and one of the other; then a read of the kind the operation could change, and sometimes any read
        (the sweep asks everything of everyone)."""
        if touched:
            mine = [i for i in self.identities if i[0] == ident[0]]
            others = [i for i in self.identities if i[0] != ident[0]]
            readers = self.rng.sample(mine, 2) + [self.rng.choice(others)]
            touched = self.rng.sample(touched, min(len(touched), TOUCHED))
            for reader in readers:
                self.check_get_notes(reader, [i for i in touched if i in self.world.notes])
                self.check_get_docs(reader, [i for i in touched if i in self.world.docs])
        getattr(self, self.rng.choice(FAMILY[op]))(self.rng.choice(self.identities))
        if self.rng.random() < 0.5:
            getattr(self, self.rng.choice(ALL_READS))(self.rng.choice(self.identities))

    def check_some_docs(self, ident) -> None:
        docs = sorted(self.world.docs)
        self.check_get_docs(ident, self.rng.sample(docs, min(len(docs), 3)))

    def check_foreign(self, ident) -> None:
        """Ids another example wrote: never readable here."""
        for kind, check in (("note", self.check_get_notes), ("doc", self.check_get_docs)):
            foreign = self.ledger.foreign(kind, self.probe_rng, self.tenants)
            if foreign is not None:
                check(ident, [foreign])
                self.facet("foreign", kind)

    def sweep(self) -> None:
        """Every identity reads everything: notes, facts, documents, core memory, a bundle on a channel (each
        channel in turn), the decision ledger and the artifacts, a few entities of either tenant, and ids of
        other examples; every note and document is asked for by each identity of its tenant and one of the
        other (which only ever gets 404s)."""
        channels = ("private", "public", "team", "agent")
        for n, ident in enumerate(self.identities):
            self.check_search(ident)
            self.check_list(ident)
            self.check_facts(ident)
            self.check_facts(ident, "current")  # what supersession left current, as each identity sees it
            entities = sorted(self.world.entity_ids.values())
            for entity_id in self.rng.sample(entities, min(len(entities), SWEEP_ENTITIES)):
                self.check_entity(ident, entity_id)
            self.check_doc_search(ident)
            self.check_core(ident)
            self.check_bundle(ident, channels[n % len(channels)])
            self.check_decisions(ident)
            for artifact_id in sorted(self.world.artifacts):
                self.check_artifact(ident, artifact_id)
            self.check_entity(ident)
            self.check_artifact(ident)
            self.check_foreign(ident)
        for items, check in ((self.world.notes, self.check_get_notes), (self.world.docs, self.check_get_docs)):
            for item_id, item in sorted(items.items()):
                others = [i for i in self.identities if i[0] != item.tenant]
                for ident in [i for i in self.identities if i[0] == item.tenant] + [self.rng.choice(others)]:
                    check(ident, [item_id])
