"""Processing claimed indexing_outbox rows, several at a time (spec v2 section 12).

A row's task (sent when its transaction commits) claims that row and up to ROWS_PER_TASK - 1 other due rows,
then keeps claiming due rows ROWS_PER_TASK at a time until none came for DRAIN_IDLE_S (``drain``, at most
DRAIN_BUDGET_S); the beat sweep claims up to SWEEP_BATCH due rows. Claimed rows are processed ROWS_PER_TASK at a time by
``note_batch.index_notes``, so the embedding of every note that needs one is one provider call per 64
texts, their chunk writes one transaction and their points two Qdrant calls. Each row is then settled: DONE,
or FAILED with backoff. When a batch fails as a whole (anything but the embedding provider, whose failure
fails only the rows that needed it), its rows are processed again one at a time, so one bad note cannot hold
the others back. A batch whose oldest row waited worker.catch_up_after_seconds runs at the API's CPU priority
(``priority.CatchUp``, kept while the task drains), so indexing that fell behind under a busy API catches up
instead of starving.

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
from .priority import CatchUp

log = logging.getLogger("elf.indexing")

# First key of the two-key advisory lock space for notes: the ASCII bytes "ELFN" as a signed int4.
NOTE_LOCK_CLASS = lock_class(b"ELFN")
# A sweep claims this many rows at once and starts no batch after the budget (well inside the 30 s lease);
# the rows it did not start are released, due again for the next sweep.
SWEEP_BATCH = 4 * ROWS_PER_TASK
SWEEP_BUDGET_S = 20.0
# A row's task then drains what is due for up to this long (``drain``), and leaves the rest to the next task or
# sweep, so the trace and document sweeps sharing the pool process get their turn.
DRAIN_BUDGET_S = 10.0
# ... looking for new due rows every DRAIN_POLL_S while none is, and stopping once none came for DRAIN_IDLE_S.
DRAIN_POLL_S = 0.25
DRAIN_IDLE_S = 1.0


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
    due rows, then ``drain``; False when another worker holds the row, it is already done, or it is waiting
    for its backoff (the sweep takes it then), or it failed."""
    lease = lease_one(outbox_id)
    with CatchUp(cfg) as catch_up:
        done, worked = False, False
        if lease is not None:
            others = lease_due(ROWS_PER_TASK - 1)
            done, worked = lease.outbox_id in process_leases([lease, *others], cfg=cfg, catch_up=catch_up), True
        drain(cfg=cfg, budget_s=DRAIN_BUDGET_S, catch_up=catch_up, worked=worked)
    return done


def drain(*, cfg: ElfConfig, budget_s: float, catch_up: CatchUp, worked: bool, idle_s: float = DRAIN_IDLE_S) -> int:
    """Go on claiming ROWS_PER_TASK due rows at a time and processing them until ``budget_s`` passed or none is
    due: then, once the task did work (``worked``, or a batch here), it looks again every DRAIN_POLL_S until
    none came for ``idle_s``; returns how many were settled DONE. Every row's task drains, also one whose own
    row another batch took already: while writes keep coming the pool process stays on them, and the rows
    written meanwhile need no task message of their own. Under a busy API the worker's Celery consumer, at the
    worker's low priority, hands messages over slowly: in a 40 s closed-loop run that drained only after a
    task's own batch, the pool process waited for its next message 38 % of the time while up to 740 rows were
    due, and the oldest grew by a second a second for 10-15 s at a time. A task that found nothing returns at
    once (the messages of rows another task took are many after a burst; each waiting would hold the process
    from the other sweeps)."""
    start = idle_since = time.monotonic()
    settled = 0
    while (now := time.monotonic()) - start < budget_s and now - idle_since < idle_s:
        leases = lease_due(ROWS_PER_TASK)
        if leases:
            settled += len(process_leases(leases, cfg=cfg, catch_up=catch_up))
            idle_since, worked = time.monotonic(), True
        elif not worked:
            break
        else:
            time.sleep(DRAIN_POLL_S)
    return settled


def process_due(*, cfg: ElfConfig) -> int:
    """The sweep: claim up to SWEEP_BATCH due rows and process them oldest first; returns how many are DONE."""
    with CatchUp(cfg) as catch_up:
        return len(process_leases(lease_due(SWEEP_BATCH), cfg=cfg, budget_s=SWEEP_BUDGET_S, catch_up=catch_up))


def process_leases(leases: list[Lease], *, cfg: ElfConfig, budget_s: float | None = None,
                   catch_up: CatchUp | None = None) -> set[uuid.UUID]:
    """Process claimed rows ROWS_PER_TASK at a time, starting none after ``budget_s`` (at most two thirds of
    the lease; unstarted rows are released for the next sweep); returns the outbox ids settled DONE. A batch
    that fails as a whole goes again one row at a time. ``catch_up`` is told each batch's rows first."""
    deadline = time.monotonic() + min(budget_s or SWEEP_BUDGET_S, lease_seconds() * 2 / 3)
    queue = [leases[i : i + ROWS_PER_TASK] for i in range(0, len(leases), ROWS_PER_TASK)]
    done: set[uuid.UUID] = set()
    while queue:
        batch = queue.pop(0)
        if time.monotonic() > deadline:
            for unstarted in [*batch, *(lease for rest in queue for lease in rest)]:
                release(unstarted)
            break
        if catch_up is not None:
            catch_up.update(lease.created_at for lease in batch)
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
