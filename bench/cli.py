"""elf-bench: benchmark commands that print numbers.

    elf-bench -c elf.toml            every part against a running ELF, bounded in time and count:
                                     add-note (10k notes, until all are searchable), search (1k/10k/100k notes),
                                     concurrency, graph, docs, core-memory, acb; add-note, search and concurrency
                                     print each figure beside its floor, the same work done in-process in the same
                                     run (the embedder and qdrant micro-benchmarks need no running service and are
                                     separate)
    elf-bench NAME [options]         one part; elf-bench NAME --help for its options
    elf-bench extractor [--locomo]   the offline extractor's precision and recall (issue 32; needs no service)
    elf-bench supersede -c elf.toml  current versus superseded notes in search (issue 32; not part of the run above)
    elf-bench scale -c elf.toml      search at 10k / 100k / 1M notes and 1,000 tenants (issue 35; loads ~2M notes, so
                                     not part of the run above)
    elf-bench pair-notes -c elf.toml embeds the scale bench's distinct notes (--texts pairs) once, into var/bench-cache
    elf-bench bulk-load -c elf.toml  import_tenant with vectors beside COPY alone (issue 35; not part of the run above)
"""

from __future__ import annotations

import importlib
import sys
import time

BENCHES = {
    "embedder": "bench.embedder_bench",
    "qdrant": "bench.qdrant_bench",
    "add-note": "bench.add_note_bench",
    "search": "bench.search_bench",
    "concurrency": "bench.concurrency_bench",
    "graph": "bench.graph_bench",
    "docs": "bench.docs_bench",
    "core-memory": "bench.core_memory_bench",
    "acb": "bench.acb_bench",
    "extractor": "bench.extractor_eval",  # quality, offline: not part of ``elf-bench -c FILE``
    "supersede": "bench.supersede_eval",  # quality, not speed: not part of ``elf-bench -c FILE``
    "scale": "bench.scale_bench",  # hours of loading at full size: not part of ``elf-bench -c FILE``
    "bulk-load": "bench.bulk_load_bench",  # not part of ``elf-bench -c FILE``
    "pair-notes": "bench.pair_notes",  # the scale bench's distinct notes, embedded once (40 min for 1M)
}
# What `elf-bench -c FILE` runs, in order, with bounded sizes (every part also caps its own waiting time).
ALL = (
    ("add-note", ["--notes", "10000", "--single", "300", "--batch", "50", "--timeout", "900", "--probes", "20"]),
    ("search", ["--sizes", "1000,10000,100000", "--queries", "100"]),
    ("concurrency", ["--agents", "1,4,16,32", "--duration", "30", "--max-ops", "400"]),
    ("graph", ["--notes", "10000", "--facts", "20000", "--queries", "100"]),
    ("docs", ["--docs", "200", "--queries", "100", "--timeout", "1800"]),
    ("core-memory", ["--n", "300"]),
    ("acb", ["--events-session", "5000", "--events-tenant", "50000"]),
)


def run_all(config_args: list[str]) -> int:
    worst = 0
    for name, extra in ALL:
        print(f"== elf-bench {name} {' '.join(config_args + extra)}", flush=True)
        t0 = time.perf_counter()
        rc = importlib.import_module(BENCHES[name]).main(config_args + extra)
        print(f"== {name}: exit {rc} after {time.perf_counter() - t0:.0f} s", flush=True)
        worst = max(worst, rc)
    return worst


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] in ("-c", "--config"):
        return run_all(args)
    if not args or args[0] not in BENCHES:
        print(__doc__, file=sys.stderr)
        print(f"parts: {', '.join(BENCHES)}", file=sys.stderr)
        return 2
    return importlib.import_module(BENCHES[args[0]]).main(args[1:])


if __name__ == "__main__":
    sys.exit(main())
