"""Isolation as a property, over notes, documents, graph facts, core memory, the event log with its ledger,
artifacts and bundles, and MCP: seeded random examples, each two fresh tenants whose agents (with colliding
project, agent, run and session ids) write, grant, revoke, publish, unpublish and delete, while reads over real
HTTP are compared with an independent model of what each identity may see (tests/isolation_model.py states the
rules). A read that returns more than the model allows is a leak; less, a miss. Both must be zero.

The service runs with security.auth_mode = "static_keys": every identity of every example has its own key in
the generated config (and each project an admin key), and every request authenticates with its identity's key.
Identity probes (tests/isolation_identity.py) name another agent's, project's or tenant's id in a body, a
context header or a query string: each must be 403 FORBIDDEN naming that JSONPath and write nothing. Each example
also drives one elf-mcp acting for one of its identities (tests/isolation_mcp.py), and a second elf-api with
[scopes.write_allowed] org_shared = false must refuse org_shared documents and notes (issue 31).

Examples share one elf-api and elf-worker and run in parallel threads (each in its own tenants, so they are
also each other's neighbours: ids of other examples are probed and must stay unreadable).

CI runs a short seed (ELF_ISOLATION_OPS operations, default 360). ``make soak`` runs ELF_SOAK_OPS (10,000).
ELF_ISOLATION_SEED picks the sequence (and the keys), ELF_ISOLATION_OPS_PER_EXAMPLE its examples' length
(default 60) and ELF_ISOLATION_THREADS how many run at once (default 6).
"""

from __future__ import annotations

import os
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import RERANK_PATH
from tests.isolation_client import Ledger, auth_keys
from tests.isolation_example import OPS, Example
from tests.isolation_identity import PROBES
from tests.isolation_mcp import flat_rerank

CI_OPS = 360
SEED = os.environ.get("ELF_ISOLATION_SEED", "20261121")


