"""elf-bench add-note -c elf.toml: add_note throughput and ingest-to-searchable time against a running ELF.

Start the service first (`make run`), then run this with the same config. Notes are real English sentences
from the LoCoMo conversations (shared/benchmarks/locomo, beside the repository), written under a fresh
tenant so repeated runs do not interfere. Prints plain lines with the numbers; each rate beside its floor
(bench.add_note_floor: the same texts embedded in-process and the same rows inserted over one connection,
measured in the same run just before), so the result is also a ratio; and the load average, since other
processes share the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import requests

from bench.add_note_floor import measure
from bench.stats import percentile
from bench.target import loopback_base_url
from elf_config import load_config

LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks" / "locomo" / "locomo10.json"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(limit: int) -> list[str]:
    """Distinct sentences of 24-240 characters from LoCoMo dialogue turns, in file order."""
    data = json.loads(LOCOMO.read_text())
    seen: dict[str, None] = {}
    for conv in data:
        for key, turns in conv["conversation"].items():
            if not key.startswith("session_") or not isinstance(turns, list):
                continue
            for turn in turns:
                for s in _SENTENCE.split(turn.get("text", "")):
                    s = s.strip()
                    if 24 <= len(s) <= 240 and s.isascii():
                        seen.setdefault(f"{turn['speaker']}: {s}", None)
                        if len(seen) >= limit:
                            return list(seen)
    return list(seen)


def _post(session, base, headers, notes):
    r = session.post(f"{base}/v2/notes/ingest", json={"scope": "agent_private", "notes": notes}, headers=headers, timeout=120)
    r.raise_for_status()
    return r.json()["results"]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench add-note", description=__doc__)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--notes", type=int, default=10000, help="notes in all (single + batched)")
    ap.add_argument("--single", type=int, default=300, help="how many of them go one per request")
    ap.add_argument("--batch", type=int, default=50, help="notes per batched request")
    ap.add_argument("--agents", type=int, default=10, help="agents to spread the notes over")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds to wait for indexing")
    ap.add_argument("--probes", type=int, default=20,
                    help="single notes timed from the ingest request to their first appearance in a search")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = loopback_base_url(cfg.service.http_bind)
    requests.get(base + "/health", timeout=10).raise_for_status()
    texts = sentences(args.notes)
    if len(texts) < args.notes:
        print(f"only {len(texts)} distinct sentences available; using those", file=sys.stderr)
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    session = requests.Session()
    hdr = lambda i: {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "bench", "X-ELF-Agent-Id": f"agent-{i % args.agents}"}
    note = lambda t: {"type": "fact", "text": t, "importance": 0.5, "confidence": 0.9}
    ops: Counter = Counter()
    started = time.perf_counter()

    single, rest = texts[: args.single], texts[args.single :]
    print(f"load average at start: {_load()}")
    floor = measure(cfg, single, 1)
    lat = []
    for i, t in enumerate(single):
        t0 = time.perf_counter()
        ops.update(r["op"] for r in _post(session, base, hdr(i), [note(t)]))
        lat.append(time.perf_counter() - t0)
    rate = len(single) / sum(lat)
    print(f"add_note single (1 note/request, n={len(single)}): {rate:.1f} notes/s, "
          f"p50={statistics.median(lat) * 1000:.1f} ms p95={sorted(lat)[int(len(lat) * 0.95) - 1] * 1000:.1f} ms | "
          f"{floor.describe(1)} | {rate / floor.rate:.2f} of the floor")

    floor = measure(cfg, rest, args.batch)
    t0 = time.perf_counter()
    for j in range(0, len(rest), args.batch):
        chunk = rest[j : j + args.batch]
        ops.update(r["op"] for r in _post(session, base, hdr(j // args.batch), [note(t) for t in chunk]))
    batch_s = time.perf_counter() - t0
    ingest_done = time.perf_counter()
    rate = len(rest) / batch_s
    print(f"add_note batched ({args.batch} notes/request, n={len(rest)}): {rate:.1f} notes/s | "
          f"{floor.describe(args.batch)} | {rate / floor.rate:.2f} of the floor")
    print(f"ops: {dict(ops)}")

    from qdrant_client import QdrantClient, models

    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=30)
    flt = models.Filter(must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant))])
    expected = ops["ADD"]
    deadline = time.monotonic() + args.timeout
    count = 0
    while time.monotonic() < deadline:
        count = client.count(cfg.storage.qdrant.collection, count_filter=flt, exact=True).count
        if count >= expected:
            break
        time.sleep(0.5)
    searchable = time.perf_counter()
    print(f"searchable in qdrant: {count}/{expected} notes' points; {searchable - started:.1f} s from first ingest "
          f"({searchable - ingest_done:.1f} s after the last ingest returned)")
    if args.probes and count >= expected:
        lat = [_time_to_searchable(session, base, tenant, f"Probe {i} of run {tenant}: the zinc kite flies at dawn.")
               for i in range(args.probes)]
        print(f"ingest-to-searchable (one note, idle queue, n={len(lat)}): p50={percentile(lat, 50) * 1000:.0f} ms "
              f"p95={percentile(lat, 95) * 1000:.0f} ms max={max(lat) * 1000:.0f} ms")
    print(f"load average at end: {_load()}")
    return 0 if count >= expected else 1


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} CPUs)"


def _time_to_searchable(session, base: str, tenant: str, text: str, timeout: float = 60) -> float:
    """Seconds from sending add_note for ``text`` until a quick_find search for it returns the note."""
    headers = {"X-ELF-Tenant-Id": tenant, "X-ELF-Project-Id": "bench", "X-ELF-Agent-Id": "probe",
               "X-ELF-Read-Profile": "private_only"}
    t0 = time.perf_counter()
    note_id = _post(session, base, headers, [{"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9}])[0]["note_id"]
    while time.perf_counter() - t0 < timeout:
        r = session.post(f"{base}/v2/searches", json={"query": text, "mode": "quick_find", "top_k": 5},
                         headers=headers, timeout=60)
        r.raise_for_status()
        if any(i["note_id"] == note_id for i in r.json()["items"]):
            return time.perf_counter() - t0
        time.sleep(0.02)
    raise RuntimeError(f"note {note_id} not searchable within {timeout} s")
