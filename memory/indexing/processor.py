"""Processing claimed indexing_outbox rows, several at a time (spec v2 section 12).

A row's task (sent when its transaction commits) claims that row and up to ROWS_PER_TASK - 1 other due rows;
the beat sweep claims up to SWEEP_BATCH due rows. Claimed rows are processed ROWS_PER_TASK at a time by
``note_batch.index_notes``, so the embedding of every note that needs one is one provider call per 64
texts, their chunk writes one transaction and their points two Qdrant calls. Each row is then settled: DONE,
or FAILED with backoff. When a batch fails as a whole (anything but the embedding provider, whose failure
fails only the rows that needed it), its rows are processed again one at a time, so one bad note cannot hold
the others back.

All processing of a note is serialised by a session advisory lock on its note_id, so two rows of the same
note (an UPSERT and a later DELETE, say) never interleave: the batch processed last reads the note's final
state. A batch takes the locks of all its notes in one statement, in hash order, so two workers never
deadlock on them. A worker killed mid-job drops its connection and with it the locks.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

from elf_config import ElfConfig
from elf_kernel.locks import lock_class
from elf_kernel.outbox_lease import lease_seconds

from .lease import Lease, lease_due, lease_one, mark_all_done, mark_failed, release
from .note_batch import index_notes
from .outbox import ROWS_PER_TASK

log = logging.getLogger("elf.indexing")

# First key of the two-key advisory lock space for notes: the ASCII bytes "ELFN" as a signed int4.
NOTE_LOCK_CLASS = lock_class(b"ELFN")
# A sweep claims this many rows at once and starts no batch after the budget (well inside the 30 s lease);
# the rows it did not start are released, due again for the next sweep.
SWEEP_BATCH = 4 * ROWS_PER_TASK
SWEEP_BUDGET_S = 20.0


@contextmanager
def note_locks(note_ids) -> Iterator[None]:
    """Hold the session advisory locks of the notes for the block, taken in hash order (waits for another
    worker processing one of them)."""
    keys = sorted({str(n) for n in note_ids})
    lock = ("SELECT pg_advisory_lock(%s, h) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(%s::text[]) AS k "
            "ORDER BY h) AS ordered")
    with connection.cursor() as cur:
        cur.execute(lock, [NOTE_LOCK_CLASS, keys])
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute(lock.replace("pg_advisory_lock", "pg_advisory_unlock"), [NOTE_LOCK_CLASS, keys])


def process_row(*, cfg: ElfConfig, outbox_id: uuid.UUID | str) -> bool:
    """Process one row if it is due (the task sent on commit), together with up to ROWS_PER_TASK - 1 other
    due rows; False when another worker holds it, it is already done, or it is waiting for its backoff (the
    sweep takes it then), or it failed."""
    lease = lease_one(outbox_id)
    if lease is None:
        return False
    others = lease_due(ROWS_PER_TASK - 1)
    return lease.outbox_id in process_leases([lease, *others], cfg=cfg)


def process_due(*, cfg: ElfConfig) -> int:
    """The sweep: claim up to SWEEP_BATCH due rows and process them oldest first; returns how many are DONE."""
    return len(process_leases(lease_due(SWEEP_BATCH), cfg=cfg, budget_s=SWEEP_BUDGET_S))


def process_leases(leases: list[Lease], *, cfg: ElfConfig, budget_s: float | None = None) -> set[uuid.UUID]:
    """Process claimed rows ROWS_PER_TASK at a time, starting none after ``budget_s`` (at most two thirds of
    the lease; unstarted rows are released for the next sweep); returns the outbox ids settled DONE. A batch
    that fails as a whole goes again one row at a time."""
    deadline = time.monotonic() + min(budget_s or SWEEP_BUDGET_S, lease_seconds() * 2 / 3)
    queue = [leases[i : i + ROWS_PER_TASK] for i in range(0, len(leases), ROWS_PER_TASK)]
    done: set[uuid.UUID] = set()
    while queue:
        batch = queue.pop(0)
        if time.monotonic() > deadline:
            for unstarted in [*batch, *(lease for rest in queue for lease in rest)]:
                release(unstarted)
            break
        try:
            done |= _process_batch(batch, cfg)
        except Exception as exc:
            if len(batch) == 1:
                _fail(batch[0], exc, cfg)
            else:
                log.warning("indexing %d outbox rows together failed (%s); processing them one at a time", len(batch),
                            exc)
                queue[:0] = [[lease] for lease in batch]
    return done


def _process_batch(leases: list[Lease], cfg: ElfConfig) -> set[uuid.UUID]:
    """Index the notes of the rows (each note as its latest row asks) and settle the rows; raises when the
    batch failed as a whole (nothing settled)."""
    ops = {lease.note_id: lease.op for lease in sorted(leases, key=lambda lease: lease.created_at)}
    with note_locks(ops):
        failed = index_notes(cfg=cfg, ops=ops)
    done = [lease for lease in leases if lease.note_id not in failed]
    for lease in leases:
        if lease.note_id in failed:
            _fail(lease, failed[lease.note_id], cfg)
    settled = mark_all_done(done)  # each row settles on its own lease token: no transaction needed around them
    for lease in done:
        if lease.outbox_id not in settled:
            log.info("%s: lease lost before completion; the newer claim settles it", _what(lease))
    return {lease.outbox_id for lease in done}


def _fail(lease: Lease, exc: BaseException, cfg: ElfConfig) -> None:
    log.warning("%s failed, attempt %d: %s", _what(lease), lease.attempts + 1, exc)
    mark_failed(lease, exc, cfg)


def _what(lease: Lease) -> str:
    return f"outbox {lease.outbox_id} ({lease.op} note {lease.note_id})"
