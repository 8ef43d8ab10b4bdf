"""elf-bench supersede: current versus superseded (issue 32), over HTTP against a running ELF.

Each case of the set (tests/data/supersede_cases.json) writes its notes in order through add_note, each with the
relation it states (the predicate named as an agent or the local extractor would), in a project of its own, and
then asks a present-tense question. The last note is current, every earlier one states a fact a later note
superseded. The command reports, per search mode, how often a superseded note ranks above the current one (a
superseded note in the results while the current one is not counts too), and with ``--as-of-past`` the same
searches asked about the past (``as_of`` a year ago), where search does not demote superseded notes: what the
demotion changes. It also reads GET /v2/graph/facts per case: one current fact is what the shipped predicate
registry should leave, with no operator action. Exit 1 when the count is above ``--max-above`` (default 0).

    elf-bench supersede -c elf.toml [--mode quick_find,planned_search] [--as-of-past] [--json FILE] [--keep]
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from elf_domain.vocabulary import SEARCH_MODES

from .eval_client import ElfClient, RequestFailed
from .eval_indexing import IndexingTimeout, wait_indexed
from .eval_target import TargetError, load_target

DATASET = Path(__file__).resolve().parent.parent / "tests" / "data" / "supersede_cases.json"
AGENT = "supersede-eval"
READ_PROFILE = "private_only"


@dataclass
class Written:
    """A case after its notes were written: ids in writing order (None when add_note stored none) and ops."""

    case: dict
    project: str
    note_ids: list[str | None]
    ops: list[str]

    @property
    def current(self) -> str | None:
        return self.note_ids[-1]

    @property
    def superseded(self) -> list[str]:
        return [n for n in self.note_ids[:-1] if n is not None and n != self.current]


@dataclass
class ArmResult:
    mode: str
    past: bool
    cases: int = 0
    above: list[str] = field(default_factory=list)  # case ids where a superseded note ranks above the current one
    current_missing: list[str] = field(default_factory=list)
    current_first: int = 0

    def summary(self) -> dict:
        return {"mode": self.mode, "as_of_past": self.past, "cases": self.cases,
                "superseded_above_current": len(self.above), "current_ranked_first": self.current_first,
                "current_missing": len(self.current_missing), "above_cases": self.above}


def _relation(r: dict) -> dict:
    obj = r["object"]
    return {"subject": {"canonical": r["subject"], "kind": None}, "predicate": r["predicate"],
            "object": {"entity": {"canonical": obj["entity"]} if obj.get("entity") else None,
                       "value": obj.get("value")}}


def write_case(client: ElfClient, case: dict, project: str) -> Written:
    """One add_note request per note, in order (a later note is a later statement). Distinct keys keep each
    statement its own note (key-less, the UpdateResolver may fold a near-duplicate into the older note)."""
    ids, ops = [], []
    for i, n in enumerate(case["notes"]):
        body = {"type": "fact", "key": f"{case['id']}.{i}", "text": n["text"], "importance": 0.5, "confidence": 0.9,
                "structured": {"relations": [_relation(r) for r in n["relations"]]}}
        (out,) = client.ingest(project, [body])
        ids.append(out.note_id)
        ops.append(out.op)
    return Written(case, project, ids, ops)


def search_ids(client: ElfClient, project: str, query: str, *, mode: str, top_k: int, as_of: str | None) -> list[str]:
    body: dict = {"query": query, "mode": mode, "top_k": top_k}
    if as_of is not None:
        body["as_of"] = as_of
    resp = client._send("POST", "/v2/searches", project, json=body, headers={"X-ELF-Read-Profile": READ_PROFILE})
    if resp.status_code != 200:
        raise RequestFailed(f"POST /v2/searches answered {resp.status_code}: {resp.text[:300]}")
    return [it["note_id"] for it in resp.json()["items"]]


def current_facts(client: ElfClient, w: Written) -> int:
    """How many current facts GET /v2/graph/facts gives for the case's subject and predicate."""
    params = {"subject": w.case["subject"], "predicate": w.case["predicate"], "state": "current"}
    resp = client._send("GET", "/v2/graph/facts", w.project, params=params)
    if resp.status_code != 200:
        raise RequestFailed(f"GET /v2/graph/facts answered {resp.status_code}: {resp.text[:300]}")
    return len(resp.json()["facts"])


