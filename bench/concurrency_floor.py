"""The floor of elf-bench concurrency's mixed workload: the most N agents could get from the machine's cores.

The unavoidable work of each request kind is measured in-process before the levels run, on the bench's own
texts and questions: an add_note of one note (bench.add_note_floor: embedding it and writing its rows in one
transaction) and a quick_find (bench.search_floor: the query embedding, the Qdrant engine time, the Postgres
re-validation, on a tenant of bulk-loaded notes). For the mix (``write_ratio`` add_note, the rest quick_find):
- wall: the mean floor time of one request, its parts one after the other;
- cpu: the mean CPU it takes: the embedding's CPU time in this process (onnxruntime runs several threads, so
  it can exceed the wall time) plus the Qdrant and Postgres times, counted whole as CPU.
The ceiling at N agents (each sends its next request when the last one returns) is min(N / wall, cores / cpu)
requests per second: N agents never have more than N requests in flight, and the cores do at most ``cores``
seconds of CPU per second. By Little's law the mean latency at N agents is then at least N / ceiling. Both
bounds are optimistic: they leave out HTTP, Django, ranking, the trace, the worker's indexing and the
benchmark client itself, which share the same cores.
"""

from __future__ import annotations

import os
import statistics
import uuid
from dataclasses import dataclass

from bench.add_note_floor import Floor
from bench.add_note_floor import measure as measure_add_note
from bench.search_bench import AGENT, PROJECT, READ_PROFILE, Loader
from bench.search_floor import QueryFloor, SearchFloor
from bench.stats import percentile
from elf_config import ElfConfig


@dataclass(frozen=True)
class MixFloor:
    wall_ms: float  # mean floor time of one request of the mix
    cpu_ms: float  # mean CPU time of one request of the mix
    cores: int

    def ceiling(self, agents: int) -> float:
        """Requests per second ``agents`` closed-loop agents can reach at best."""
        return min(agents * 1000 / self.wall_ms, self.cores * 1000 / self.cpu_ms)

    def latency_ms(self, agents: int) -> float:
        """The least mean latency at ``agents`` agents (Little's law at the ceiling)."""
        return agents * 1000 / self.ceiling(agents)


def mix(write: Floor, search: list[QueryFloor], write_ratio: float, cores: int) -> MixFloor:
    """The mean floor of one request when ``write_ratio`` of them are add_note and the rest quick_find."""
    write_wall = (write.embed_s + write.postgres_s) / write.notes * 1000
    write_cpu = (write.embed_cpu_s + write.postgres_s) / write.notes * 1000
    search_wall = statistics.fmean(f.total_ms for f in search)
    search_cpu = statistics.fmean(f.cpu_ms for f in search)
    return MixFloor(write_ratio * write_wall + (1 - write_ratio) * search_wall,
                    write_ratio * write_cpu + (1 - write_ratio) * search_cpu, cores)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def measure(cfg: ElfConfig, texts: list[str], queries: list[str], write_ratio: float, n: int) -> tuple[MixFloor, str]:
    """The mix's floor from ``n`` add_notes and ``n`` quick_finds done in-process, and a line describing it."""
    write = measure_add_note(cfg, texts[:n], 1)
    tenant = f"bench-floor-{uuid.uuid4().hex[:8]}"
    Loader(cfg, tenant, distinct=n).load_to(n)
    floor = SearchFloor(cfg, tenant=tenant, project=PROJECT, agent=AGENT, read_profile=READ_PROFILE)
    try:
        search = [floor.measure(q) for q in queries[:n]]
    finally:
        floor.close()
    result = mix(write, search, write_ratio, cores())
    total = [f.total_ms for f in search]
    line = (f"floor per request, in this process (n={n} each): quick_find p50 {percentile(total, 50):.1f} / p95 "
            f"{percentile(total, 95):.1f} ms (embedding + Qdrant engine + Postgres re-validation, on {n} notes), "
            f"add_note {(write.embed_s + write.postgres_s) / write.notes * 1000:.1f} ms/note; the mix with "
            f"{write_ratio:.0%} add_note: {result.wall_ms:.1f} ms wall, {result.cpu_ms:.1f} ms CPU per request on "
            f"{result.cores} cores; ceiling at N agents = min(N / wall, cores / CPU) req/s, mean latency >= "
            f"N / ceiling")
    return result, line
