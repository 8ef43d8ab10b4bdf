"""The indexing lag of elf-bench concurrency --mix: what the worker has not indexed yet, sampled every second.

Every indexing outbox is read (the notes' ``indexing_outbox`` and the documents' ``doc_indexing_outbox``; the
event log's chunks, acb_chunks, have none: record_event writes them in its own transaction, so they are
searchable when it answers). Per outbox: the rows not DONE (PENDING, and FAILED rows waiting for their retry)
and the age of the oldest of them (now() - created_at), which is how stale the index is at that moment: a note
written that long ago is not searchable yet. ``Sampler`` runs in a thread during a phase; ``drain`` polls after
it until no row is left.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import psycopg

from bench.stats import percentile
from elf_config import ElfConfig

OUTBOXES = ("indexing_outbox", "doc_indexing_outbox")
_SQL = " UNION ALL ".join(
    f"SELECT '{t}', count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 FROM {t} "
    "WHERE status IN ('PENDING', 'FAILED')" for t in OUTBOXES)


@dataclass(frozen=True)
class Sample:
    t: float  # seconds since the phase started
    rows: dict[str, int]
    oldest_s: dict[str, float]

    @property
    def total(self) -> int:
        return sum(self.rows.values())

    @property
    def age(self) -> float:
        return max(self.oldest_s.values(), default=0.0)


def sample(conn: psycopg.Connection, t: float) -> Sample:
    found = conn.execute(_SQL).fetchall()
    return Sample(t, {name: rows for name, rows, _ in found}, {name: age for name, _, age in found})


@dataclass
class Sampler:
    cfg: ElfConfig
    every_s: float = 1.0
    samples: list[Sample] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lag-sampler", daemon=True)

    def _run(self) -> None:
        t0 = time.monotonic()
        with psycopg.connect(self.cfg.storage.postgres.dsn, autocommit=True) as conn:
            while not self._stop.is_set():
                self.samples.append(sample(conn, time.monotonic() - t0))
                self._stop.wait(max(0.0, self.every_s - (time.monotonic() - t0) % self.every_s))

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stop.set()
        self._thread.join()

    def describe(self) -> str:
        s = self.samples
        if not s:
            return "no lag samples"
        ages, rows = [x.age for x in s], [x.total for x in s]
        per = ", ".join(f"{name} max {max(x.rows[name] for x in s)}" for name in OUTBOXES)
        return (f"{len(s)} samples, 1/s: rows pending max {max(rows)} (p50 {percentile(rows, 50):.0f}; {per}); "
                f"age of the oldest pending row max {max(ages):.1f} s, p95 {percentile(ages, 95):.1f} s, "
                f"p50 {percentile(ages, 50):.1f} s")


def drain(cfg: ElfConfig, timeout_s: float) -> tuple[float | None, Sample]:
    """Poll once a second until no indexing row is pending; (seconds it took or None at the timeout, last sample)."""
    t0 = time.monotonic()
    with psycopg.connect(cfg.storage.postgres.dsn, autocommit=True) as conn:
        while True:
            s = sample(conn, time.monotonic() - t0)
            if s.total == 0:
                return s.t, s
            if s.t >= timeout_s:
                return None, s
            time.sleep(1.0)
