"""Backup and restore of the embedded stack (issue 19 item 3): ``elf-stack backup`` (the wheel's pg_dump) of a
database with data, ``elf-stack restore`` into a new database, ``manage.py rebuild_qdrant`` for it; every row
comes back and a search finds the notes again."""

from __future__ import annotations

import json
import subprocess

from tests.conftest import entry_point
from tests.indexing_helpers import wait_for
from tests.notes_helpers import rows
from tests.portability_helpers import (
    SEARCHES,
    manage,
    public_tables,
    search_ids,
    seed_tenant,
    start_services,
    table_contents,
    wait_outboxes_done,
)


def stack(svc, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([entry_point("elf-stack"), *args, "-c", str(svc.config_path)], capture_output=True,
                          text=True, timeout=300)


def test_a_backup_restores_into_a_new_database_and_search_finds_the_notes(isolated_services, tmp_path):
    source = isolated_services("backup_src")
    start_services(source)
    ids = seed_tenant(source, "acme")
    wait_outboxes_done(source)
    searched = {query: search_ids(source, query, "acme") for query, _ in SEARCHES}
    assert [found[0] for found in searched.values()] == [ids[key] for _, key in SEARCHES]
    wait_for(lambda: not rows(source, "SELECT 1 FROM search_trace_outbox WHERE status <> 'DONE'"), 30, "traces")
    source.stop()  # quiet, so that the comparison below sees exactly what was saved
    dump = tmp_path / "elf.dump"

    saved = stack(source, "backup", "--out", str(dump))
    assert saved.returncode == 0 and dump.stat().st_size > 0, saved.stderr

    target = isolated_services("backup_dst")  # a new, empty database and Qdrant collection
    restored = stack(target, "restore", "--in", str(dump))
    assert restored.returncode == 0, restored.stderr
    src_dsn, dst_dsn = source.cfg.storage.postgres.dsn, target.cfg.storage.postgres.dsn
    tables = public_tables(src_dsn)
    assert public_tables(dst_dsn) == tables
    assert table_contents(dst_dsn, tables) == table_contents(src_dsn, tables)

    target.start_api()
    assert search_ids(target, SEARCHES[0][0], "acme") == []  # the new collection is empty until the rebuild
    rebuilt = manage(target, "rebuild_qdrant")
    assert rebuilt.returncode == 0, rebuilt.stderr
    report = json.loads(rebuilt.stdout)
    chunks = rows(target, "SELECT count(*) FROM memory_note_chunks")[0][0]
    assert report["rebuilt_count"] == chunks > 0 and report["docs"]["rebuilt_count"] > 0
    assert {query: search_ids(target, query, "acme") for query, _ in SEARCHES} == searched

    again = stack(target, "restore", "--in", str(dump))
    assert again.returncode == 1 and "already has" in again.stderr and "tables" in again.stderr
