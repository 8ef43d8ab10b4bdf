"""The test stack's Postgres runs with the memory settings elf_config.postgres_sizing gives this machine (not
Postgres' 128 MB default), and `elf-stack status` reports them as applied."""

from __future__ import annotations

import subprocess

import psycopg

from elf_config.postgres_sizing import machine_memory, parse_size, postgres_memory, postgres_settings
from tests.conftest import TEST_CONFIG, entry_point


def _bytes(value: str) -> int | str:
    size = parse_size(value)
    return value if size is None else size


def test_the_running_server_has_the_settings_sized_from_this_machine(test_stack):
    cfg = test_stack
    wanted = postgres_settings(postgres_memory(cfg.stack.postgres_memory, machine_memory()),
                               overrides=cfg.stack.postgres_settings)
    keys = ("shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem", "max_connections",
            "max_wal_size", "random_page_cost")
    with psycopg.connect(cfg.storage.postgres.dsn, autocommit=True) as conn:
        running = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in keys}
    assert {k: _bytes(v) for k, v in running.items()} == {k: _bytes(wanted[k]) for k in keys}
    assert _bytes(running["shared_buffers"]) > 128 * 1024**2  # more than Postgres' own default on this machine
    status = subprocess.run([entry_point("elf-stack"), "status", "-c", str(TEST_CONFIG)], capture_output=True,
                            text=True, timeout=60)
    line = next(x for x in status.stdout.splitlines() if x.startswith("postgres"))
    assert f"shared_buffers {running['shared_buffers']}" in line and "restart to apply" not in line, line
