"""elf-eval -c elf.toml --dataset FILE: retrieval quality of a running ELF, through its public HTTP API.

Steps: load and validate the dataset (locomo_retrieval/v1); write every conversation's items as keyed notes
(POST /v2/notes/ingest, 100 per request) under tenant ``eval-<run id>-a`` (``-b`` on an --ab service), one
project per conversation, agent ``eval``, scope agent_private; wait until the worker has indexed them, by
reading indexing_outbox in the config's Postgres (the API has no indexing-status endpoint, so elf-eval must
run next to the service); run every query (POST /v2/searches, read profile private_only) and score
recall@5/10, hit@10, MRR@10 and nDCG@10 (definitions: bench/eval_metrics.py) overall and per category, with
client latency and the server's Server-Timing; finally DELETE every note it wrote (the service keeps deleted
notes until its purge, lifecycle.purge_deleted_after_days) unless --keep.

Exit codes: 0 done; 1 an arm's overall recall@10 is below --min-recall10; 2 bad arguments, config or
dataset; 3 a request failed, the service is not up, or indexing timed out.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from elf_config import ConfigError
from elf_domain.vocabulary import SEARCH_MODES

from .eval_client import ElfClient, RequestFailed
from .eval_dataset import DatasetError, limited, load_dataset
from .eval_indexing import IndexingTimeout, wait_indexed
from .eval_ingest import IngestReport, delete_created, ingest_dataset
from .eval_notes import NOTE_CONTEXTS, NOTE_TIMES, NoteShape
from .eval_protocol import SPLITS, conversation_splits, only_split
from .eval_queries import ArmSpec, run_queries
from .eval_report import render
from .eval_target import Target, TargetError, load_target

AGENT = "eval"
RESULT_FORMAT = "elf_eval_result/v1"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="elf-eval", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("-c", "--config", required=True, help="elf.toml of the running service (loopback only)")
    p.add_argument("--dataset", required=True, help="a locomo_retrieval/v1 JSON file")
    p.add_argument("--mode", choices=SEARCH_MODES, help="search mode (default: the config's search.default_mode)")
    p.add_argument("--top-k", type=int, default=10, help="notes asked per search (default 10)")
    p.add_argument("--candidate-k", type=int, help="candidates per search (default: the config's memory.candidate_k)")
    p.add_argument(
        "--ab",
        "--compare",
        dest="ab",
        metavar="MODE_OR_CONFIG",
        help="a second arm in the same run: another search mode on the same data, another config "
        "file (another running service, same mode), or context:<value> or time:<value> (the same "
        "service, notes written again under tenant -b with that --note-context or --note-time); "
        "printed side by side with deltas",
    )
    p.add_argument("--json", dest="json_out", metavar="FILE", help="write every number (and per-query results) here")
    p.add_argument("--limit-conversations", type=int, metavar="N", help="only the first N conversations")
    p.add_argument("--limit-queries", type=int, metavar="N", help="only the first N queries of each conversation")
    p.add_argument(
        "--min-recall10",
        type=float,
        metavar="X",
        help="exit 1 when the overall recall@10 of any arm is below X (for CI)",
    )
    p.add_argument("--keep", action="store_true", help="keep the notes written (default: delete them at the end)")
    p.add_argument(
        "--split",
        choices=SPLITS,
        default="all",
        help="the conversations to run: dev (LoCoMo 1-5, for tuning), test (6-10) or all (default); "
        "every report shows each split it ran apart (bench.eval_protocol)",
    )
    p.add_argument(
        "--note-context",
        choices=NOTE_CONTEXTS,
        default=NoteShape.context,
        help="what each note carries as its context (embedded with it, not part of it): the turns "
        "before and after it in its session (neighbours, default) or nothing (none)",
    )
    p.add_argument(
        "--note-time",
        choices=NOTE_TIMES,
        default=NoteShape.time,
        help="what each note carries as its observed_at: its session's time (session, default) or nothing (none)",
    )
    p.add_argument(
        "--index-timeout", type=float, default=1800.0, metavar="S", help="seconds to wait for indexing (default 1800)"
    )
    args = p.parse_args(argv)
    for name in ("top_k", "candidate_k", "limit_conversations", "limit_queries"):
        value = getattr(args, name)
        if value is not None and value < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Run:
    """One elf-eval run: targets (services) written to, arms (service x mode) searched."""

    def __init__(
        self,
        args: argparse.Namespace,
        targets: dict[str, Target],
        arms: list[ArmSpec],
        shapes: dict[str, NoteShape],
        splits: dict[str, str],
    ):
        self.args, self.targets, self.arms, self.shapes, self.splits = args, targets, arms, shapes, splits
        self.run_id = datetime.now(UTC).strftime("%Y%m%d%H%M%S") + "-" + secrets.token_hex(3)
        # One tenant per service: two configs may share one database, and runs never share a tenant.
        self.tenants = {k: f"eval-{self.run_id}-{k.lower()}" for k in targets}
        self.clients = {k: ElfClient(t.base_url, tenant=self.tenants[k], agent=AGENT) for k, t in targets.items()}
        self.ingests: dict[str, IngestReport] = {}
        self.out: dict = {
            "targets": {k: {"label": k, "summary": t.summary(), "notes": shapes[k].label()} for k, t in targets.items()}
        }

    def ingest(self, ds) -> None:
        for label, target in self.targets.items():
            client = self.clients[label]
            client.health()
            report = self.ingests[label] = IngestReport(tenant=client.tenant)
            ingest_dataset(
                client, ds, report, max_note_chars=target.max_note_chars, label=label, shape=self.shapes[label]
            )
            note_ids = [n for ids in report.note_items.values() for n in ids]
            t_out = self.out["targets"][label]
            with tqdm(
                total=len(note_ids), desc=f"[{label}] indexed", unit="note", file=sys.stderr, disable=None
            ) as bar:

                def progress(done: int) -> None:
                    bar.update(done - bar.n)

                t_out["index_seconds"] = round(
                    wait_indexed(target.dsn, note_ids, timeout_s=self.args.index_timeout, on_progress=progress), 2
                )
            _say(
                f"[{label}] {report.notes} notes written in {report.seconds:.1f} s, indexed after "
                f"{t_out['index_seconds']:.1f} s more"
            )

    def search(self, ds) -> list[dict]:
        return [
            run_queries(self.clients[arm.target], ds, self.ingests[arm.target], arm, self.splits) for arm in self.arms
        ]

    def cleanup(self) -> None:
        for label, report in self.ingests.items():
            t_out = self.out["targets"][label]
            if self.args.keep:
                t_out["cleanup"] = {"kept": len(report.all_created())}
                _say(f"[{label}] kept {len(report.all_created())} notes under tenant {self.tenants[label]} (--keep)")
                continue
            t_out["cleanup"] = {"deleted": delete_created(self.clients[label], report, label=label)}


def build_arms(args: argparse.Namespace) -> tuple[dict[str, Target], list[ArmSpec], dict[str, NoteShape]]:
    """The services written to (by label), the arms searched, and what each label's notes carry."""
    target = load_target(args.config)
    mode = args.mode or target.cfg.search.default_mode
    shape = NoteShape(context=args.note_context, time=args.note_time)
    targets, shapes = {"A": target}, {"A": shape}
    arms = [ArmSpec("A", "A", mode, args.top_k, args.candidate_k)]
    if args.ab in SEARCH_MODES:
        arms.append(ArmSpec("B", "A", args.ab, args.top_k, args.candidate_k))
    elif args.ab and args.ab.partition(":")[0] in ("context", "time"):
        try:
            targets["B"], shapes["B"] = target, shape.changed(args.ab)
        except ValueError as exc:
            raise TargetError(f"--ab {exc}") from None
        arms.append(ArmSpec("B", "B", mode, args.top_k, args.candidate_k))
    elif args.ab:
        other = load_target(args.ab)
        if other.base_url == target.base_url:
            raise TargetError(f"--ab {args.ab} names the same service as -c ({target.base_url})")
        targets["B"], shapes["B"] = other, shape
        arms.append(ArmSpec("B", "B", mode, args.top_k, args.candidate_k))
    return targets, arms, shapes


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        ds = limited(load_dataset(args.dataset), conversations=args.limit_conversations, queries=args.limit_queries)
        splits = conversation_splits(ds)
        ds = only_split(ds, args.split)
        if not ds.query_count:
            raise DatasetError(f"{args.dataset}: no queries to run")
        targets, arms, shapes = build_arms(args)
    except (DatasetError, TargetError, ConfigError) as exc:
        _say(f"elf-eval: {exc}")
        return 2
    run = Run(args, targets, arms, shapes, splits)
    started, t0 = _now(), time.perf_counter()
    _say(
        f"elf-eval run {run.run_id}: {len(ds.conversations)} conversations, {ds.item_count} items, "
        f"{ds.query_count} queries; tenants {', '.join(run.tenants.values())}"
    )
    failure = None
    try:
        run.ingest(ds)
        run.out["arms"] = run.search(ds)
    except (RequestFailed, IndexingTimeout) as exc:
        failure = str(exc)
    finally:
        try:
            run.cleanup()
        except RequestFailed as exc:
            failure = failure or f"cleanup: {exc}"
    for label, report in run.ingests.items():
        run.out["targets"][label]["ingest"] = report.as_dict()
    result = {
        "format": RESULT_FORMAT,
        "run_id": run.run_id,
        "started_at": started,
        "finished_at": _now(),
        "seconds": round(time.perf_counter() - t0, 2),
        "failure": failure,
        "dataset": {
            "path": ds.path,
            "sha256": ds.sha256,
            "source": ds.source,
            "conversations": len(ds.conversations),
            "items": ds.item_count,
            "queries": ds.query_count,
            "limit_conversations": args.limit_conversations,
            "limit_queries": args.limit_queries,
            "split": args.split,
        },
        **run.out,
        "min_recall10": args.min_recall10,
    }
    if failure:
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(result, indent=1) + "\n")
        _say(f"elf-eval: FAILED: {failure}")
        return 3
    below = [
        a["label"]
        for a in result["arms"]
        if args.min_recall10 is not None and a["overall"]["recall@10"] < args.min_recall10
    ]
    result["passed_min_recall10"] = not below
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1) + "\n")
    print(render(result), flush=True)
    if below:
        _say(f"elf-eval: overall recall@10 of arm {', '.join(below)} is below --min-recall10 {args.min_recall10}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
