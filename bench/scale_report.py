"""elf-bench scale's output: one stage per measured size, printed as plain text and written as a markdown table
(scale.md) beside a PNG growth plot (scale.png) of the server's and the floor's p50 / p95 against the notes in
the collection (log x)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.scale_probe import Disk, Memory
from bench.search_bench import Pass
from bench.search_floor import ratio
from bench.stats import percentile

MIB = 1024 * 1024
MODES = ("quick_find", "planned_search")


@dataclass
class Stage:
    """One measured size: what was loaded, the passes of each mode and what the probes read afterwards."""

    label: str  # e.g. "1,000,000 notes, 1 tenant"
    tenants: int  # tenants in the collection's measured part (1, or e.g. 1000)
    tenant_notes: int  # notes of the tenant the queries are sent as
    loaded: int  # notes loaded for this stage (0 with --skip-load)
    load_s: float
    green_s: float
    load_average: str
    passes: dict[str, Pass] = field(default_factory=dict)
    overlap: float = float("nan")
    overlap_n: int = 0
    memory: list[Memory] = field(default_factory=list)
    disk: Disk | None = None

    @property
    def notes(self) -> int:
        """Notes in the whole collection (every tenant's) when this stage was measured."""
        return self.disk.notes if self.disk else self.tenant_notes


def _pp(values: list[float]) -> str:
    return f"{percentile(values, 50):.1f} / {percentile(values, 95):.1f}"


def _ratio(values: list[float], floor: list[float]) -> str:
    return f"{ratio(values, floor, 50):.2f} / {ratio(values, floor, 95):.2f}"


def latency_rows(stages: list[Stage]) -> list[list[str]]:
    rows = []
    for s in stages:
        for mode, p in s.passes.items():
            floor = [f.total_ms for f in p.floors]
            parts = " / ".join(f"{percentile([getattr(f, a) for f in p.floors], 50):.1f}"
                               for a in ("embed_ms", "qdrant_ms", "postgres_ms"))
            rows.append([f"{s.notes:,}", f"{s.tenants:,} x {s.tenant_notes:,}", mode, str(len(p.server)),
                         _pp(p.server), _pp(p.client), _pp(floor), parts, _ratio(p.server, floor),
                         _ratio(p.client, floor),
                         f"{s.overlap:.3f}" if mode == "quick_find" else "", s.load_average.split(" (")[0]])
    return rows


LATENCY_HEADER = ["notes in collection", "tenants x notes", "mode", "n", "server p50 / p95", "client p50 / p95",
                  "floor p50 / p95", "floor p50: embed / qdrant / pg", "server / floor", "client / floor", "overlap@10",
                  "load avg"]


def memory_by_role(stage: Stage) -> dict[str, list[Memory]]:
    out: dict[str, list[Memory]] = defaultdict(list)
    for m in stage.memory:
        out[m.role].append(m)
    return out


def memory_rows(stages: list[Stage]) -> list[list[str]]:
    rows = []
    for s in stages:
        for role, procs in memory_by_role(s).items():
            each = ", ".join(f"{m.pss / MIB:.0f}" for m in sorted(procs, key=lambda m: m.pid))
            rows.append([f"{s.notes:,}", role, str(len(procs)), f"{sum(m.pss for m in procs) / MIB:.0f}",
                         f"{sum(m.rss for m in procs) / MIB:.0f}", each])
        total = sum(m.pss for m in s.memory)
        rows.append([f"{s.notes:,}", "all", str(len(s.memory)), f"{total / MIB:.0f}",
                     f"{sum(m.rss for m in s.memory) / MIB:.0f}", ""])
    return rows


MEMORY_HEADER = ["notes in collection", "process", "processes", "PSS MiB", "RSS MiB", "PSS MiB per process (by pid)"]


def disk_rows(stages: list[Stage]) -> list[list[str]]:
    rows = []
    for s in stages:
        d = s.disk
        if d is None:
            continue
        qd = "-" if d.qdrant_bytes is None else f"{d.qdrant_bytes / MIB:,.0f}"
        qpp = "-" if d.qdrant_per_point is None else f"{d.qdrant_per_point:,.0f}"
        rows.append([f"{d.notes:,}", f"{d.postgres_bytes / MIB:,.0f}", f"{d.postgres_per_note:,.0f}", f"{d.points:,}",
                     qd, qpp])
    return rows


DISK_HEADER = ["notes (Postgres)", "Postgres MiB", "bytes / note", "points (Qdrant)", "Qdrant MiB", "bytes / point"]


def load_rows(stages: list[Stage]) -> list[list[str]]:
    return [[s.label, f"{s.loaded:,}", f"{s.load_s:.1f}", f"{s.loaded / s.load_s:,.0f}" if s.load_s else "-",
             f"{s.green_s:.1f}"] for s in stages if s.loaded]


LOAD_HEADER = ["stage", "notes loaded", "load s", "notes / s", "s until optimized"]


def _md(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
            *("| " + " | ".join(r) + " |" for r in rows)]


def md_table(text: str, header: list[str]) -> list[list[str]]:
    """The rows of the markdown table in ``text`` whose header is ``header`` (none when it has no such table)."""
    lines = text.splitlines()
    head = "| " + " | ".join(header) + " |"
    if head not in lines:
        return []
    rows = []
    for line in lines[lines.index(head) + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


TABLES = {"latency": LATENCY_HEADER, "memory": MEMORY_HEADER, "disk": DISK_HEADER, "load": LOAD_HEADER}


def tables(stages: list[Stage], earlier: list[str]) -> dict[str, list[list[str]]]:
    """Each table's rows: those of the ``earlier`` scale.md texts (--merge: stages an earlier run measured, e.g.
    the small sizes before a run that reuses the loaded data), then this run's."""
    mine = {"latency": latency_rows(stages), "memory": memory_rows(stages), "disk": disk_rows(stages),
            "load": load_rows(stages)}
    return {name: [r for text in earlier for r in md_table(text, TABLES[name])] + mine[name] for name in TABLES}


def markdown(stages: list[Stage], command: str, plot: str, notes: list[str], earlier: list[str] = ()) -> str:
    t = tables(stages, list(earlier))
    lines = [f"Command: `{command}`", "", f"Plot: `{plot}`", "",
             "Latency (ms; server: Server-Timing `search;dur=`, client: loopback round trip, floor: "
             "bench.search_floor in the bench process; x / floor: p50 over floor p50 / p95 over floor p95; "
             "overlap@10: the dense leg's approximate top 10 against exact search, same filter):", "",
             *_md(LATENCY_HEADER, t["latency"]), "",
             "The server's own steps (Server-Timing entries), p50 in ms:", "",
             *(f"- {s.notes:,} notes ({s.tenants:,} x {s.tenant_notes:,}), {line.strip()}" for s in stages
               for line in filter(None, (p.stage_line() for p in s.passes.values()))), "",
             "Memory of each process of the stack after the stage (PSS: shared pages split among their processes):",
             "", *_md(MEMORY_HEADER, t["memory"]), "",
             "Disk (Postgres: memory_notes, memory_note_chunks, note_chunk_embeddings, note_embeddings with TOAST "
             "and indexes; Qdrant: the collection's folder):", "", *_md(DISK_HEADER, t["disk"]), "",
             "Load (binary COPY + Qdrant upserts, bench.note_loader; then the wait for Qdrant's optimizer):", "",
             *_md(LOAD_HEADER, t["load"])]
    if earlier:
        lines += ["", f"Rows before this run's come from {len(earlier)} earlier run(s) (--merge)."]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def plot(rows: list[list[str]], path: Path) -> None:
    """The growth plot from latency table rows: server p50 / p95 per mode and the quick_find floor against the
    notes in the collection (log x); a stage with many tenants is drawn as separate markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def num(cell: str) -> float:
        return float(cell.replace(",", ""))

    def at(mode: str, many: bool) -> list[tuple[float, str, list[float], list[float]]]:
        out = [(num(r[0]), r[1], [float(x) for x in r[4].split(" / ")], [float(x) for x in r[6].split(" / ")])
               for r in rows if r[2] == mode and (not r[1].startswith("1 x ")) == many]
        return sorted(out)

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    styles = {"quick_find": "tab:blue", "planned_search": "tab:orange"}
    for mode, color in styles.items():
        for i, (q, dash) in enumerate(((50, "-"), (95, "--"))):
            one = at(mode, False)
            if one:
                ax.plot([x for x, *_ in one], [s[i] for _, _, s, _ in one], dash, marker="o", color=color,
                        label=f"{mode} server p{q}")
            for x, who, server, _ in at(mode, True):
                ax.plot([x], [server[i]], marker="*" if q == 50 else "P", markersize=11, color=color,
                        linestyle="none", label=f"{mode} server p{q}, {who} tenants x notes")
    for i, (q, dash) in enumerate(((50, "-"), (95, "--"))):
        one = at("quick_find", False)
        if one:
            ax.plot([x for x, *_ in one], [f[i] for *_, f in one], dash, marker="s", color="tab:gray",
                    label=f"quick_find floor p{q}")
    ax.axhline(30, color="tab:red", linewidth=0.8, alpha=0.6, label="target: quick_find server p95 30 ms")
    ax.set_xscale("log")
    ax.set_xlabel("notes in the collection")
    ax.set_ylabel("ms")
    ax.set_title("elf-bench scale: POST /v2/searches, server time beside the in-process floor")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
