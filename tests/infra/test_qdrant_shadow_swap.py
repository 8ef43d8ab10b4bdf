"""The embedded Qdrant's swap of an optimized copy (elf_infra.qdrant_server.collections, in-process): the copy is
opened before the swap only to replay writes made while it was optimized. Opening a shard holds the GIL for its
whole load (13 s at a million points), so an optimization with nothing written meanwhile stops the server once
(the swap's own load), not twice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import qdrant_edge as qe

from elf_infra.qdrant_server import collections as colls
from elf_infra.qdrant_server import config as cfg
from elf_infra.qdrant_server.points import points_from_list
from elf_infra.qdrant_server.term_stats import StatsWrite

pytestmark = pytest.mark.unit


def _upsert(coll: colls.Collection, ids: range) -> None:
    points = points_from_list([{"id": i, "vector": {"dense": [1.0, float(i), 0.5, 0.0]}, "payload": {"i": i}}
                               for i in ids])
    coll.update(qe.UpdateOperation.upsert_points(points), len(points), StatsWrite.upsert(points, conditional=False))


def _optimized_copy(coll: colls.Collection) -> None:
    """What the optimizer does: copy the live shard, then optimize the copy in its child process (optimizer._start
    runs the same command), which flushes and closes it: what adopt_shadow relies on when nothing was written."""
    shadow = coll.begin_shadow()
    assert shadow is not None
    subprocess.run([sys.executable, "-m", "elf_infra.qdrant_server.optimize_worker", str(shadow)],
                   stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=120)


@pytest.mark.parametrize("written_meanwhile", [0, 3])
def test_the_optimized_copy_is_opened_before_the_swap_only_to_replay_writes(tmp_path: Path, monkeypatch,
                                                                          written_meanwhile: int) -> None:
    config = cfg.normalize_create({"vectors": {"dense": {"size": 4, "distance": "Cosine"}}})
    coll = colls.Collection.create("c", tmp_path / "c", config, grey_after=1)
    try:
        _upsert(coll, range(1, 6))
        _optimized_copy(coll)
        if written_meanwhile:  # journaled: must reach the copy before the swap
            _upsert(coll, range(100, 100 + written_meanwhile))
        loads = []
        real_load = qe.EdgeShard.load
        monkeypatch.setattr(qe.EdgeShard, "load", lambda path: (loads.append(Path(path).name), real_load(path))[1])
        coll.adopt_shadow()
        # One load for the swap (the copy under the live shard's name); one more before it only to replay writes.
        assert loads == ([colls.SHADOW_DIR] if written_meanwhile else []) + [colls.SHARD_DIR]
        assert coll.read(lambda shard: shard.count(qe.CountRequest(exact=True))) == 5 + written_meanwhile
        assert not coll.shadow_dir.exists() and not (tmp_path / "c" / colls.READY_MARKER).exists()
    finally:
        monkeypatch.undo()
        coll.close()
    reopened = colls.Collection.open(tmp_path / "c", grey_after=1)
    try:
        assert reopened.read(lambda shard: shard.count(qe.CountRequest(exact=True))) == 5 + written_meanwhile
    finally:
        reopened.close()