def judge(ranking: list[str], w: Written) -> tuple[bool, bool]:
    """(a superseded note ranks above the current one, the current note is missing from the results)."""
    pos = {n: i for i, n in enumerate(ranking)}
    current = pos.get(w.current) if w.current else None
    olds = [pos[n] for n in w.superseded if n in pos]
    above = bool(olds) and (current is None or min(olds) < current)
    return above, current is None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="elf-bench supersede", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-c", "--config", required=True, help="elf.toml of the running service (loopback, auth off)")
    p.add_argument("--dataset", default=str(DATASET), help=f"the case set (default {DATASET.name})")
    p.add_argument("--mode", default=",".join(SEARCH_MODES), help="search modes, comma-separated (default both)")
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument("--as-of-past", action="store_true", help="also search with as_of a year ago (no demotion)")
    p.add_argument("--max-above", type=int, default=0, help="exit 1 above this many cases (default 0)")
    p.add_argument("--json", dest="json_out", metavar="FILE", help="write every number and per-case rankings here")
    p.add_argument("--keep", action="store_true", help="keep the notes written (default: delete them at the end)")
    p.add_argument("--index-timeout", type=float, default=600.0, metavar="S")
    return p.parse_args(argv)


def run(args: argparse.Namespace) -> dict:
    target = load_target(args.config)
    cases = json.loads(Path(args.dataset).read_text())["cases"]
    modes = [m.strip() for m in args.mode.split(",") if m.strip()]
    if not cases or any(m not in SEARCH_MODES for m in modes):
        raise ValueError(f"need cases and modes among {', '.join(SEARCH_MODES)}")
    run_id = secrets.token_hex(4)
    client = ElfClient(target.base_url, tenant=f"supersede-{run_id}", agent=AGENT)
    client.health()
    t0 = time.perf_counter()
    written = [write_case(client, c, f"sc-{run_id}-{i}") for i, c in enumerate(cases)]
    ids = [n for w in written for n in w.note_ids if n]
    wait_indexed(target.dsn, ids, timeout_s=args.index_timeout, on_progress=lambda _done: None)
    facts = {w.case["id"]: current_facts(client, w) for w in written}
    past = (datetime.now(UTC) - timedelta(days=365)).isoformat()
    arms, rankings = [], {}
    for mode in modes:
        for as_of in ([None, past] if args.as_of_past else [None]):
            arm = ArmResult(mode, as_of is not None)
            for w in written:
                ranking = search_ids(client, w.project, w.case["query"], mode=mode, top_k=args.top_k, as_of=as_of)
                rankings.setdefault(w.case["id"], {})[f"{mode}{' as_of' if as_of else ''}"] = ranking
                above, missing = judge(ranking, w)
                arm.cases += 1
                arm.current_first += bool(ranking) and ranking[0] == w.current
                if above:
                    arm.above.append(w.case["id"])
                if missing:
                    arm.current_missing.append(w.case["id"])
            arms.append(arm)
    deleted = 0
    if not args.keep:
        for n in ids:
            client.delete(next(w.project for w in written if n in w.note_ids), n)
            deleted += 1
    return {
        "dataset": str(args.dataset), "base_url": target.base_url, "tenant": client.tenant,
        "cases": len(cases), "notes": len(ids),
        "ops": {op: sum(o == op for w in written for o in w.ops) for op in sorted({o for w in written for o in w.ops})},
        "one_current_fact": sum(v == 1 for v in facts.values()),
        "not_one_current_fact": {k: v for k, v in facts.items() if v != 1},
        "arms": [a.summary() for a in arms], "deleted": deleted, "seconds": round(time.perf_counter() - t0, 1),
        "cases_detail": [{**asdict(w), "rankings": rankings[w.case["id"]]} for w in written],
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = run(args)
    except (TargetError, RequestFailed, IndexingTimeout, ValueError, OSError) as exc:
        print(f"elf-bench supersede: {exc}", file=sys.stderr)
        return 2
    print(f"{result['cases']} cases, {result['notes']} notes {result['ops']}, "
          f"one current fact in {result['one_current_fact']} of {result['cases']} cases ({result['seconds']} s)")
    for a in result["arms"]:
        label = a["mode"] + (" (as_of a year ago: no demotion)" if a["as_of_past"] else "")
        print(f"{label:45s} superseded above current: {a['superseded_above_current']:3d} of {a['cases']}   "
              f"current first: {a['current_ranked_first']:3d}   current missing: {a['current_missing']:3d}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1, default=str))
    worst = max((a["superseded_above_current"] for a in result["arms"] if not a["as_of_past"]), default=0)
    if worst > args.max_above:
        print(f"elf-bench supersede: {worst} cases with a superseded note above the current one "
              f"(--max-above {args.max_above})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
