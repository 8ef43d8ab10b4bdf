"""Running a dataset's queries against ingested data (POST /v2/searches) and scoring them."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from tqdm import tqdm

from .eval_client import ElfClient
from .eval_dataset import Dataset
from .eval_ingest import IngestReport
from .eval_metrics import by_category, dedupe_ranked, mean_metrics, query_metrics
from .eval_protocol import split_metrics
from .stats import percentile

# Unmeasured searches before an arm, each on a new connection so that every API worker process (gunicorn
# runs two) has loaded its models: the first search of a process took ~10x longer. The texts are not dataset
# queries, so no measured query finds its rerank or expansion already cached.
WARMUP_TEXTS = (
    "What did they talk about last time?",
    "Where are they planning to travel?",
    "Which hobby did someone pick up recently?",
    "Who has a new job?",
)


@dataclass(frozen=True)
class ArmSpec:
    """One side of a run (label A or B): a service (by its target label) searched in one mode."""

    label: str
    target: str
    mode: str
    top_k: int
    candidate_k: int | None


def ranked_items(note_ids: list[str], note_items: dict[str, str]) -> list[str]:
    """Item ids for returned note ids, best first, each item at its first rank. A note id this run did not
    write (none should appear under the run's own tenant) keeps its rank as ``note:<id>``."""
    return dedupe_ranked(note_items.get(n, f"note:{n}") for n in note_ids)


def _latency(values: list[float]) -> dict:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "mean": sum(values) / len(values)
            if values else None, "n": len(values)}


def warm_up(client: ElfClient, ds: Dataset, arm: ArmSpec) -> int:
    conv = ds.conversations[0].conversation_id
    for text in WARMUP_TEXTS:
        fresh = ElfClient(client.base, tenant=client.tenant, agent=client.agent, timeout=client.timeout)
        fresh.search(conv, text, mode=arm.mode, top_k=arm.top_k, candidate_k=arm.candidate_k)
    return len(WARMUP_TEXTS)


def run_queries(client: ElfClient, ds: Dataset, ingest: IngestReport, arm: ArmSpec, splits: dict[str, str]) -> dict:
    """Search every query of ``ds`` (after a few unmeasured warm-up searches); returns the arm's metrics,
    latencies and per-query results, overall, per category and per split (``splits``: conversation id -> dev or
    test, bench.eval_protocol)."""
    warmups = warm_up(client, ds, arm)
    per_query, client_ms, server_ms = [], [], []
    lost = set(ingest.lost_items)
    t0 = time.perf_counter()
    with tqdm(total=ds.query_count, desc=f"[{arm.label}] {arm.mode}", unit="query", file=sys.stderr,
              disable=None) as bar:
        for conv in ds.conversations:
            note_items = ingest.note_items[conv.conversation_id]
            for q in conv.queries:
                out = client.search(conv.conversation_id, q.text, mode=arm.mode, top_k=arm.top_k,
                                    candidate_k=arm.candidate_k)
                ranked = ranked_items(out.note_ids, note_items)
                client_ms.append(out.client_ms)
                if out.server_ms is not None:
                    server_ms.append(out.server_ms)
                per_query.append({
                    "query_id": q.query_id, "conversation_id": conv.conversation_id, "category_name": q.category_name,
                    "expected_item_ids": list(q.expected_item_ids), "ranked_item_ids": ranked,
                    "metrics": query_metrics(ranked, q.expected_item_ids),
                    "expected_not_stored": [i for i in q.expected_item_ids if i in lost],
                    "client_ms": round(out.client_ms, 2), "server_ms": out.server_ms,
                })
                bar.update(1)
    metrics = [q["metrics"] for q in per_query]
    return {
        "label": arm.label, "target": arm.target, "mode": arm.mode, "top_k": arm.top_k, "candidate_k": arm.candidate_k,
        "queries": len(per_query),
        # queries with an expected item the service refused to store (REJECTED): they cannot score fully
        "queries_with_unstored_evidence": sum(1 for q in per_query if q["expected_not_stored"]),
        "overall": mean_metrics(metrics),
        "by_category": by_category(metrics, [q["category_name"] for q in per_query]),
        "splits": split_metrics(per_query, splits),
        "latency_ms": {"client": _latency(client_ms), "server": _latency(server_ms)},
        "seconds": round(time.perf_counter() - t0, 2), "warmup_searches": warmups,
        "per_query": per_query,
    }
