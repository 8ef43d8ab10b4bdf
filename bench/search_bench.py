"""elf-bench search -c elf.toml: search latency at growing note counts against a running ELF (`make run`), each
figure beside its floor.

For each size (default 1k, 10k, 100k, cumulative under one fresh tenant) the notes are bulk-loaded
(bench.note_loader) the way the indexing worker would leave them: rows in memory_notes / memory_note_chunks /
note_chunk_embeddings / note_embeddings (binary COPY) and one Qdrant point per note (dense + BM25). Texts are
LoCoMo dialogue sentences; only the distinct sentences (about 12k, fewer for small sizes) are embedded with the
local model, and a note repeating a sentence gets that vector plus small Gaussian noise (re-normalised) and a
distinct suffix, so 100k notes load in minutes instead of hours of embedding.

Queries are LoCoMo questions, sent over HTTP to POST /v2/searches in both modes; every (size, mode) pass has
questions of its own, so the service's query-vector cache never answers one. Server time is the
`search;dur=` entry of the Server-Timing header, client time the loopback round trip. Right after each
request the same query's floor is measured in this process (bench.search_floor: the query embedding, the
Qdrant engine time of the same dense + BM25 batch on the same collection, the Postgres re-validation of its
candidates), so each percentile is also printed as a ratio server / floor. One table per size, with the load
average, since other processes share the CPU.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from dataclasses import dataclass, field

import requests

from bench.add_note_bench import LOCOMO, load_average
from bench.note_loader import NoteLoader, Owner
from bench.quiet import wait_idf_built
from bench.search_floor import WHAT, QueryFloor, SearchFloor, ratio
from bench.server_timing import duration, timings, vector_cached
from bench.stats import percentile, table
from bench.target import live_base_url
from elf_config import load_config

WARM_UP = 5
# The one caller every bulk-loaded note belongs to and every query is sent as.
PROJECT, AGENT, READ_PROFILE = "bench", "agent-0", "private_only"


def questions(n: int) -> list[str]:
    """The first ``n`` distinct ASCII LoCoMo questions, in file order."""
    data = json.loads(LOCOMO.read_text())
    qs = dict.fromkeys(qa["question"] for conv in data for qa in conv.get("qa", []) if qa.get("question", "").isascii())
    return list(qs)[:n]


def _pct(values: list[float], p: float) -> float:
    """The nearest-rank percentile of ``values`` for ``p`` in 0-1."""
    return percentile(values, p * 100)


class Loader:
    """Loads notes for one tenant (as PROJECT / AGENT) up to a growing total: bench.note_loader's NoteLoader."""

    def __init__(self, cfg, tenant: str, distinct: int = 20000):
        self.notes = NoteLoader(cfg, distinct)
        self.owner = Owner(tenant, PROJECT, AGENT)
        self.loaded = 0

    def load_to(self, total: int) -> float:
        seconds = self.notes.load(self.owner, self.loaded, total - self.loaded)
        self.loaded = total
        return seconds

    def wait_green(self, timeout: float = 900) -> float:
        return self.notes.wait_green(timeout)


def server_ms(headers) -> float:
    """The ``search`` entry of a response's Server-Timing header, read by name (other entries may surround it)."""
    return duration(headers, "search")


@dataclass
class Pass:
    """One (size, mode) pass: per query the server and client times and the in-process floor."""

    mode: str
    server: list[float] = field(default_factory=list)
    client: list[float] = field(default_factory=list)
    floors: list[QueryFloor] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)  # the other Server-Timing entries, by name
    cached: int = 0  # queries whose vector came from the service's query-vector cache (no embed step time)

    def row(self) -> list[str]:
        floor = [f.total_ms for f in self.floors]
        both = lambda v: f"{percentile(v, 50):.1f} / {percentile(v, 95):.1f}"  # noqa: E731
        part = lambda attr: f"{percentile([getattr(f, attr) for f in self.floors], 50):.1f}"  # noqa: E731
        share = lambda v: f"{ratio(v, floor, 50):.2f} / {ratio(v, floor, 95):.2f}"  # noqa: E731
        return [
            self.mode,
            str(len(self.server)),
            both(self.server),
            both(self.client),
            part("embed_ms"),
            part("qdrant_ms"),
            part("postgres_ms"),
            both(floor),
            share(self.server),
            share(self.client),
        ]

    def stage_line(self) -> str | None:
        """The server's own steps (Server-Timing entries besides search and total), p50 each, if it sends them."""
        if not self.stages:
            return None
        return f"  {self.mode} server steps p50 (Server-Timing): " + ", ".join(
            f"{name} {percentile(ms, 50):.1f}" for name, ms in self.stages.items()
        )


