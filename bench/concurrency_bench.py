"""elf-bench concurrency -c elf.toml: many simulated agents at once against a running ELF (`make run`).

For each level (default 1, 4, 16 and 32 agents) every agent is a thread with its own HTTP session, its own
tenant and agent id (so no agent can see another's notes), and a mixed workload: add_note of one LoCoMo
sentence (probability --write-ratio) or a quick_find search with a LoCoMo question. Each agent first writes
--seed-notes notes so its searches have something to find, and the level starts once the service is quiet
(no indexing or trace outbox row pending, the Qdrant collection green: bench.quiet), so that no level pays
for the background work of the one before; what a level leaves behind is printed after it. A level runs for
--duration seconds or until every agent has made --max-ops requests, whichever comes first. Reported per
level: requests/s, p50, p95 and p99 latency overall and per kind, and the error count (any non-200 answer or
transport error).
Loopback targets only. ``--mix`` runs bench.concurrency_mix instead: searches and three kinds of writes at once,
with the indexing lag during and after the run.

The service keeps a cache of query vectors per API process, so a question asked again is not embedded again.
LoCoMo has about 2,000 questions and a 32-agent level asks about 4,000, and every run draws from the same
ones: by default each search therefore carries a tag of its own after the question (`#<run>-<agent>-<n>`), so
no search is answered from the cache and every one is embedded, as an agent's new question would be (the tag
adds a few tokens to embed). --repeat-questions sends the bare questions instead; every level prints how many
of its searches the cache answered.

Each level is printed beside its floor (bench.concurrency_floor), measured in this process before the
levels: the unavoidable work of one add_note and one quick_find (embedding, Qdrant engine, Postgres), mixed
as the agents mix them. At N agents the ceiling is min(N / wall, cores / CPU) requests/s (N requests in
flight at most; the cores' CPU seconds per second) and the mean latency at least N / ceiling; measured
throughput is printed as a share of the ceiling, the mean latency as a multiple of its bound. The ceiling is
optimistic (no HTTP, Django, ranking, trace, indexing or client in it): a share near 1 is not reachable.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import requests

from bench import concurrency_floor, quiet
from bench.add_note_bench import LOCOMO, load_average, sentences
from bench.server_timing import timings, vector_cached
from bench.stats import percentile
from bench.target import live_base_url
from elf_config import load_config


@dataclass
class AgentResult:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"write": [], "search": []})
    errors: list[str] = field(default_factory=list)
    cached: int = 0  # searches whose query vector came from the service's cache (no embedding call)


def questions(limit: int) -> list[str]:
    import json

    data = json.loads(LOCOMO.read_text())
    out = [qa["question"] for conv in data for qa in conv["qa"] if qa.get("category") != 5]
    return out[:limit]


class Agent:
    def __init__(self, base: str, run: str, index: int, texts: list[str], queries: list[str], args):
        self.base, self.args = base, args
        self.rng = random.Random(f"{run}:{index}")
        self.texts, self.queries = texts, queries
        self.session = requests.Session()
        self.headers = {"X-ELF-Tenant-Id": f"bench-{run}-t{index}", "X-ELF-Project-Id": "bench",
                        "X-ELF-Agent-Id": f"agent-{index}", "X-ELF-Read-Profile": "private_only"}
        self.result = AgentResult()
        self.tag, self.asked = f"{run}-{index}", 0

    def _request(self, kind: str, path: str, body: dict) -> None:
        t0 = time.perf_counter()
        try:
            r = self.session.post(self.base + path, json=body, headers=self.headers, timeout=60)
        except requests.RequestException as exc:
            r, failure = None, f"{kind} {type(exc).__name__}: {exc}"
        self.result.latencies[kind].append(time.perf_counter() - t0)  # the round trip only: bookkeeping after
        if r is None:
            self.result.errors.append(failure)
        elif r.status_code != 200:
            self.result.errors.append(f"{kind} {r.status_code} {r.text[:200]}")
        elif kind == "search":
            self.result.cached += vector_cached(timings(r.headers))

    def write(self) -> None:
        text = self.rng.choice(self.texts)
        note = {"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9}
        self._request("write", "/v2/notes/ingest", {"scope": "agent_private", "notes": [note]})

    def search(self) -> None:
        query = self.rng.choice(self.queries)
        if not self.args.repeat_questions:  # a question of its own: no query-vector cache hit (module docstring)
            self.asked += 1
            query = f"{query} #{self.tag}-{self.asked}"
        body = {"query": query, "mode": "quick_find", "top_k": 10}
        self._request("search", "/v2/searches", body)

    def seed(self) -> None:
        for _ in range(self.args.seed_notes):
            self.write()
        self.result = AgentResult()  # seeding is not measured

    def run(self, start: threading.Barrier, deadline_s: float) -> AgentResult:
        start.wait()
        stop = time.monotonic() + deadline_s
        for _ in range(self.args.max_ops):
            if time.monotonic() >= stop:
                break
            self.write() if self.rng.random() < self.args.write_ratio else self.search()
        return self.result


def run_level(cfg, base: str, n: int, texts, queries, args) -> dict:
    run = uuid.uuid4().hex[:8]
    agents = [Agent(base, run, i, texts, queries, args) for i in range(n)]
    with ThreadPoolExecutor(n) as pool:
        list(pool.map(lambda a: a.seed(), agents))
        waited, before = quiet.wait_quiet(cfg) if args.wait_quiet else (0.0, None)
        barrier = threading.Barrier(n + 1)
        futures = [pool.submit(a.run, barrier, args.duration) for a in agents]
        barrier.wait()
        t0 = time.perf_counter()
        results = [f.result() for f in futures]
        elapsed = time.perf_counter() - t0
    by_kind = {k: [x for r in results for x in r.latencies[k]] for k in ("write", "search")}
    every = by_kind["write"] + by_kind["search"]
    errors = [e for r in results for e in r.errors]
    cached = sum(r.cached for r in results)
    return {"agents": n, "requests": len(every), "seconds": elapsed, "throughput": len(every) / elapsed,
            "all": every, **by_kind, "errors": errors, "cached": cached, "waited": waited, "before": before,
            "after": quiet.backlog(cfg)}


def _fmt(lat: list[float]) -> str:
    if not lat:
        return "n=0"
    ms = [x * 1000 for x in lat]
    return (f"n={len(ms)} p50={percentile(ms, 50):.1f} p95={percentile(ms, 95):.1f} "
            f"p99={percentile(ms, 99):.1f} ms")


def main(argv: list[str]) -> int:
    if "--mix" in argv:
        from bench import concurrency_mix

        return concurrency_mix.main([a for a in argv if a != "--mix"])
    ap = argparse.ArgumentParser(prog="elf-bench concurrency", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--mix", action="store_true", help="searches and add_note/add_event/record_event writes at once, "
                    "with the indexing lag (bench.concurrency_mix; elf-bench concurrency --mix --help for its options)")
    ap.add_argument("--agents", default="1,4,16,32", help="comma-separated agent counts, one level each")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds per level (upper bound)")
    ap.add_argument("--max-ops", type=int, default=400, help="requests per agent per level (upper bound)")
    ap.add_argument("--write-ratio", type=float, default=0.3, help="share of requests that are add_note")
    ap.add_argument("--seed-notes", type=int, default=5, help="notes each agent writes before the level starts")
    ap.add_argument("--floor-n", type=int, default=50, help="add_notes and quick_finds the in-process floor is "
                    "measured on")
    ap.add_argument("--repeat-questions", action="store_true",
                    help="send the bare LoCoMo questions (repeated within and across runs, so the service's "
                    "query-vector cache answers many) instead of tagging each search to make it new")
    ap.add_argument("--no-wait-quiet", dest="wait_quiet", action="store_false",
                    help="start each level right after its seeding, without waiting for the indexing and trace "
                    "outboxes to drain and for Qdrant to finish an optimization (bench.quiet)")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = live_base_url(ap, cfg.service.http_bind)
    texts, queries = sentences(5000), questions(2000)
    floor, described = concurrency_floor.measure(cfg, texts, queries, args.write_ratio, args.floor_n)
    print(f"load average {load_average()}\n{described}", flush=True)
    failed = False
    for n in (int(x) for x in args.agents.split(",")):
        r = run_level(cfg, base, n, texts, queries, args)
        mean_ms = statistics.fmean(r["all"]) * 1000 if r["all"] else float("nan")
        print(f"concurrency {n:>2} agents: {r['throughput']:.1f} req/s over {r['seconds']:.1f} s, "
              f"errors={len(r['errors'])}; all {_fmt(r['all'])} mean={mean_ms:.1f} ms; write {_fmt(r['write'])}; "
              f"search {_fmt(r['search'])} | floor: ceiling {floor.ceiling(n):.1f} req/s (measured "
              f"{r['throughput'] / floor.ceiling(n):.2f} of it), mean latency >= {floor.latency_ms(n):.1f} ms "
              f"(measured {mean_ms / floor.latency_ms(n):.1f} x)", flush=True)
        print(f"  {r['cached']} of {len(r['search'])} searches took their query vector from the service's cache "
              "(a question asked before, in this level or an earlier run on the same elf-api)", flush=True)
        if r["before"] is not None:
            print(f"  started after {r['waited']:.1f} s of waiting for the service to be quiet "
                  f"({'quiet' if r['before'].quiet else 'gave up: ' + r['before'].describe()}); "
                  f"left behind: {r['after'].describe()}", flush=True)
        for e in r["errors"][:5]:
            print(f"  error: {e}")
        failed |= bool(r["errors"])
    return 1 if failed else 0
