"""elf-bench scale -c elf.toml: search at 10k, 100k and 1M notes in one project, then among 1,000 tenants x
1,000 notes in the same collection, against a running ELF, each figure beside its floor.

Stages: the notes of one fresh tenant are loaded up to each size of --sizes (cumulative); then --tenants
(e.g. 1000x1000) more tenants get that many notes each, in the same collection, and the queries are sent as one
of them. Notes are bulk-loaded as bench.note_loader does (binary COPY into the four notes tables, one Qdrant
point per note, dense + BM25), and each stage waits until Qdrant's optimizer is done (the collection green)
before it measures. The load rate is printed.
The notes are distinct (--texts pairs, the default: LoCoMo sentences, then two joined, each embedded by the
model, bench.pair_notes; the vectors are cached in --vector-cache, about 40 minutes per million the first time)
or copies (--texts copies: each LoCoMo sentence repeated with noise; quick to load, but its near-ties hold
overlap@10 down at a million notes).

Per stage:
- quick_find and planned_search over HTTP (POST /v2/searches), --queries LoCoMo questions each, none asked
  before in the run: server time (Server-Timing `search;dur=`), client time, and right after each request the
  same query's floor in this process (bench.search_floor: embedding + Qdrant batch + Postgres re-validation),
  p50 / p95 and their ratios;
- overlap@10 of the dense leg against exact search (bench.scale_probe) on --overlap-sample questions;
- PSS and RSS of every process of the stack, and disk per note in Postgres and Qdrant (bench.scale_probe);
- the load average.
With --lock FILE each stage's measurements (not its loading) run under an exclusive flock on FILE.
After each stage the markdown tables (scale.md) and the growth plot (scale.png) in --out are rewritten, so a
run cut short keeps what it measured.

--skip-load --tenant NAME measures what an earlier run loaded: tenant NAME's notes, then, if they exist, the
tenants NAME-t0000 ... of --tenants; --merge adds the rows of earlier runs' scale.md files to the tables and
the plot.
"""

from __future__ import annotations

import argparse
import fcntl
import shlex
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from bench.add_note_bench import load_average
from bench.note_loader import NoteLoader, Owner
from bench.pair_notes import CACHE, PairVectors
from bench.scale_probe import SERVICE_EF, disk, memory, overlap_at_10, overlap_by_ef
from bench.scale_report import (
    LATENCY_HEADER,
    MEMORY_HEADER,
    Stage,
    latency_rows,
    markdown,
    memory_rows,
    plot,
    tables,
)
from bench.search_bench import AGENT, PROJECT, READ_PROFILE, query_sets, questions, run_pass, settle
from bench.search_floor import WHAT, SearchFloor
from bench.stats import percentile, table
from bench.target import live_base_url
from elf_config import load_config

MODES = ("quick_find", "planned_search")


def _tenants(spec: str) -> tuple[int, int]:
    if spec in ("", "0", "none"):
        return 0, 0
    count, _, per = spec.lower().partition("x")
    return int(count), int(per)


def optimized_line(loader: NoteLoader, waited: float, timeout: float) -> str:
    status = str(loader.qdrant.get_collection(loader.collection).status).lower().rsplit(".", 1)[-1]
    if status.endswith("green"):
        return f"Qdrant optimized after {waited:.1f} s more"
    return (f"Qdrant still {status} (optimizing) after {waited:.1f} s (--optimize-timeout {timeout:.0f}): this stage "
            "is measured while the optimizer runs")


def tenant_names(tenant: str, count: int) -> list[str]:
    return [f"{tenant}-t{i:04d}" for i in range(count)]


