"""The floors of elf-bench concurrency --mix: each request kind's unavoidable work done in-process, in the same run.

Measured before the phases, on the bench's own texts, questions and seeded tenant:
- search (quick_find): bench.search_floor, the query embedding + the Qdrant engine time + the Postgres
  re-validation, as agent-0 of the mix reads (its read profile, over the seeded notes);
- add_note: bench.add_note_floor, embedding one note and writing its rows in one transaction;
- add_event: the configured extractor on the same one-message events (in this process: the local rule-based one
  with local providers), then embedding the notes it extracted (one call) and writing each note's rows (the
  add_note floor's Postgres time per note);
- record_event: over one psycopg connection, the event row, its chunk row (one chunk: the messages are single
  sentences) and the session upsert in one transaction. The event log is append-only (a trigger refuses DELETE),
  so these rows stay, under a tenant of their own (``floor-mix-...``).
Per kind: the per-request wall time (p50/p95 over the sample) and the CPU it takes (the embedding's and the
extractor's CPU time in this process, Postgres and Qdrant times counted whole as CPU). For the mix, the mean
wall and CPU per request weighted by the kinds' shares give the ceiling at N agents each thinking ``think_s``
between calls: min(N / (wall + think), cores / CPU) requests/s (bench.concurrency_floor's argument with the
think time added to each agent's cycle). Optimistic: no HTTP, Django, ranking, trace, indexing or client.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
import uuid
from dataclasses import dataclass

import psycopg

from bench.add_note_floor import measure as measure_add_note
from bench.concurrency_floor import cores
from bench.search_floor import SearchFloor
from bench.stats import percentile
from elf_config import ElfConfig
from elf_infra.providers.factory import build_embedding, build_extractor

KINDS = ("search", "add_note", "add_event", "record_event")


@dataclass(frozen=True)
class KindFloor:
    wall_ms: list[float]
    cpu_ms: list[float]

    def p(self, q: float) -> float:
        return percentile(self.wall_ms, q)


@dataclass(frozen=True)
class MixFloors:
    kinds: dict[str, KindFloor]
    shares: dict[str, float]
    cores: int

    def _mean(self, attr: str) -> float:
        return sum(self.shares[k] * statistics.fmean(getattr(f, attr)) for k, f in self.kinds.items())

    def ceiling(self, agents: int, think_s: float) -> float:
        """Requests/s ``agents`` agents reach at best, each waiting ``think_s`` on average between calls."""
        return min(agents / (self._mean("wall_ms") / 1000 + think_s), self.cores * 1000 / self._mean("cpu_ms"))

    def describe(self) -> str:
        parts = [f"{k} p50 {f.p(50):.1f} / p95 {f.p(95):.1f} ms (CPU {statistics.fmean(f.cpu_ms):.1f} ms)"
                 for k, f in self.kinds.items()]
        return (f"floors per request, in this process (n={len(self.kinds['search'].wall_ms)} each): "
                + "; ".join(parts) + f"; mix mean {self._mean('wall_ms'):.1f} ms wall, {self._mean('cpu_ms'):.1f} ms "
                f"CPU on {self.cores} cores")


def _search(cfg: ElfConfig, queries: list[str], who: dict) -> KindFloor:
    floor = SearchFloor(cfg, **who)
    try:
        found = [floor.measure(q) for q in queries]
    finally:
        floor.close()
    return KindFloor([f.total_ms for f in found], [f.cpu_ms for f in found])


def _add_event(cfg: ElfConfig, texts: list[str], pg_ms_per_note: float) -> KindFloor:
    extractor, embedder = build_extractor(cfg), build_embedding(cfg)
    extractor.extract([{"role": "user", "content": texts[0]}])
    wall, cpu = [], []
    for text in texts:
        t0, c0 = time.perf_counter(), time.process_time()
        notes = [n["text"] for n in extractor.extract([{"role": "user", "content": text}]).get("notes", [])]
        if notes:
            embedder.embed(notes)
        w, c = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        wall.append(w + pg_ms_per_note * len(notes))
        cpu.append(c + pg_ms_per_note * len(notes))
    return KindFloor(wall, cpu)


_EVENT = """INSERT INTO acb_events (event_id, tenant_id, project_id, session_id, agent_id, channel, actor_type,
    actor_id, kind, sensitivity, tags, content, refs)
VALUES (%(e)s, %(t)s, 'floor', 'floor-session', 'floor', 'private', 'human', 'user', 'message', 'none', '{}',
    %(content)s, '{}')"""
_CHUNK = """INSERT INTO acb_chunks (chunk_id, tenant_id, project_id, session_id, event_id, ord, ts, kind, agent_id,
    actor_type, actor_id, channel, sensitivity, tags, token_est, importance, text, text_hash)
VALUES (%(c)s, %(t)s, 'floor', 'floor-session', %(e)s, 0, now(), 'message', 'floor', 'human', 'user', 'private',
    'none', '{}', %(tokens)s, 0.5, %(text)s, %(hash)s)"""
_SESSION = """INSERT INTO acb_sessions (tenant_id, session_id, project_id, agents, event_count, first_ts, last_ts)
VALUES (%(t)s, 'floor-session', 'floor', ARRAY['floor'], 1, now(), now())
ON CONFLICT (tenant_id, project_id, session_id) DO UPDATE SET event_count = acb_sessions.event_count + 1,
    last_ts = EXCLUDED.last_ts"""


def _record_event(cfg: ElfConfig, texts: list[str]) -> KindFloor:
    tenant = f"floor-mix-{uuid.uuid4().hex[:8]}"
    wall = []
    with psycopg.connect(cfg.storage.postgres.dsn) as conn:
        for text in texts:
            e = f"evt_floor_{uuid.uuid4().hex}"
            row = {"e": e, "c": f"chk_{e}_0000", "t": tenant, "content": json.dumps({"text": text}), "text": text,
                   "tokens": max(len(text) // 4, 1), "hash": hashlib.sha256(text.encode()).hexdigest()}
            t0 = time.perf_counter()
            with conn.transaction():
                for sql in (_EVENT, _CHUNK, _SESSION):
                    conn.execute(sql, row)
            wall.append((time.perf_counter() - t0) * 1000)
    return KindFloor(wall, wall)


def measure(cfg: ElfConfig, texts: list[str], event_texts: list[str], queries: list[str], shares: dict[str, float],
            n: int, searcher: dict) -> MixFloors:
    """Every kind's floor on ``n`` requests; ``searcher``: tenant, project, agent and read_profile of a search."""
    note = measure_add_note(cfg, texts[:n], 1)
    pg_ms = note.postgres_s / note.notes * 1000
    per_note = (note.embed_s + note.postgres_s) / note.notes * 1000
    cpu_note = (note.embed_cpu_s + note.postgres_s) / note.notes * 1000
    kinds = {
        "search": _search(cfg, queries[:n], searcher),
        "add_note": KindFloor([per_note], [cpu_note]),  # the mean: add_note_floor times its notes as one run
        "add_event": _add_event(cfg, [t.partition(": ")[2] or t for t in event_texts[:n]], pg_ms),
        "record_event": _record_event(cfg, texts[n : 2 * n]),
    }
    return MixFloors(kinds, shares, cores())
