"""elf-bench add-note -c elf.toml: add_note throughput and ingest-to-searchable time against a running ELF.

Start the service first (`make run`), then run this with the same config. Notes are real English sentences
from the LoCoMo conversations (shared/benchmarks/locomo, beside the repository), written under a fresh
tenant so repeated runs do not interfere. Prints plain lines with the numbers; each rate beside its floor
(bench.add_note_floor: the same texts embedded in-process and the same rows inserted over one connection,
measured in the same run just before the writes), so the result is also a ratio; and the load average, since other
processes share the CPU.

After the last write returns it waits until all the notes are searchable (the issue's target: 10k notes
within 60 s of the last write) and prints "N notes searchable X s after the last write returned": searchable
means the Qdrant count of the tenant's points (exact) has reached the number of chunks of its active notes in
Postgres and a quick_find for the last note written returns it. Then --probes single notes on the idle queue
are timed from add_note to their first appearance in a quick_find.
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

import psycopg
import requests

from bench.add_note_floor import measure, remove
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
    r = session.post(
        f"{base}/v2/notes/ingest", json={"scope": "agent_private", "notes": notes}, headers=headers, timeout=120
    )
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
    ap.add_argument(
        "--probes",
        type=int,
        default=20,
        help="single notes timed from the ingest request to their first appearance in a search",
    )
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    base = loopback_base_url(cfg.service.http_bind)
    requests.get(base + "/health", timeout=10).raise_for_status()
    texts = sentences(args.notes)
    if len(texts) < args.notes:
        print(f"only {len(texts)} distinct sentences available; using those", file=sys.stderr)
    single, rest = texts[: args.single], texts[args.single :]
    print(f"load average at start: {load_average()}")
    floors = [measure(cfg, single, 1, keep_rows=True)] + (
        [measure(cfg, rest, args.batch, keep_rows=True)] if rest else []
    )
    try:
        return _writes(args, cfg, base, single, rest, *floors)
    finally:
        remove(cfg, floors)  # only now: deleting their rows right before the writes slowed those


def _writes(args, cfg, base: str, single: list[str], rest: list[str], floor, batch_floor=None) -> int:
    """The measured part: the writes, the wait until they are searchable, the probes."""
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    session = requests.Session()

    def hdr(i):
        return {
            "X-ELF-Tenant-Id": tenant,
            "X-ELF-Project-Id": "bench",
            "X-ELF-Agent-Id": f"agent-{i % args.agents}",
        }

    def note(t):
        return {"type": "fact", "text": t, "importance": 0.5, "confidence": 0.9}

    ops: Counter = Counter()
    started = time.perf_counter()  # the first write
    lat, last = [], None  # last: (headers, text, note_id) of the last note written
    for i, t in enumerate(single):
        t0 = time.perf_counter()
        results = _post(session, base, hdr(i), [note(t)])
        lat.append(time.perf_counter() - t0)
        ops.update(r["op"] for r in results)
        last = (hdr(i), t, results[-1]["note_id"])
    rate = len(single) / sum(lat)
    print(
        f"add_note single (1 note/request, n={len(single)}): {rate:.1f} notes/s, "
        f"p50={statistics.median(lat) * 1000:.1f} ms p95={percentile(lat, 95) * 1000:.1f} ms | "
        f"{floor.describe(1)} | {rate / floor.rate:.2f} of the floor"
    )

    if rest:
        t0 = time.perf_counter()
        for j in range(0, len(rest), args.batch):
            chunk = rest[j : j + args.batch]
            results = _post(session, base, hdr(j // args.batch), [note(t) for t in chunk])
            ops.update(r["op"] for r in results)
            last = (hdr(j // args.batch), chunk[-1], results[-1]["note_id"])
        rate = len(rest) / (time.perf_counter() - t0)
        print(
            f"add_note batched ({args.batch} notes/request, n={len(rest)}): {rate:.1f} notes/s | "
            f"{batch_floor.describe(args.batch)} | {rate / batch_floor.rate:.2f} of the floor"
        )
    ingest_done = time.perf_counter()
    print(f"ops: {dict(ops)}")

    notes, points, count, found = _wait_searchable(cfg, session, base, tenant, last, ingest_done + args.timeout)
    searchable = time.perf_counter()
    ok = count >= points and found
    print(
        f"{notes} notes searchable {searchable - ingest_done:.1f} s after the last write returned "
        f"({searchable - started:.1f} s after the first)"
        if ok
        else f"NOT searchable {args.timeout:.0f} s after the last write returned: {count} of {points} points, "
        f"last note {'found' if found else 'not found'}"
    )
    print(
        f"  checked by: the Qdrant count of the tenant's points (exact) reaching its {points} chunks in Postgres "
        f"({notes} active notes), then a quick_find for the last note written returning it"
    )
    if args.probes and ok:
        lat = [
            _time_to_searchable(session, base, tenant, f"Probe {i} of run {tenant}: the zinc kite flies at dawn.")
            for i in range(args.probes)
        ]
        print(
            f"ingest-to-searchable (one note, idle queue, n={len(lat)}): p50={percentile(lat, 50) * 1000:.0f} ms "
            f"p95={percentile(lat, 95) * 1000:.0f} ms max={max(lat) * 1000:.0f} ms"
        )
    print(f"load average at end: {load_average()}")
    return 0 if ok else 1


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} CPUs)"


def _wait_searchable(cfg, session, base: str, tenant: str, last, until: float) -> tuple[int, int, int, bool]:
    """Poll until Qdrant holds a point for every chunk of the tenant's active notes and a quick_find for the
    last note written returns it, or until ``until`` (perf_counter). Returns (active notes, their chunks,
    points counted, last note found)."""
    from qdrant_client import QdrantClient, models

    with psycopg.connect(cfg.storage.postgres.dsn) as conn:
        notes, points = conn.execute(
            "SELECT count(DISTINCT n.note_id), count(*) FROM memory_notes n JOIN memory_note_chunks c "
            "ON c.note_id = n.note_id WHERE n.tenant_id = %s AND n.status = 'active'",
            [tenant],
        ).fetchone()
    client = QdrantClient(url=cfg.storage.qdrant.url, timeout=30)
    flt = models.Filter(must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant))])
    headers, text, note_id = last
    count, found = 0, False
    try:
        while time.perf_counter() < until:
            count = client.count(cfg.storage.qdrant.collection, count_filter=flt, exact=True).count
            if count >= points and (found := _finds(session, base, headers, text, note_id)):
                break
            time.sleep(0.2)
    finally:
        client.close()
    return notes, points, count, found


def _finds(session, base: str, headers: dict, text: str, note_id: str) -> bool:
    """Whether a quick_find for ``text`` (in the writer's private notes) returns ``note_id``."""
    r = session.post(
        f"{base}/v2/searches",
        json={"query": text, "mode": "quick_find", "top_k": 5},
        headers={**headers, "X-ELF-Read-Profile": "private_only"},
        timeout=60,
    )
    r.raise_for_status()
    return any(i["note_id"] == note_id for i in r.json()["items"])


def _time_to_searchable(session, base: str, tenant: str, text: str, timeout: float = 60) -> float:
    """Seconds from sending add_note for ``text`` until a quick_find search for it returns the note."""
    headers = {
        "X-ELF-Tenant-Id": tenant,
        "X-ELF-Project-Id": "bench",
        "X-ELF-Agent-Id": "probe",
        "X-ELF-Read-Profile": "private_only",
    }
    t0 = time.perf_counter()
    note_id = _post(session, base, headers, [{"type": "fact", "text": text, "importance": 0.5, "confidence": 0.9}])[0][
        "note_id"
    ]
    while time.perf_counter() - t0 < timeout:
        if _finds(session, base, headers, text, note_id):
            return time.perf_counter() - t0
        time.sleep(0.02)
    raise RuntimeError(f"note {note_id} not searchable within {timeout} s")
