"""elf_domain.time_ids: version 7 UUIDs sort by their millisecond, carry RFC 9562's version and variant bits,
and differ in their random bits; ``same_time_uuid`` keeps another id's timestamp."""

from __future__ import annotations

import time
import uuid

from elf_domain.time_ids import same_time_uuid, uuid7


def test_uuid7_layout_and_timestamp() -> None:
    before = time.time_ns() // 1_000_000
    u = uuid7()
    after = time.time_ns() // 1_000_000
    assert u.version == 7 and u.variant == uuid.RFC_4122
    assert before <= int.from_bytes(u.bytes[:6], "big") <= after
    assert uuid7(0x0123456789AB).bytes[:6] == bytes.fromhex("0123456789ab")


def test_uuid7_sorts_by_millisecond_and_differs_within_one() -> None:
    earlier, later = uuid7(1_700_000_000_000), uuid7(1_700_000_000_001)
    assert earlier < later and str(earlier) < str(later)  # the column order Postgres's uuid type uses
    same_ms = {uuid7(1_700_000_000_000) for _ in range(1000)}
    assert len(same_ms) == 1000


def test_same_time_uuid_keeps_the_timestamp_only() -> None:
    base = uuid7()
    derived = [same_time_uuid(base) for _ in range(100)]
    assert all(d.bytes[:6] == base.bytes[:6] and d.version == 7 and d.variant == uuid.RFC_4122 for d in derived)
    assert len({d for d in derived} | {base}) == 101
    v4 = uuid.uuid4()
    assert same_time_uuid(v4).bytes[:6] == v4.bytes[:6] and same_time_uuid(v4).version == 7


def test_append_only_rows_get_time_ordered_keys() -> None:
    """The rows written once and in time order (logs, outboxes, traces, sessions) get version 7 keys; a note
    and its chunks keep random ones (their ids are the notes' identity, handed to clients and Qdrant)."""
    from memory.models import (
        IndexingOutbox,
        MemoryHit,
        MemoryIngestDecision,
        MemoryNote,
        MemoryNoteChunk,
        MemoryNoteVersion,
    )
    from search.models import SearchSession
    from traces.models import (
        SearchTrace,
        SearchTraceCandidate,
        SearchTraceItem,
        SearchTraceOutbox,
        SearchTraceStage,
        SearchTraceStageItem,
    )

    logs = (IndexingOutbox, MemoryHit, MemoryIngestDecision, MemoryNoteVersion, SearchSession, SearchTrace,
            SearchTraceCandidate, SearchTraceItem, SearchTraceOutbox, SearchTraceStage, SearchTraceStageItem)
    assert all(model().pk.version == 7 for model in logs)
    assert MemoryNote().pk.version == MemoryNoteChunk().pk.version == 4