def notes_of(dsn: str, tenant: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM memory_notes WHERE tenant_id = %s", [tenant]).fetchone()[0]


@contextmanager
def held(path: str | None) -> Iterator[float]:
    """An exclusive flock on ``path`` while the block runs (none without a path); yields the seconds waited."""
    if not path:
        yield 0.0
        return
    with open(path, "a") as f:
        t0 = time.monotonic()
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield time.monotonic() - t0
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class Run:
    def __init__(self, args, cfg, base: str):
        self.args, self.cfg, self.base = args, cfg, base
        self.stages: list[Stage] = []
        self.out = Path(args.out)
        self.command = "elf-bench scale " + shlex.join(args.argv)
        self.notes: list[str] = []
        self.earlier = [Path(f).read_text() for f in args.merge]

    def measure(self, stage: Stage, tenant: str, sets: list[list[str]], warm: str) -> None:
        with held(self.args.lock) as waited:
            if self.args.lock:
                print(f"measuring under {self.args.lock} (waited {waited:.0f} s for it)", flush=True)
            print(settle(self.cfg, self.base, tenant, warm), flush=True)
            floor = SearchFloor(self.cfg, tenant=tenant, project=PROJECT, agent=AGENT, read_profile=READ_PROFILE)
            try:
                for mode in MODES:
                    stage.passes[mode] = run_pass(self.base, tenant, sets.pop(0), mode, floor)
            finally:
                floor.close()
            sample = questions(self.args.overlap_sample)
            stage.overlap, stage.overlap_n = overlap_at_10(self.cfg, sample, tenant=tenant, project=PROJECT,
                                                           agent=AGENT, read_profile=READ_PROFILE), len(sample)
            stage.memory = memory(self.cfg, self.args.config)
            stage.disk = disk(self.cfg)
            stage.load_average = load_average()
            if self.args.ef_sweep:  # other questions than the reported overlap's: an ef chosen here is judged there
                self.sweep(stage, tenant, questions(2 * len(sample))[len(sample):])
        self.stages.append(stage)
        self.report(stage)

    def sweep(self, stage: Stage, tenant: str, sample: list[str]) -> None:
        """--ef-sweep: the dense leg's overlap@10 and request time at each ef, beside the service's."""
        efs = [SERVICE_EF, *(int(e) for e in self.args.ef_sweep.split(",") if e.strip())]
        rows = [[f"service ({r.ef or 'default'})" if i == 0 else str(r.ef), f"{r.overlap:.3f}",
                 f"{percentile(r.ms, 50):.1f} / {percentile(r.ms, 95):.1f}"]
                for i, r in enumerate(overlap_by_ef(self.cfg, sample, tenant=tenant, project=PROJECT, agent=AGENT,
                                                   read_profile=READ_PROFILE, efs=efs))]
        lines = [f"Dense leg by hnsw_ef at {stage.label} ({len(sample)} questions after the overlap sample's, "
                 f"limit {self.cfg.memory.candidate_k}, its first 10 scored, one request at a time):",
                 "", "```", *table(["hnsw_ef", "overlap@10", "ms p50 / p95"], rows), "```"]
        print("\n".join(line for line in lines if line != "```"), flush=True)
        self.notes += ["", *lines]

    def report(self, stage: Stage) -> None:
        cached = sum(p.cached for p in stage.passes.values())
        print(f"\nscale @ {stage.label}: {stage.notes:,} notes in the collection; load average {stage.load_average}"
              + (f"; {cached} query vectors came from the service's cache" if cached else ""), flush=True)
        print("\n".join(table(LATENCY_HEADER, latency_rows([stage]))))
        for line in filter(None, (p.stage_line() for p in stage.passes.values())):
            print(line)
        print(f"overlap@10 of the dense leg against exact search: {stage.overlap:.3f} over {stage.overlap_n} "
              "questions")
        print("\n".join(table(MEMORY_HEADER, memory_rows([stage]))))
        d = stage.disk
        if d is not None:
            qd = "-" if d.qdrant_per_point is None else f"{d.qdrant_per_point:,.0f}"
            print(f"disk: Postgres {d.postgres_bytes / 2**20:,.0f} MiB for {d.notes:,} notes = "
                  f"{d.postgres_per_note:,.0f} B/note; Qdrant {qd} B/point over {d.points:,} points")
        print(WHAT, flush=True)
        md, png = self.out / "scale.md", self.out / "scale.png"
        self.out.mkdir(parents=True, exist_ok=True)
        plot(tables(self.stages, self.earlier)["latency"], png)
        md.write_text(markdown(self.stages, self.command, str(png), self.notes, self.earlier))
        print(f"wrote {md} and {png}", flush=True)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench scale", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated note counts, cumulative")
    ap.add_argument("--tenants", default="1000x1000", help="TENANTSxNOTES loaded after the sizes, or 0 for none")
    ap.add_argument("--queries", type=int, default=100, help="questions per stage and mode (distinct in each)")
    ap.add_argument("--overlap-sample", type=int, default=100, help="questions for overlap@10 against exact search")
    ap.add_argument("--out", default="docs/benchmarks", help="folder of scale.md and scale.png")
    ap.add_argument("--skip-load", action="store_true", help="measure the notes an earlier run loaded (--tenant)")
    ap.add_argument("--tenant", help="the single tenant's name (default: a fresh one; required with --skip-load)")
    ap.add_argument("--merge", nargs="*", default=[], metavar="MD",
                    help="earlier runs' scale.md files whose rows go before this run's in the tables and the plot "
                         "(e.g. the small sizes, before a --skip-load run on the data they left)")
    ap.add_argument("--lock", help="a file to flock while each stage measures (not while it loads), so measurements "
                    "of other runs taking the same lock do not overlap this run's")
    ap.add_argument("--ef-sweep", default="", metavar="EF,EF",
                    help="also print the dense leg's overlap@10 and time at each of these hnsw_ef values, on the "
                         "--overlap-sample questions after those of the reported overlap")
    ap.add_argument("--texts", choices=("pairs", "copies"), default="pairs",
                    help="distinct notes, each embedded (pairs), or copies of LoCoMo sentences with noise (copies)")
    ap.add_argument("--vector-cache", default=str(CACHE), help="folder of the pair notes' cached vectors")
    ap.add_argument("--optimize-timeout", type=float, default=3600, help="seconds to wait for Qdrant's optimizer")
    args = ap.parse_args(argv)
    args.argv = argv
    if args.skip_load and not args.tenant:
        ap.error("--skip-load needs --tenant")
    cfg = load_config(args.config)
    base = live_base_url(ap, cfg.service.http_bind)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    n_tenants, per_tenant = _tenants(args.tenants)
    tenant = args.tenant or f"scale-{uuid.uuid4().hex[:8]}"
    run = Run(args, cfg, base)
    print(f"tenant {tenant}", flush=True)

    if args.skip_load:
        have = notes_of(cfg.storage.postgres.dsn, tenant)
        sizes = [have] if have else []
        names = tenant_names(tenant, n_tenants)
        if not n_tenants or not notes_of(cfg.storage.postgres.dsn, names[0]):
            n_tenants = 0
        loader = None
    elif args.texts == "pairs":
        needed = max([*sizes, 0]) + n_tenants * per_tenant
        loader = NoteLoader(cfg, pairs=PairVectors(cfg.providers.embedding.model, needed, Path(args.vector_cache)))
        run.notes.append(f"Notes: {needed:,} distinct texts (bench.pair_notes), each embedded by "
                         f"{cfg.providers.embedding.model}.")
    else:
        loader = NoteLoader(cfg, distinct=min(max([*sizes, per_tenant, 1]), 20000))
        run.notes.append("Notes: copies of LoCoMo sentences with noise (--texts copies); overlap@10 is held down by "
                         "their near-ties at large sizes.")
    warm, sets, repeats = query_sets(args.queries, (len(sizes) + (1 if n_tenants else 0)) * len(MODES))
    if repeats:
        run.notes.append("Too few distinct LoCoMo questions: some repeat across passes (the query-vector cache "
                         "may answer them).")
        print(run.notes[-1], file=sys.stderr)
    run_pass(base, tenant, warm, "quick_find", None)  # models loaded in the API workers

    loaded = 0
    for size in sizes:
        load_s = green_s = 0.0
        if loader is not None:
            load_s = loader.load(Owner(tenant, PROJECT, AGENT), loaded, size - loaded)
            print(f"loaded {size - loaded:,} notes in {load_s:.1f} s = {(size - loaded) / load_s:,.0f} notes/s "
                  f"(load average {load_average()})", flush=True)
            green_s = loader.wait_green(args.optimize_timeout)
            print(optimized_line(loader, green_s, args.optimize_timeout), flush=True)
        stage = Stage(f"{size:,} notes, 1 tenant", 1, size, size - loaded if loader else 0, load_s, green_s, "")
        loaded = size
        run.measure(stage, tenant, sets, warm[0])

    if n_tenants:
        names = tenant_names(tenant, n_tenants)
        load_s = green_s = 0.0
        if loader is not None:
            owners = [Owner(name, PROJECT, AGENT) for name in names]
            load_s = loader.load_owners(owners, loaded, per_tenant)
            total = n_tenants * per_tenant
            print(f"loaded {n_tenants:,} tenants x {per_tenant:,} notes in {load_s:.1f} s = {total / load_s:,.0f} "
                  f"notes/s (load average {load_average()})", flush=True)
            green_s = loader.wait_green(args.optimize_timeout)
            print(optimized_line(loader, green_s, args.optimize_timeout), flush=True)
        asked = names[len(names) // 2]
        stage = Stage(f"{n_tenants:,} tenants x {per_tenant:,} notes (asked as {asked})", n_tenants,
                      notes_of(cfg.storage.postgres.dsn, asked), n_tenants * per_tenant if loader else 0, load_s,
                      green_s, "")
        run.measure(stage, asked, sets, warm[0])
    if loader is not None:
        loader.close()
    return 0
