"""Retention of built context bundles: acb_bundles rows older than acb.bundle_retention_days are deleted by the
hourly task; newer bundles stay, and the event log (append-only) is never touched."""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from django.db import connection

from acb.models import AcbBundle, AcbChunk, AcbEvent
from acb.selectors import View
from acb.services.bundle import build
from acb.services.event_log import Writer, record_event
from acb.services.retention import purge_bundles
from acb.tasks import BUNDLE_RETENTION_TASK, bundle_retention
from elf_config import load_config
from elf_config.schema import AcbConfig
from tests.conftest import REPO

pytestmark = pytest.mark.django_db


@pytest.fixture
def writer() -> Writer:
    return Writer(f"t-acbret-{uuid.uuid4().hex[:12]}", "p1", "sess-1", "agent-a")


def _bundles(writer: Writer, n: int) -> list[str]:
    record_event(writer=writer, channel="private", actor_type="human", actor_id="user", kind="message",
                 sensitivity="none", tags=[], content={"text": "Keep the deploy notes for a week."}, refs=[])
    view = View(writer.tenant_id, writer.project_id, writer.session_id, writer.agent_id, "private")
    return [build(view=view, intent=None, query_text="deploy notes", max_tokens=2000)["acb_id"] for _ in range(n)]


def _age(acb_id: str, days: int) -> None:
    with connection.cursor() as cur:
        cur.execute("UPDATE acb_bundles SET created_at = now() - make_interval(days => %s) WHERE acb_id = %s",
                    [days, acb_id])


def _log(writer: Writer) -> tuple[int, int]:
    return (AcbEvent.objects.filter(tenant_id=writer.tenant_id).count(),
            AcbChunk.objects.filter(tenant_id=writer.tenant_id).count())


def test_old_bundle_deleted_new_one_kept_events_untouched(writer, test_cfg):
    old, new = _bundles(writer, 2)
    _age(old, 8)
    before = _log(writer)
    report = purge_bundles(cfg=test_cfg)
    assert report.bundles >= 1  # other tests' old bundles may go too
    assert not AcbBundle.objects.filter(acb_id=old).exists()
    assert AcbBundle.objects.filter(acb_id=new).exists()
    assert _log(writer) == before and before[0] == 1


def test_retention_follows_the_configured_days(writer, test_cfg):
    (bundle,) = _bundles(writer, 1)
    _age(bundle, 8)
    longer = dataclasses.replace(test_cfg, acb=AcbConfig(bundle_retention_days=30))
    purge_bundles(cfg=longer)
    assert AcbBundle.objects.filter(acb_id=bundle).exists()  # 8 days old, kept for 30
    _age(bundle, 31)
    assert purge_bundles(cfg=longer).bundles >= 1
    assert not AcbBundle.objects.filter(acb_id=bundle).exists()


def test_task_uses_the_loaded_config(writer):
    old, new = _bundles(writer, 2)
    _age(old, 7)
    _age(new, 6)
    report = bundle_retention()  # tests/elf.test.toml: 7 days
    assert report["bundles"] >= 1
    assert list(AcbBundle.objects.filter(acb_id__in=[old, new]).values_list("acb_id", flat=True)) == [new]


def test_default_and_schedule(test_cfg):
    cfg = load_config(REPO / "elf.toml.example")
    assert cfg.acb.bundle_retention_days == 7 and test_cfg.acb.bundle_retention_days == 7
    assert AcbConfig().bundle_retention_days == 7  # what an omitted key or [acb] table holds
    from elf_project.celery_app import configure

    entry = configure(test_cfg).conf.beat_schedule[BUNDLE_RETENTION_TASK]
    assert entry["task"] == BUNDLE_RETENTION_TASK
    assert entry["schedule"].minute == {25} and len(entry["schedule"].hour) == 24  # hourly