def _sizes() -> list[int]:
    """Each example's length: known before the service starts, so every identity's key is in its config."""
    total = int(os.environ.get("ELF_SOAK_OPS") or os.environ.get("ELF_ISOLATION_OPS") or CI_OPS)
    per = int(os.environ.get("ELF_ISOLATION_OPS_PER_EXAMPLE", "60"))
    return [per] * (total // per) + ([total % per] if total % per else [])


def _with_keys(data: dict) -> None:
    data["search"]["prefilter"]["max_candidates"] = 1024
    data["search"]["explain"]["retention_days"] = 1
    data["security"].update(auth_mode="static_keys", auth_keys=auth_keys(SEED, len(_sizes())))


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("isolation", _with_keys)
    s.fake.handle(RERANK_PATH, flat_rerank)  # the v1 search tool runs planned_search: one rerank
    s.start_api()
    s.start_worker()
    return s


@pytest.fixture(scope="module")
def locked(isolated_services_module):
    """A second elf-api (same keys, its own database) whose [scopes.write_allowed] sets org_shared = false:
    every org_shared note or document write there is REJECT_SCOPE_DENIED and leaves nothing."""
    def mutate(data):
        _with_keys(data)
        data["scopes"]["write_allowed"]["org_shared"] = False
    s = isolated_services_module("isolation_locked", mutate)
    s.start_api()
    return s


def _run(svc, locked, ledger: Ledger, seed: str, index: int, ops: int, started: float) -> None:
    example = Example(svc, ledger, f"{seed}-{index}", index, seed, locked)
    try:
        example.run(ops)
    except BaseException:
        raise AssertionError(f"{example.where()}:\n{traceback.format_exc()}") from None
    finally:
        example.close()
    with ledger.lock:  # progress, for a long run (pytest -s)
        print(f"example {example.name} done: {sum(ledger.ops.values())} operations, {len(ledger.leaks)} leaks, "
              f"{len(ledger.misses)} misses so far, {time.monotonic() - started:.0f} s", flush=True)


def _required_facets() -> set[tuple]:
    """Every kind of rule and surface a run must exercise (each facet is noted by the operation or read that
    exercised it): notes, documents, graph facts, core memory, the event log and its ledger, artifacts,
    bundles and MCP, and the identity probes of every kind."""
    ids, channels = ("tenant_id", "project_id", "agent_id"), ("private", "public", "team", "agent")
    out = {("grant", s, k) for s in ("project_shared", "org_shared") for k in ("project", "agent")}
    out |= {
        (kind, s) for kind in ("note scope", "doc scope") for s in ("agent_private", "project_shared", "org_shared")
    }
    out |= {("core", c) for c in ("profile", "session", "policy", "run ended", "resolve listing beside policy")}
    out |= {("bundle", c) for c in channels} | {("decisions channel", c) for c in (None, *channels)}
    out |= {("decision superseded",), ("foreign", "note"), ("foreign", "doc")}
    # keys: another identity's id in a body, a header and a query string, for each of tenant, project and agent
    out |= {("identity probe", w, f) for w in ("body", "header", "query") for f in ids}
    out |= {("identity route", route) for _, route in PROBES}
    out |= {("artifact", "another project"), ("artifact", "another tenant")}
    out |= {("write_allowed false", w) for w in ("doc put", "doc publish", "note")}
    # MCP: writes, reads of every kind, and a refused call naming each of the other ids
    out |= {("mcp", w) for w in ("write event", "write note", "bundle", "ledger", "notes")}
    out |= {("mcp", "probe", f) for f in ids}
    # and through v1's tools (v1 section 17): a write, a list, a search, and a refused call naming each other id
    out |= {("mcp", w) for w in ("v1 write note", "v1 notes", "v1 search")} | {("mcp", "v1 probe", f) for f in ids}
    # graph: a note update re-derives its relations; agent_private facts supersede only the same agent's
    out |= {
        ("graph", "relation removed"),
        ("graph", "update re-derives"),
        ("graph", "other agent's private fact stays current"),
    }
    return out | {("graph", "single-valued facts read", s) for s in ("all", "current")}


READS = {
    "note search",
    "note list",
    "note get",
    "graph facts",
    "graph entity",
    "doc search",
    "GET doc",
    "doc excerpt",
    "core resolve",
    "core profile.md",
    "core session.md",
    "core audit",
    "acb bundle",
    "acb decisions",
    "acb artifact",
    "mcp bundle",
    "mcp decisions",
    "mcp notes",
    "mcp v1 notes",
    "mcp v1 search",
}


def test_no_read_crosses_a_tenant_a_scope_or_a_grant(svc, locked):
    seed, sizes, total = SEED, _sizes(), sum(_sizes())
    threads = int(os.environ.get("ELF_ISOLATION_THREADS", "6"))
    ledger = Ledger()
    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(_run, svc, locked, ledger, seed, i, n, started) for i, n in enumerate(sizes)]
        errors = [str(f.exception()) for f in futures if f.exception() is not None]
    ops, reads = sum(ledger.ops.values()), sum(ledger.reads.values())
    facets = ledger.facets
    unexercised = sorted(_required_facets() - facets, key=str) + sorted(READS - set(ledger.reads))
    unexercised += sorted({name for name, _ in OPS} - set(ledger.ops))
    print(
        f"\nisolation: seed {seed}, {ops} operations in {len(sizes)} examples ({threads} at once), {reads} reads, "
        f"{sum(ledger.probes.values())} cross-project write probes, {sum(ledger.refusals.values())} identity "
        f"probes refused, {sum(ledger.mcp.values())} MCP calls, {time.monotonic() - started:.0f} s\n"
        f"  operations: {dict(sorted(ledger.ops.items()))}\n  reads: {dict(sorted(ledger.reads.items()))}\n"
        f"  identity probes refused: {dict(sorted(ledger.refusals.items()))}\n"
        f"  MCP calls: {dict(sorted(ledger.mcp.items()))}\n"
        f"  not exercised: {unexercised}\n"
        f"leaks found: {len(ledger.leaks)}, misses found: {len(ledger.misses)}"
    )
    if ledger.leaks or ledger.misses:  # every one, for the record (the assertions quote the first 20)
        found = svc.workdir / "isolation-findings.txt"
        found.write_text("".join(f"LEAK {x}\n" for x in ledger.leaks) + "".join(f"MISS {x}\n" for x in ledger.misses))
        print(f"  every leak and miss: {found}")
    assert not errors, f"{len(errors)} examples failed; the first:\n{errors[0]}"
    assert not ledger.leaks, f"seed {seed}: {len(ledger.leaks)} leaks, the first:\n" + "\n".join(ledger.leaks[:20])
    assert not ledger.misses, f"seed {seed}: {len(ledger.misses)} misses, the first:\n" + "\n".join(ledger.misses[:20])
    assert ops == total
    # the sequence exercised every kind of rule, every surface and every kind of read
    assert not unexercised, f"seed {seed}: not exercised: {unexercised}"
    assert {f[3] for f in facets if f[0] == "event"} == {"none", "low", "high", "secret"}
    assert set(ledger.probes) == {"refs", "supersede", "task"}
