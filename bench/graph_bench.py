"""elf-bench graph -c elf.toml: what relation_context costs a quick_find.

Needs the stack of the config running (`make run`, or just `elf-stack up -c elf.toml`). Under one fresh tenant it
bulk-loads N notes the way search_bench does (rows, vectors and Qdrant points) and M graph facts whose
evidence are those notes (2 per note by default: entities, predicates, facts, evidence, a quarter of them
closed as historical). It then starts two elf-api processes on free loopback ports from copies of the config,
one with search.graph_context enabled and one without, and sends the same LoCoMo questions to both as
quick_find, alternating per question so that drift on a shared machine hits both alike. The run without
graph context is the floor each figure is printed beside; server time comes from Server-Timing.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
import tomllib
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import requests

from bench.search_bench import Loader, _pct, questions
from bench.server_timing import duration
from bench.target import loopback_base_url
from elf_config import load_config
from elf_config.toml_writer import dumps
from elf_infra.qdrant_server.launcher import free_port

PREDICATES = ("leads", "owns", "works on", "reports to", "mentors", "uses", "maintains", "reviews")
HEADERS = {"X-ELF-Project-Id": "bench", "X-ELF-Agent-Id": "agent-0", "X-ELF-Read-Profile": "private_only"}


def load_facts(dsn: str, tenant: str, facts: int, rng: random.Random) -> float:
    """``facts`` facts over the tenant's notes (round robin), subjects from a pool of people, objects from a
    pool of things; every fourth one closed a month ago."""
    t0 = time.perf_counter()
    now = datetime.now(UTC)
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        note_ids = [r[0] for r in cur.execute("SELECT note_id FROM memory_notes WHERE tenant_id = %s ORDER BY note_id",
                                              (tenant,))]
        people = [(uuid.uuid4(), f"person {i}") for i in range(max(10, facts // 10))]
        things = [(uuid.uuid4(), f"system {i}") for i in range(max(10, facts // 20))]
        preds = [(uuid.uuid4(), p) for p in PREDICATES]
        with cur.copy("COPY graph_entities (entity_id, tenant_id, project_id, canonical, canonical_norm, kind) "
                      "FROM STDIN") as cp:
            for eid, name in people + things:
                cp.write_row((eid, tenant, "bench", name, name, "person" if name.startswith("person") else "concept"))
        with cur.copy(
            "COPY graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, canonical_norm, "
            "cardinality, status) FROM STDIN"
        ) as cp:
            for pid, name in preds:
                cp.write_row((pid, f"{tenant}:bench", tenant, "bench", name, name, "multi", "active"))
        rows, open_keys = [], set()
        for i in range(facts):
            end = now - timedelta(days=30) if i % 4 == 3 else None
            while True:  # one open fact per (subject, predicate, object), as the schema's unique index wants
                subject, (pid, pname), obj = rng.choice(people), rng.choice(preds), rng.choice(things)
                if end is not None or (subject, pid, obj) not in open_keys:
                    break
            if end is None:
                open_keys.add((subject, pid, obj))
            start = now - timedelta(days=rng.randint(40, 400))
            rows.append((uuid.uuid4(), subject[0], pid, pname, obj[0], start, end, note_ids[i % len(note_ids)]))
        with cur.copy(
            "COPY graph_facts (fact_id, tenant_id, project_id, agent_id, scope, subject_entity_id, predicate, "
            "predicate_id, object_entity_id, valid_from, valid_to) FROM STDIN"
        ) as cp:
            for fid, sid, pid, pname, oid, start, end, _ in rows:
                cp.write_row((fid, tenant, "bench", "agent-0", "agent_private", sid, pname, pid, oid, start, end))
        with cur.copy("COPY graph_fact_evidence (evidence_id, fact_id, note_id) FROM STDIN") as cp:
            for fid, *_, nid in rows:
                cp.write_row((uuid.uuid4(), fid, nid))
        cur.execute("ANALYZE graph_facts; ANALYZE graph_fact_evidence; ANALYZE graph_entities")
    return time.perf_counter() - t0


class Api:
    """One elf-api process from a copy of the config with its own binds and graph_context setting."""

    def __init__(self, config: Path, graph_context: bool, workdir: Path):
        data = tomllib.loads(config.read_text())
        svc = data["service"]
        svc["http_bind"], svc["admin_bind"], svc["mcp_bind"] = (f"127.0.0.1:{free_port()}" for _ in range(3))
        data["search"]["graph_context"] = {
            "enabled": graph_context,
            "max_facts_per_item": 8,
            "max_evidence_notes_per_fact": 4,
        }
        # Beside the original, so that relative paths (stack.data_dir) resolve the same way.
        self.config = config.parent / f".elf-bench-graph-{'on' if graph_context else 'off'}-{uuid.uuid4().hex[:6]}.toml"
        self.config.write_text(dumps(data))
        self.base = loopback_base_url(svc["http_bind"])
        self.admin = loopback_base_url(svc["admin_bind"])
        self.log = (workdir / f"api-{'on' if graph_context else 'off'}.log").open("w")
        exe = shutil.which("elf-api") or str(Path(sys.executable).with_name("elf-api"))
        self.proc = subprocess.Popen([exe, "-c", str(self.config)], stdout=self.log, stderr=subprocess.STDOUT)

    def wait_healthy(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"elf-api exited with {self.proc.returncode}; see {self.log.name}")
            try:
                if requests.get(self.base + "/health", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"elf-api not healthy within {timeout:.0f} s; see {self.log.name}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.config.unlink(missing_ok=True)
        self.log.close()


def quick_find(session: requests.Session, api: Api, tenant: str, query: str) -> tuple[float, float]:
    t0 = time.perf_counter()
    r = session.post(
        f"{api.base}/v2/searches",
        json={"query": query, "mode": "quick_find"},
        headers={**HEADERS, "X-ELF-Tenant-Id": tenant},
        timeout=120,
    )
    client = (time.perf_counter() - t0) * 1000
    r.raise_for_status()
    return duration(r.headers, "search"), client


def facts_per_item(api: Api, tenant: str, qs: list[str]) -> float:
    """Mean relation_context length per returned item (raw admin search): shows the work is really done."""
    sizes = []
    for q in qs:
        r = requests.post(
            f"{api.admin}/v2/admin/searches/raw",
            json={"query": q, "mode": "quick_find"},
            headers={**HEADERS, "X-ELF-Tenant-Id": tenant},
            timeout=120,
        )
        r.raise_for_status()
        sizes += [len(i["explain"].get("relation_context", [])) for i in r.json()["items"]]
    return sum(sizes) / max(1, len(sizes))


def _line(name: str, on: list[float], off: list[float]) -> str:
    p50 = (sorted(on)[len(on) // 2], sorted(off)[len(off) // 2])
    p95 = (_pct(on, 0.95), _pct(off, 0.95))
    return (
        f"quick_find {name}: graph_context on p50={p50[0]:.1f} ms p95={p95[0]:.1f} ms | off (floor) "
        f"p50={p50[1]:.1f} ms p95={p95[1]:.1f} ms | difference p50={p50[0] - p50[1]:+.1f} ms "
        f"p95={p95[0] - p95[1]:+.1f} ms"
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench graph", description=__doc__)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--facts", type=int, default=20000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3, help="passes over the questions (alternating on/off)")
    args = ap.parse_args(argv)
    config = Path(args.config).resolve()
    cfg = load_config(config)
    tenant = f"bench-graph-{uuid.uuid4().hex[:8]}"
    workdir = Path(cfg.resolve_path(cfg.stack.data_dir))
    apis = {flag: Api(config, flag, workdir) for flag in (True, False)}
    try:
        for api in apis.values():
            api.wait_healthy()  # start-up applies the schema, so the bulk load below finds its tables
        loader = Loader(cfg, tenant)
        print(
            f"loaded {args.notes} notes in {loader.load_to(args.notes):.1f} s "
            f"(index optimized after {loader.wait_green():.1f} s)",
            flush=True,
        )
        print(
            f"loaded {args.facts} facts in "
            f"{load_facts(cfg.storage.postgres.dsn, tenant, args.facts, random.Random(7)):.1f} s",
            flush=True,
        )
        qs = questions(args.queries)
        session = requests.Session()
        for api in apis.values():  # warm-up: models loaded, connections open
            for q in qs[:10]:
                quick_find(session, api, tenant, q)
        times = {flag: ([], []) for flag in apis}
        for _ in range(args.rounds):
            for q in qs:
                for flag, api in apis.items():
                    server, client = quick_find(session, api, tenant, q)
                    times[flag][0].append(server)
                    times[flag][1].append(client)
        n = len(times[True][0])
        print(
            f"{args.notes} notes, {args.facts} facts, {n} quick_find searches per arm; relation_context holds "
            f"{facts_per_item(apis[True], tenant, qs[:20]):.2f} facts per returned item",
            flush=True,
        )
        print(_line("server", times[True][0], times[False][0]), flush=True)
        print(_line("client", times[True][1], times[False][1]), flush=True)
    finally:
        for api in apis.values():
            api.stop()
    return 0
