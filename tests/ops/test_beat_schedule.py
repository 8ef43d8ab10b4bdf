"""Beat's schedule is built from the task names the apps export: each entry is named by its task, and every task it
sends is one a worker registers (a renamed task cannot leave the schedule sending a name nobody answers)."""

from __future__ import annotations

from acb.tasks import BUNDLE_RETENTION_TASK
from docs_ext.tasks import SWEEP_TASK as DOCS_SWEEP_TASK
from memory.tasks import LIFECYCLE_TASK
from memory.tasks import SWEEP_TASK as NOTES_SWEEP_TASK
from search.tasks import LLM_CACHE_RETENTION_TASK
from traces.tasks import RETENTION_TASK, SWEEP_TRACE_TASK


def test_each_entry_is_named_by_its_registered_task(test_cfg):
    from elf_project.celery_app import configure

    app = configure(test_cfg)
    schedule = app.conf.beat_schedule
    assert set(schedule) == {NOTES_SWEEP_TASK, DOCS_SWEEP_TASK, LIFECYCLE_TASK, SWEEP_TRACE_TASK, RETENTION_TASK,
                             LLM_CACHE_RETENTION_TASK, BUNDLE_RETENTION_TASK}
    app.loader.import_default_modules()
    for name, entry in schedule.items():
        assert entry["task"] == name
        assert name in app.tasks, name