HEADER = [
    "mode",
    "n",
    "server p50 / p95",
    "client p50 / p95",
    "embed",
    "qdrant",
    "pg",
    "floor p50 / p95",
    "server/floor",
    "client/floor",
]
LEGEND = "times in ms; embed, qdrant, pg: p50 of the floor's parts; x/floor: p50 over floor p50 / p95 over floor p95"


def run_pass(base: str, tenant: str, qs: list[str], mode: str, floor: SearchFloor | None) -> Pass:
    """Each query over HTTP, then (with ``floor``) its floor in this process."""
    session = requests.Session()
    hdr = {
        "X-ELF-Tenant-Id": tenant,
        "X-ELF-Project-Id": PROJECT,
        "X-ELF-Agent-Id": AGENT,
        "X-ELF-Read-Profile": READ_PROFILE,
    }
    out = Pass(mode)
    for q in qs:
        t0 = time.perf_counter()
        r = session.post(f"{base}/v2/searches", json={"query": q, "mode": mode}, headers=hdr, timeout=120)
        out.client.append((time.perf_counter() - t0) * 1000)
        r.raise_for_status()
        out.server.append(server_ms(r.headers))
        steps = timings(r.headers)
        for name, ms in steps.items():
            if name not in ("search", "total"):
                out.stages.setdefault(name, []).append(ms)
        out.cached += vector_cached(steps)
        if floor is not None:
            out.floors.append(floor.measure(q))
    return out


def settle(cfg, base: str, tenant: str, question: str) -> str:
    """After a load, before a measured pass: one query of the project, then wait until the embedded Qdrant server
    has built the BM25 counts that query asks for (elf_infra/qdrant_server/term_stats.py). That build is a
    one-off after a start or a bulk load (about 1 s at 100k notes, several at 1M) during which the project's
    queries are slower; the passes measure after it, and the line returned says how long it took."""
    run_pass(base, tenant, [question], "quick_find", None)
    waited = wait_idf_built(cfg)
    if waited is None:
        return "the Qdrant server keeps no BM25 counts"
    return f"the project's BM25 counts were ready {waited:.1f} s after its first query"


def query_sets(per_pass: int, passes: int) -> tuple[list[str], list[list[str]], bool]:
    """Warm-up questions and ``passes`` sets of ``per_pass`` distinct questions, none shared; the flag says
    whether there were too few questions and sets repeat some."""
    need = WARM_UP + per_pass * passes
    qs = questions(need)
    repeats = len(qs) < need
    qs = [qs[i % len(qs)] for i in range(need)]
    return qs[:WARM_UP], [qs[WARM_UP + i * per_pass : WARM_UP + (i + 1) * per_pass] for i in range(passes)], repeats


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="elf-bench search", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated note counts, cumulative")
    ap.add_argument("--queries", type=int, default=100, help="questions per size and mode (distinct in each)")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = live_base_url(ap, cfg.service.http_bind)
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = ("quick_find", "planned_search")
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    loader = Loader(cfg, tenant, distinct=min(max(sizes), 20000))
    warm, sets, repeats = query_sets(args.queries, len(sizes) * len(modes))
    if repeats:
        print(
            "too few distinct LoCoMo questions: some repeat across passes, and the service's query-vector "
            "cache may answer those",
            file=sys.stderr,
        )
    floor = SearchFloor(cfg, tenant=tenant, project=PROJECT, agent=AGENT, read_profile=READ_PROFILE)
    try:
        run_pass(base, tenant, warm, "quick_find", None)  # models loaded in the API workers
        for size in sizes:
            load_s = loader.load_to(size)
            green_s = loader.wait_green()
            print(
                f"loaded {size} notes ({load_s:.1f} s load, {green_s:.1f} s until the index was optimized; "
                f"{settle(cfg, base, tenant, warm[0])})", flush=True
            )
            passes = [run_pass(base, tenant, sets.pop(0), mode, floor) for mode in modes]
            candidates = percentile([f.candidates for p in passes for f in p.floors], 50)
            cached = sum(p.cached for p in passes)
            fresh = "some repeated in this run" if repeats else "none repeated in this run"
            if cached:  # an earlier run on the same elf-api process asked them: its cache answered, no embedding
                fresh += (
                    f"; {cached} of {len(passes) * args.queries} query vectors came from the service's cache "
                    "(asked by an earlier run: restart elf-api for cold figures)"
                )
            print(
                f"\nsearch @ {size} notes, {args.queries} questions per mode, {fresh}; load average {load_average()}",
                flush=True,
            )
            print("\n".join(table(HEADER, [p.row() for p in passes])))
            for line in filter(None, (p.stage_line() for p in passes)):
                print(line)
            print(f"{LEGEND}\n{WHAT}; candidates re-validated per query p50 {candidates}\n", flush=True)
    finally:
        floor.close()
    return 0
