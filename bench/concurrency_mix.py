"""elf-bench concurrency --mix -c elf.toml: reads and writes at once, and whether the worker keeps up with the writes.

One fresh tenant. First --seed-notes notes are written through the API (POST /v2/notes/ingest, 100 a request,
team_shared, by a ``seeder`` agent that grants its space to the project), so that every agent's searches have a
shared corpus to find things in; the run starts once they are indexed. Then --agents agents (threads, each its
own HTTP session and agent id, reading with ``private_plus_project``) send, for --duration seconds, a mix of:
- search (share 1 - --write-share): quick_find, POST /v2/searches, a LoCoMo question tagged to be new (no
  query-vector cache hit: bench.concurrency_bench's docstring);
- writes (--write-share, split evenly): add_note (POST /v2/notes/ingest, one LoCoMo sentence, agent_private),
  add_event (POST /v2/events/ingest, one user message: the extractor path, then the notes it keeps) and
  record_event (POST /api/v1/events, one message event in the agent's session of the
  event log). add_event's messages are the LoCoMo sentences the configured extractor keeps a note of (with the
  local rule-based extractor about 250 of the 5,000: the rest would make add_event a no-op that writes nothing
  and leaves the worker nothing to index); with an HTTP extractor every sentence is used.

Pacing. A real agent thinks (an LLM call, a tool run) between memory calls, so each agent waits an exponential
think time with mean --think-s (default 1 s) after each answer before its next call (closing its connection
first when it will think longer than elf-api keeps an idle one open): the "paced" phase, whose
figures the targets are read against. It is followed by the closed loop (no think time: the next call as soon
as the last one answered, the most 32 agents can offer; --closed-duration, 0 skips it), printed too.

Per phase: per kind the client latency (loopback round trip) p50/p95/p99 and the server time (Server-Timing:
a search's ``search;dur=``, a write's ``app;dur=``, the time the request spent in Django);
throughput beside the ceiling (bench.concurrency_mix_floor); errors (any non-200 answer or transport error);
the indexing lag sampled every second during the phase (bench.concurrency_mix_lag: rows not indexed yet in each
indexing outbox and the age of the oldest one), then the drain: seconds until no row is left. Each kind's
figure is printed beside its floor, measured in this process before the phases. Loopback targets only.
Exit 1 on any error or when a phase left rows behind past --drain-timeout.
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import requests

from bench import concurrency_mix_floor, quiet
from bench.add_note_bench import load_average, sentences
from bench.concurrency_bench import questions
from bench.concurrency_mix_lag import Sampler, drain
from bench.pacing import think
from bench.server_timing import timings
from bench.stats import percentile
from bench.target import live_base_url
from elf_config import load_config
from elf_infra.providers.factory import build_extractor

PROJECT, SEEDER, READ_PROFILE = "bench-mix", "seeder", "private_plus_project"
KINDS = concurrency_mix_floor.KINDS
WRITES = KINDS[1:]
TARGET_MS = {"search": 300.0, "add_note": 500.0, "add_event": 500.0, "record_event": 500.0}
TARGET_LAG_S, TARGET_DRAIN_S = 10.0, 60.0


@dataclass
class Tally:
    client: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    server: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    errors: list[str] = field(default_factory=list)


def headers(tenant: str, agent: str) -> dict[str, str]:
    return {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": PROJECT, "X-ELF-Agent-Id": agent,
            "X-ELF-Read-Profile": READ_PROFILE}


class MixAgent:
    def __init__(self, base: str, tenant: str, index: int, texts: tuple[list[str], list[str]], queries: list[str],
                 write_share: float):
        self.base, self.tenant, self.index = base, tenant, index
        self.agent = f"agent-{index}"
        self.rng = random.Random(f"{tenant}:{index}")
        (self.texts, self.event_texts), self.queries, self.write_share = texts, queries, write_share
        self.session = requests.Session()
        self.headers = headers(tenant, self.agent)
        self.asked = 0

    def _post(self, tally: Tally, kind: str, path: str, body: dict) -> None:
        t0 = time.perf_counter()
        try:
            r = self.session.post(self.base + path, json=body, headers=self.headers, timeout=60)
        except requests.RequestException as exc:
            r, failure = None, f"{kind} {type(exc).__name__}: {exc}"
        tally.client[kind].append((time.perf_counter() - t0) * 1000)
        if r is None:
            tally.errors.append(failure)
        elif r.status_code != 200:
            tally.errors.append(f"{kind} {r.status_code} {r.text[:200]}")
        elif (server := (steps := timings(r.headers)).get("search", steps.get("app"))) is not None:
            tally.server[kind].append(server)

    def _sentence(self, kind: str) -> str:
        return self.rng.choice(self.event_texts if kind == "add_event" else self.texts).partition(": ")[2]

    def one(self, tally: Tally) -> None:
        if self.rng.random() >= self.write_share:
            self.asked += 1
            query = f"{self.rng.choice(self.queries)} #{self.tenant}-{self.index}-{self.asked}"
            self._post(tally, "search", "/v2/searches", {"query": query, "mode": "quick_find", "top_k": 10})
            return
        kind = self.rng.choice(WRITES)
        text = self._sentence(kind)
        if kind == "add_note":
            note = {"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9}
            self._post(tally, kind, "/v2/notes/ingest", {"scope": "agent_private", "notes": [note]})
        elif kind == "add_event":
            self._post(tally, kind, "/v2/events/ingest",
                       {"scope": "agent_private", "messages": [{"role": "user", "content": text}]})
        else:
            self._post(tally, kind, "/api/v1/events", {
                "tenant_id": self.tenant, "project_id": PROJECT, "session_id": f"session-{self.index}",
                "agent_id": self.agent, "kind": "message", "channel": "private", "sensitivity": "none",
                "actor": {"type": "human", "id": "user"}, "tags": [], "refs": [], "content": {"text": text}})

    def run(self, start: threading.Barrier, seconds: float, think_s: float) -> Tally:
        tally = Tally()
        start.wait()
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            self.one(tally)
            if think_s > 0:
                think(self.session, self.rng, think_s, at_most_s=stop - time.monotonic())
        return tally


def seed(base: str, tenant: str, texts: list[str], n: int) -> float:
    """The shared corpus: ``n`` team_shared notes by the seeder, its space granted to the project."""
    t0 = time.perf_counter()
    http = requests.Session()
    h = headers(tenant, SEEDER)
    http.post(f"{base}/v2/spaces/team_shared/grants", json={"grantee_kind": "project"}, headers=h,
              timeout=60).raise_for_status()
    bodies = [texts[i : i + 100] for i in range(0, n, 100)]

    def send(group: list[str]) -> None:
        notes = [{"type": "fact", "text": t, "importance": 0.5, "confidence": 0.9} for t in group]
        r = requests.post(f"{base}/v2/notes/ingest", json={"scope": "team_shared", "notes": notes}, headers=h,
                          timeout=300)
        r.raise_for_status()

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(send, bodies))
    return time.perf_counter() - t0


def extracted(cfg, texts: list[str]) -> list[str]:
    """The texts the local extractor keeps a note of (all of them with another extractor: an LLM call each)."""
    if cfg.providers.llm_extractor.provider_id != "local":
        return texts
    extractor = build_extractor(cfg)
    return [t for t in texts if extractor.extract([{"role": "user", "content": t.partition(": ")[2]}]).get("notes")]


def phase(cfg, base: str, tenant: str, texts, queries, args, think_s: float, seconds: float) -> dict:
    agents = [MixAgent(base, tenant, i, texts, queries, args.write_share) for i in range(args.agents)]
    barrier = threading.Barrier(len(agents) + 1)
    with Sampler(cfg) as lag, ThreadPoolExecutor(len(agents)) as pool:
        futures = [pool.submit(a.run, barrier, seconds, think_s) for a in agents]
        barrier.wait()
        t0 = time.perf_counter()
        tallies = [f.result() for f in futures]
        elapsed = time.perf_counter() - t0
    drained_s, last = drain(cfg, args.drain_timeout)
    client = {k: [x for t in tallies for x in t.client[k]] for k in KINDS}
    server = {k: [x for t in tallies for x in t.server[k]] for k in KINDS}
    requests_n = sum(len(v) for v in client.values())
    return {"think_s": think_s, "seconds": elapsed, "requests": requests_n, "throughput": requests_n / elapsed,
            "client": client, "server": server, "errors": [e for t in tallies for e in t.errors],
            "lag": [{"t": s.t, "rows": s.rows, "oldest_s": s.oldest_s} for s in lag.samples],
            "lag_text": lag.describe(), "lag_max_s": max((s.age for s in lag.samples), default=0.0),
            "drained_s": drained_s, "left": last.total, "drain_timeout": args.drain_timeout, "load": load_average()}


def _p(values: list[float], q: float) -> str:
    v = percentile(values, q)
    return "-" if v is None else f"{v:.1f}"


def report(name: str, r: dict, floors: concurrency_mix_floor.MixFloors, agents: int) -> list[str]:
    ceiling = floors.ceiling(agents, r["think_s"])
    lines = [f"{name}: {agents} agents, think time {r['think_s']:g} s mean, {r['seconds']:.1f} s: "
             f"{r['throughput']:.1f} req/s (ceiling {ceiling:.1f}, measured {r['throughput'] / ceiling:.2f} of it), "
             f"errors={len(r['errors'])}; load average {r['load']}",
             f"  {'kind':<13} {'n':>5} {'client p50':>10} {'p95':>7} {'p99':>7} {'server p95':>10} "
             f"{'floor p50':>9} {'floor p95':>9} {'p95/floor':>9} {'target':>7}"]
    for k in KINDS:
        c, s, f = r["client"][k], r["server"][k], floors.kinds[k]
        p95 = percentile(c, 95)
        ratio = f"{p95 / f.p(95):.1f}x" if p95 is not None else "-"
        ok = "ok" if p95 is not None and p95 <= TARGET_MS[k] else "MISSED"
        lines.append(f"  {k:<13} {len(c):>5} {_p(c, 50):>10} {_p(c, 95):>7} {_p(c, 99):>7} {_p(s, 95):>10} "
                     f"{f.p(50):>9.1f} {f.p(95):>9.1f} {ratio:>9} {f'<={TARGET_MS[k]:.0f}':>5} {ok}")
    writes = [x for k in WRITES for x in r["client"][k]]
    lines.append(f"  all writes: n={len(writes)} client p95 {_p(writes, 95)} ms (target <= 500)")
    lag_ok = "ok" if r["lag_max_s"] < TARGET_LAG_S else "MISSED"
    lines.append(f"  indexing lag during the phase: {r['lag_text']} (target: oldest under {TARGET_LAG_S:.0f} s: "
                 f"{lag_ok})")
    drained = (f"0 rows left {r['drained_s']:.0f} s after the phase" if r["drained_s"] is not None
               else f"{r['left']} rows still pending {r['drain_timeout']:.0f} s after the phase (gave up)")
    drain_ok = "ok" if r["drained_s"] is not None and r["drained_s"] <= TARGET_DRAIN_S else "MISSED"
    lines.append(f"  after it: {drained} (target: 0 rows within {TARGET_DRAIN_S:.0f} s: {drain_ok})")
    lines += [f"  error: {e}" for e in r["errors"][:5]]
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench concurrency --mix", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--agents", type=int, default=32)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of the paced phase")
    ap.add_argument("--closed-duration", type=float, default=30.0,
                    help="seconds of the closed loop (no think time) after it; 0 skips it")
    ap.add_argument("--think-s", type=float, default=1.0, help="mean think time between an agent's calls (exponential)")
    ap.add_argument("--write-share", type=float, default=0.2, help="share of writes, split evenly over the three")
    ap.add_argument("--seed-notes", type=int, default=3000)
    ap.add_argument("--floor-n", type=int, default=30, help="requests of each kind the floors are measured on")
    ap.add_argument("--drain-timeout", type=float, default=300.0)
    ap.add_argument("--json", help="also write the figures (every latency and lag sample) to this file")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = live_base_url(ap, cfg.service.http_bind)
    texts, queries = sentences(5000), questions(2000)
    event_texts = extracted(cfg, texts)
    tenant = f"mix-{uuid.uuid4().hex[:8]}"
    took = seed(base, tenant, texts[1000:], args.seed_notes)
    waited, after = quiet.wait_quiet(cfg)
    print(f"tenant {tenant}: {args.seed_notes} team_shared notes seeded through the API in {took:.1f} s, indexed "
          f"{waited:.1f} s later ({after.describe()})", flush=True)
    shares = {"search": 1 - args.write_share, **{k: args.write_share / len(WRITES) for k in WRITES}}
    floors = concurrency_mix_floor.measure(cfg, texts, event_texts, queries, shares, args.floor_n,
                                           {"tenant": tenant, "project": PROJECT, "agent": "agent-0",
                                            "read_profile": READ_PROFILE})
    print(f"load average {load_average()}\n{floors.describe()}", flush=True)
    phases = [("paced", args.think_s, args.duration)]
    if args.closed_duration > 0:
        phases.append(("closed loop", 0.0, args.closed_duration))
    results, failed = {}, False
    for name, think_s, seconds in phases:
        quiet.wait_quiet(cfg)
        r = results[name] = phase(cfg, base, tenant, (texts, event_texts), queries, args, think_s, seconds)
        print("\n".join(report(name, r, floors, args.agents)), flush=True)
        failed |= bool(r["errors"]) or r["drained_s"] is None
    if args.json:
        floor_out = {k: {"p50": f.p(50), "p95": f.p(95)} for k, f in floors.kinds.items()}
        with open(args.json, "w") as fh:
            json.dump({"tenant": tenant, "agents": args.agents, "floors": floor_out, "phases": results}, fh)
    return 1 if failed else 0
