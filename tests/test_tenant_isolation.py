"""Tenant isolation as a property, over notes, documents, graph facts, core memory and the event log with its
bundles: seeded random examples, each two fresh tenants whose agents (with colliding project, agent, run and
session ids) write, grant, revoke, publish, unpublish and delete, while reads over real HTTP are compared with
an independent model of what each identity may see (tests/isolation_model.py states the rules). A read that
returns more than the model allows is a leak; less, a miss. Both must be zero.

Examples share one elf-api and elf-worker and run in parallel threads (each in its own tenants, so they are
also each other's neighbours: ids of other examples are probed and must stay unreadable).

CI runs a short seed (ELF_ISOLATION_OPS operations, default 360). ``make soak`` runs ELF_SOAK_OPS (10,000).
ELF_ISOLATION_SEED picks the sequence, ELF_ISOLATION_OPS_PER_EXAMPLE its examples' length (default 60) and
ELF_ISOLATION_THREADS how many run at once (default 6).
"""

from __future__ import annotations

import os
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.isolation_client import Ledger
from tests.isolation_example import OPS, Example

CI_OPS = 360


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["search"]["prefilter"]["max_candidates"] = 1024
        data["search"]["explain"]["retention_days"] = 1
    s = isolated_services_module("isolation", mutate)
    s.start_api()
    s.start_worker()
    return s


def _run(svc, ledger: Ledger, seed: str, index: int, ops: int, started: float) -> None:
    example = Example(svc, ledger, seed, index)
    try:
        example.run(ops)
    except BaseException:
        raise AssertionError(f"{example.where()}:\n{traceback.format_exc()}") from None
    finally:
        example.close()
    with ledger.lock:  # progress, for a long run (pytest -s)
        print(f"example {example.name} done: {sum(ledger.ops.values())} operations, {len(ledger.leaks)} leaks, "
              f"{len(ledger.misses)} misses so far, {time.monotonic() - started:.0f} s", flush=True)


def test_no_read_crosses_a_tenant_a_scope_or_a_grant(svc):
    seed = os.environ.get("ELF_ISOLATION_SEED", "20261121")
    total = int(os.environ.get("ELF_SOAK_OPS") or os.environ.get("ELF_ISOLATION_OPS") or CI_OPS)
    per = int(os.environ.get("ELF_ISOLATION_OPS_PER_EXAMPLE", "60"))
    threads = int(os.environ.get("ELF_ISOLATION_THREADS", "6"))
    sizes = [per] * (total // per) + ([total % per] if total % per else [])
    ledger = Ledger()
    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(_run, svc, ledger, f"{seed}-{i}", i, n, started) for i, n in enumerate(sizes)]
        errors = [str(f.exception()) for f in futures if f.exception() is not None]
    ops, reads = sum(ledger.ops.values()), sum(ledger.reads.values())
    print(f"\nisolation: seed {seed}, {ops} operations in {len(sizes)} examples ({threads} at once), {reads} reads, "
          f"{sum(ledger.probes.values())} cross-tenant write probes, {time.monotonic() - started:.0f} s\n"
          f"  operations: {dict(sorted(ledger.ops.items()))}\n  reads: {dict(sorted(ledger.reads.items()))}\n"
          f"leaks found: {len(ledger.leaks)}, misses found: {len(ledger.misses)}")
    assert not errors, f"{len(errors)} examples failed; the first:\n{errors[0]}"
    assert not ledger.leaks, f"seed {seed}: {len(ledger.leaks)} leaks, the first:\n" + "\n".join(ledger.leaks[:20])
    assert not ledger.misses, f"seed {seed}: {len(ledger.misses)} misses, the first:\n" + "\n".join(ledger.misses[:20])
    assert ops == total
    # the sequence exercised every kind of rule and every kind of read
    assert {name for name, _ in OPS} <= set(ledger.ops)
    facets = ledger.facets
    assert {("grant", s, k) for s in ("project_shared", "org_shared") for k in ("project", "agent")} <= facets
    assert {("note scope", s) for s in ("agent_private", "project_shared", "org_shared")} <= facets
    assert {("doc scope", s) for s in ("agent_private", "project_shared", "org_shared")} <= facets
    assert {("core", c) for c in ("profile", "session", "policy", "run ended")} <= facets
    assert {("bundle", c) for c in ("private", "public", "team", "agent")} <= facets
    assert {f[3] for f in facets if f[0] == "event"} == {"none", "low", "high", "secret"}
    assert ("decision superseded",) in facets and ("foreign", "note") in facets and ("foreign", "doc") in facets
    assert {"note search", "note list", "note get", "graph facts", "graph entity", "doc search", "GET doc",
            "doc excerpt", "core resolve", "core profile.md", "core session.md", "core audit", "acb bundle",
            "acb decisions", "acb artifact"} <= set(ledger.reads)
    assert set(ledger.probes) == {"refs", "supersede", "task"}
