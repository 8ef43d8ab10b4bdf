"""``elf-bench embedder``: throughput and latency of the local ONNX MiniLM embedder.

Prints plain lines:
    local embedder settings: intra_op_num_threads=T sub_batch_size=S
    local embedder batch 64: N texts/s
    local embedder single text: p50=X ms p95=Y ms

``--model`` picks the local model id (default: the int8-product one); ``--threads`` and ``--sub-batch`` override
the embedder's chosen settings so alternatives can be compared (``--sub-batch 1`` embeds one text at a time,
``--sub-batch 64`` runs each batch of 64 whole). The int8-product model always runs each text alone on one ONNX
thread; for it ``--threads`` is how many texts of a batch run at a time.
"""

from __future__ import annotations

import argparse
import random
import time

from elf_config.rules import LOCAL_EMBEDDING_MODELS, LOCAL_EMBEDDING_QINT8
from elf_infra.providers.local_embedder import INTRA_OP_NUM_THREADS, SUB_BATCH_SIZE, load_model

BATCH = 64
_SUBJECTS = [
    "The user",
    "The team",
    "Our staging cluster",
    "The billing service",
    "The mobile app",
    "Alice",
    "The nightly job",
    "The search API",
    "The data pipeline",
    "The release process",
]
_CLAIMS = [
    "prefers dark mode in every editor and terminal",
    "deploys with a blue-green rollout on Tuesdays after 14:00 UTC",
    "must keep p95 latency under 250 ms for the checkout endpoint",
    "decided to move session storage from Redis to Postgres in Q3",
    "uses Python 3.11 with ruff and mypy on every pull request",
    "reads the runbook at docs/oncall.md before paging anyone",
    "plans to archive tickets older than 180 days",
    "stores invoices in EUR and converts to USD at month end",
    "was renamed from ledger-sync to books-sync in March 2024",
    "should never run migrations during business hours",
]
_TAILS = [
    "",
    " because the old setup caused two outages",
    " unless the incident commander says otherwise",
    " as agreed in the architecture review",
    " to reduce cloud spend by about 12 percent",
]


def note_sentences(count: int, seed: int = 7) -> list[str]:
    """Deterministic note-like English sentences (about 8-30 words each)."""
    rng = random.Random(seed)
    return [f"{rng.choice(_SUBJECTS)} {rng.choice(_CLAIMS)}{rng.choice(_TAILS)}." for _ in range(count)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="elf-bench embedder", description="Throughput and latency of the local ONNX MiniLM embedder."
    )
    parser.add_argument("--model", choices=LOCAL_EMBEDDING_MODELS, default=LOCAL_EMBEDDING_QINT8, help="local model id")
    parser.add_argument("--threads", type=int, default=INTRA_OP_NUM_THREADS, help="intra_op_num_threads")
    parser.add_argument("--sub-batch", type=int, default=SUB_BATCH_SIZE, help="texts per ONNX run")
    parser.add_argument("--batches", type=int, default=10, help="timed batches of 64")
    parser.add_argument("--singles", type=int, default=200, help="timed single-text calls")
    args = parser.parse_args(argv)

    model = load_model(args.model, intra_op_num_threads=args.threads, sub_batch_size=args.sub_batch,
                       batch_threads=args.threads)
    texts = note_sentences(BATCH * args.batches)
    for _ in range(3):  # warm-up: first runs allocate arenas and pick kernels
        model.embed(texts[:BATCH])

    started = time.perf_counter()
    for i in range(args.batches):
        model.embed(texts[i * BATCH : (i + 1) * BATCH])
    rate = BATCH * args.batches / (time.perf_counter() - started)

    latencies_ms = []
    for text in texts[: args.singles]:
        t0 = time.perf_counter()
        model.embed([text])
        latencies_ms.append((time.perf_counter() - t0) * 1000)
    latencies_ms.sort()

    print(f"local embedder settings: model={args.model} threads={args.threads} sub_batch_size={args.sub_batch}")
    print(f"local embedder batch {BATCH}: {rate:.0f} texts/s")
    print(f"local embedder single text: p50={_pct(latencies_ms, 50):.2f} ms p95={_pct(latencies_ms, 95):.2f} ms")
    return 0


def _pct(sorted_values: list[float], pct: int) -> float:
    return sorted_values[min(len(sorted_values) - 1, round(pct / 100 * (len(sorted_values) - 1)))]
