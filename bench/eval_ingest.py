"""Writing a dataset's items into a service through POST /v2/notes/ingest, and deleting them afterwards.

Each conversation goes to its own project (the conversation id) under the run's tenant, agent ``eval``,
scope agent_private, type fact. Ingest results are kept per note so that search hits (note ids) map back to
item ids. REJECTED and NONE results are counted with their reason codes; the run goes on without them.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tqdm import tqdm

from elf_domain.limits import MAX_NOTES_PER_REQUEST

from .eval_client import ElfClient
from .eval_dataset import Dataset
from .eval_notes import NoteShape, plan_notes

DELETE_THREADS = 4


@dataclass
class IngestReport:
    tenant: str
    items: int = 0
    notes: int = 0
    split_items: int = 0
    parts: int = 0  # notes written for split items
    ops: Counter = field(default_factory=Counter)
    rejected: list[dict] = field(default_factory=list)  # {conversation_id, key, item_id, reason_code}
    none: list[dict] = field(default_factory=list)
    lost_items: list[str] = field(default_factory=list)  # items with no stored note at all
    seconds: float = 0.0
    # conversation id -> note id -> item id (every note a search may return)
    note_items: dict[str, dict[str, str]] = field(default_factory=dict)
    # conversation id -> note ids this run created (ADD/UPDATE), the ones cleanup deletes
    created: dict[str, list[str]] = field(default_factory=dict)

    def all_created(self) -> list[str]:
        return [n for ids in self.created.values() for n in ids]

    def as_dict(self) -> dict:
        return {
            "tenant": self.tenant, "items": self.items, "notes": self.notes, "split_items": self.split_items,
            "parts": self.parts, "ops": dict(self.ops),
            "rejected_by_reason": dict(Counter(r["reason_code"] for r in self.rejected)),
            "rejected": self.rejected, "none": self.none, "lost_items": self.lost_items,
            "seconds": round(self.seconds, 2),
        }


_DEFAULT_SHAPE = NoteShape()


def ingest_dataset(client: ElfClient, ds: Dataset, report: IngestReport, *, max_note_chars: int, label: str,
                   shape: NoteShape = _DEFAULT_SHAPE) -> None:
    """Write every item of ``ds``, filling ``report`` as results come in (so that a run failing half-way
    still knows which notes to delete); a REJECTED note is reported loudly on stderr as it happens."""
    plans = {c.conversation_id: plan_notes(c, max_note_chars, shape) for c in ds.conversations}
    total = sum(len(p) for p in plans.values())
    t0 = time.perf_counter()
    with tqdm(total=total, desc=f"[{label}] ingest notes", unit="note", file=sys.stderr, disable=None) as bar:
        for conv in ds.conversations:
            planned = plans[conv.conversation_id]
            note_items = report.note_items.setdefault(conv.conversation_id, {})
            created = report.created.setdefault(conv.conversation_id, [])
            stored_items: set[str] = set()
            for start in range(0, len(planned), MAX_NOTES_PER_REQUEST):
                batch = planned[start : start + MAX_NOTES_PER_REQUEST]
                outcomes = client.ingest(conv.conversation_id, [p.body() for p in batch])
                for p, o in zip(batch, outcomes, strict=True):
                    report.ops[o.op] += 1
                    row = {"conversation_id": conv.conversation_id, "key": p.key, "item_id": p.item_id,
                           "reason_code": o.reason_code}
                    if o.op == "REJECTED":
                        report.rejected.append(row)
                        tqdm.write(f"[{label}] REJECTED {p.key}: {o.reason_code}", file=sys.stderr)
                    elif o.op == "NONE":
                        report.none.append({**row, "note_id": o.note_id})
                    if o.note_id:
                        note_items[o.note_id] = p.item_id
                        stored_items.add(p.item_id)
                        if o.op in ("ADD", "UPDATE"):
                            created.append(o.note_id)
                bar.update(len(batch))
            report.items += len(conv.items)
            report.notes += len(planned)
            split = [p for p in planned if p.parts > 1]
            report.split_items += len({p.item_id for p in split})
            report.parts += len(split)
            report.lost_items += [i.item_id for i in conv.items if i.item_id not in stored_items]
    report.seconds = time.perf_counter() - t0


def delete_created(client: ElfClient, report: IngestReport, *, label: str) -> int:
    """DELETE every note the run created (the service keeps them as status deleted until its purge)."""
    jobs = [(conv, n) for conv, ids in report.created.items() for n in ids]
    with (
        tqdm(total=len(jobs), desc=f"[{label}] delete notes", unit="note", file=sys.stderr, disable=None) as bar,
        ThreadPoolExecutor(DELETE_THREADS) as pool,
    ):
        for _ in pool.map(lambda job: client.delete(*job), jobs):
            bar.update(1)
    return len(jobs)
