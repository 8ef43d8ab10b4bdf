"""elf-eval's readable stdout report: ingest counts, metrics overall and per category, latencies; with two
arms, side by side with deltas (B - A)."""

from __future__ import annotations

from .eval_metrics import METRICS
from .stats import table as _table


def _f(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _groups(arm: dict) -> list[tuple[str, int, dict]]:
    return [("overall", arm["queries"], arm["overall"])] + [
        (name, g["queries"], g) for name, g in arm["by_category"].items()]


def ingest_lines(label: str, ing: dict, index_s: float | None) -> list[str]:
    ops = ", ".join(f"{k} {v}" for k, v in sorted(ing["ops"].items()))
    lines = [f"ingest [{label}] tenant {ing['tenant']}: {ing['items']} items -> {ing['notes']} notes "
             f"({ing['split_items']} items split into {ing['parts']} parts); ops: {ops}; {ing['seconds']:.1f} s"
             + (f"; indexed after {index_s:.1f} s more" if index_s is not None else "")]
    if ing["rejected"]:
        reasons = ", ".join(f"{k} x{v}" for k, v in ing["rejected_by_reason"].items())
        lines.append(f"!! [{label}] {len(ing['rejected'])} notes REJECTED ({reasons}); "
                     f"{len(ing['lost_items'])} items have no stored note: {', '.join(ing['lost_items'][:10])}")
    if ing["none"]:
        lines.append(f"!  [{label}] {len(ing['none'])} notes answered NONE (matched an existing note)")
    return lines


def latency_rows(arm: dict) -> list[tuple[str, float | None]]:
    lat = arm["latency_ms"]
    return [(f"{side} {p} ms", lat[side][p]) for side in ("client", "server") for p in ("p50", "p95")]


def single_arm(arm: dict, *, latency: bool = True) -> list[str]:
    rows = [[name, str(n), *(_f(g.get(m)) for m in METRICS)] for name, n, g in _groups(arm)]
    lines = _table(["category", "queries", *METRICS], rows)
    if not latency:
        return lines
    lat = ", ".join(f"{name} {_f(v, 1)}" for name, v in latency_rows(arm))
    return lines + [f"latency ({arm['mode']}, {arm['latency_ms']['client']['n']} searches): {lat}"]


def _split_arm(arm: dict, split: str) -> dict:
    return {**arm, **arm["splits"][split]}


def split_lines(arms: list[dict]) -> list[str]:
    """Each split (bench.eval_protocol) the run searched, apart: dev is where levers are tuned, test is only
    reported."""
    lines = []
    for split in arms[0].get("splits") or {}:
        parts = [_split_arm(arm, split) for arm in arms]
        lines += ["", f"split {split} ({parts[0]['queries']} queries)"]
        lines += single_arm(parts[0], latency=False) if len(parts) == 1 else two_arms(*parts, latency=False)
    return lines


def two_arms(a: dict, b: dict, *, latency: bool = True) -> list[str]:
    rows = []
    for (name, n, ga), (_, _, gb) in zip(_groups(a), _groups(b), strict=False):
        for m in METRICS:
            va, vb = ga.get(m), gb.get(m)
            delta = None if va is None or vb is None else vb - va
            rows.append([f"{name} ({n})", m, _f(va), _f(vb), "-" if delta is None else f"{delta:+.3f}"])
    for (name, va), (_, vb) in zip(latency_rows(a), latency_rows(b), strict=False) if latency else ():
        delta = None if va is None or vb is None else vb - va
        rows.append(["latency", name, _f(va, 1), _f(vb, 1), "-" if delta is None else f"{delta:+.1f}"])
    other = a["target"] != b["target"]
    head_a, head_b = (f"{arm['label']} {arm['mode']}" + (f" @{arm['target']}" if other else "") for arm in (a, b))
    return _table(["category (queries)", "metric", head_a, head_b, "B - A"], rows)


def render(result: dict) -> str:
    ds = result["dataset"]
    lines = [f"dataset {ds['path']} (sha256 {ds['sha256'][:16]}...): {ds['conversations']} conversations, "
             f"{ds['items']} items, {ds['queries']} queries"]
    for t in result["targets"].values():
        s = t["summary"]
        lines.append(f"service [{t['label']}] {s['base_url']} ({s['config']}), notes with {t['notes']}: embedding "
                     f"{s['embedding']['provider_id']}/{s['embedding']['model']}, rerank "
                     f"{s['rerank']['provider_id']}/{s['rerank']['model']}, expansion {s['expansion_mode']}")
        lines += ingest_lines(t["label"], t["ingest"], t.get("index_seconds"))
    arms = result["arms"]
    a = arms[0]
    lines.append(f"top_k {a['top_k']}, candidate_k {a['candidate_k'] or 'config default'}")
    lines.append("")
    lines += single_arm(a) if len(arms) == 1 else two_arms(a, arms[1])
    lines += split_lines(arms)
    for arm in arms:
        if arm["queries_with_unstored_evidence"]:
            lines.append(f"!! arm {arm['label']}: {arm['queries_with_unstored_evidence']} queries expect an item "
                         "that was not stored (see REJECTED above)")
    return "\n".join(lines)
