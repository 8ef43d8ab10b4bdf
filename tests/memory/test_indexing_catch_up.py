"""Indexing that fell behind: every row's task drains what is due, and a batch whose oldest row waited
worker.catch_up_after_seconds runs the pool process at worker.catch_up_nice until it caught up."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from elf_config.sizing import sizing_problems
from memory.indexing.priority import behind
from tests.indexing_helpers import apply_schema, insert_note, module_services, rows, run_django  # noqa: F401


def _cfg(test_cfg, **worker):
    return replace(test_cfg, worker=replace(test_cfg.worker, **worker))


def test_rows_are_behind_once_the_oldest_waited_the_configured_time(test_cfg) -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    cfg = _cfg(test_cfg, nice=10, catch_up_nice=0, catch_up_after_seconds=5.0)
    assert behind([now - timedelta(seconds=1), now - timedelta(seconds=5)], cfg, now)
    assert not behind([now - timedelta(seconds=4.9), now], cfg, now)
    assert not behind([], cfg, now)
    # catch_up_nice at or above nice: nothing to catch up to
    assert not behind([now - timedelta(hours=1)], _cfg(test_cfg, nice=10, catch_up_nice=10), now)
    assert not behind([now - timedelta(hours=1)], _cfg(test_cfg, nice=0, catch_up_nice=0), now)


def test_the_catch_up_keys_are_checked(test_cfg) -> None:
    assert not sizing_problems(_cfg(test_cfg, catch_up_nice=0, catch_up_after_seconds=5.0))
    assert "worker.catch_up_nice must be in the range [0, 19]" in sizing_problems(_cfg(test_cfg, catch_up_nice=20))[0]
    assert "worker.catch_up_after_seconds must be in the range (0, 3600]" in sizing_problems(
        _cfg(test_cfg, catch_up_after_seconds=0.0))[0]


CATCH_UP = """
import json, os
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from elf_infra.cpu_priority import lower_priority
from elf_kernel.runtime import get_config
from memory.indexing.priority import CatchUp
cfg = get_config()
cfg = replace(cfg, worker=replace(cfg.worker, nice=10, catch_up_nice=0, catch_up_after_seconds=5.0))
tids = lambda: {int(t) for t in os.listdir('/proc/self/task')}
nices = lambda: sorted({os.getpriority(os.PRIO_PROCESS, t) for t in tids()})
lower_priority(10)
now = datetime.now(UTC)
seen = [nices()]
with CatchUp(cfg) as c:
    c.update([now - timedelta(seconds=30)])
    seen.append(nices())
    c.update([now - timedelta(seconds=20)])  # still behind: stays raised
    seen.append(nices())
    c.update([datetime.now(UTC)])  # caught up
    seen.append(nices())
    c.update([now - timedelta(seconds=30)])
seen.append(nices())  # leaving the block lowers it again
print(json.dumps(seen))
"""


def test_a_process_behind_runs_at_the_catch_up_niceness_until_it_caught_up(module_services) -> None:
    s = module_services("catch_up_nice")
    apply_schema(s)
    proc = run_django(s, CATCH_UP)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    seen = json.loads(out.strip().splitlines()[-1])
    if os.geteuid() == 0:  # raising a priority needs root or CAP_SYS_NICE (docs/configuration.md)
        assert seen == [[10], [0], [0], [10], [10]]
    else:
        assert seen == [[10]] * 5 and "may not raise its CPU priority" in err


def test_a_task_whose_own_row_is_done_still_indexes_every_due_row(module_services) -> None:
    """No worker runs: one task message, for a row another batch settled, drains all 69 due rows (more than
    one task's batch), as a busy worker's tasks do for the rows whose messages are still queued."""
    s = module_services("catch_up_drain")
    apply_schema(s)
    notes = [insert_note(s, f"Fact: the drained note number {i} of the catch-up test.", dispatch=False)
             for i in range(70)]
    done_row = rows(s, "SELECT outbox_id FROM indexing_outbox WHERE note_id = %s", (notes[0],))[0][0]
    rows_sql = "UPDATE indexing_outbox SET status = 'DONE' WHERE outbox_id = %s RETURNING 1"
    assert rows(s, rows_sql, (done_row,)) == [(1,)]
    code = ("from elf_kernel.runtime import get_config\nfrom memory.indexing.processor import process_row\n"
            f"print(process_row(cfg=get_config(), outbox_id={str(done_row)!r}))\n")
    proc = run_django(s, code)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.strip().splitlines()[-1] == "False"  # its own row was settled already
    assert rows(s, "SELECT status, count(*) FROM indexing_outbox GROUP BY 1") == [("DONE", 70)]
    # the 69 others indexed (the first one's row was marked DONE by hand, standing for another batch's work)
    assert rows(s, "SELECT count(DISTINCT note_id) FROM memory_note_chunks") == [(69,)]
