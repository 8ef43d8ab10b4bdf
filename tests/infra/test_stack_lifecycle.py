"""elf-stack up|down|status on its own ports and data dir: idempotent, and data survives down/up."""

from __future__ import annotations

import subprocess
import tomllib

import psycopg
import redis

from elf_config.toml_writer import dumps
from tests.conftest import REPO, entry_point, free_port


def _stack(cfg, action):
    return subprocess.run(
        [entry_point("elf-stack"), action, "-c", str(cfg)], capture_output=True, text=True, timeout=180
    )


def _config(tmp_path, data_dir_for):
    """A config on free ports with the data dir ``data_dir_for(postgres port)``; returns (path, data, dsn)."""
    data = tomllib.loads((REPO / "elf.toml.example").read_text())
    pg, rd, qd = free_port(), free_port(), free_port()
    dsn = f"postgresql://elf:pw-{pg}@127.0.0.1:{pg}/elf_lifecycle"
    data["storage"]["postgres"]["dsn"] = dsn
    data["storage"]["qdrant"]["url"] = f"http://127.0.0.1:{qd}"
    data["worker"]["broker_url"] = f"redis://127.0.0.1:{rd}/0"
    data["stack"]["data_dir"] = data_dir_for(pg)
    cfg = tmp_path / "elf.toml"
    cfg.write_text(dumps(data))
    return cfg, data, dsn


def test_stack_lifecycle(tmp_path):
    cfg, data, dsn = _config(tmp_path, lambda pg: str(REPO / "var" / f"lifecycle-{pg}"))
    try:
        assert _stack(cfg, "status").returncode != 0
        up = _stack(cfg, "up")
        assert up.returncode == 0, up.stdout + up.stderr
        again = _stack(cfg, "up")
        assert again.returncode == 0 and again.stdout.count("already running") == 3, again.stdout
        status = _stack(cfg, "status")
        assert status.returncode == 0 and status.stdout.count("running") == 3, status.stdout

        with psycopg.connect(dsn, autocommit=True) as conn:
            assert conn.execute("CREATE EXTENSION IF NOT EXISTS vector") is not None
            conn.execute("CREATE TABLE kept (v vector(3))")
            conn.execute("INSERT INTO kept VALUES ('[1,2,3]')")
        assert redis.Redis.from_url(data["worker"]["broker_url"]).ping()

        down = _stack(cfg, "down")
        assert down.returncode == 0, down.stdout + down.stderr
        assert _stack(cfg, "status").returncode != 0
        assert _stack(cfg, "down").stdout.count("not running") == 3

        assert _stack(cfg, "up").returncode == 0
        with psycopg.connect(dsn) as conn:
            assert conn.execute("SELECT v::text FROM kept").fetchone()[0] == "[1,2,3]"
    finally:
        _stack(cfg, "down")
        subprocess.run(["rm", "-rf", data["stack"]["data_dir"]])


def test_stack_starts_from_a_data_dir_path_of_150_characters(tmp_path):
    # Postgres refuses a Unix-domain socket path over 107 bytes; the stack must not depend on one, so a checkout
    # (and its var/ data dir) may live at any depth.
    cfg, data, dsn = _config(tmp_path, lambda pg: str(REPO / "var" / f"long-path-{pg}-").ljust(150, "d"))
    assert len(data["stack"]["data_dir"]) == 150, data["stack"]["data_dir"]
    try:
        up = _stack(cfg, "up")
        assert up.returncode == 0, up.stdout + up.stderr
        with psycopg.connect(dsn, autocommit=True) as conn:
            assert conn.execute("SELECT current_database()").fetchone()[0] == "elf_lifecycle"
        assert redis.Redis.from_url(data["worker"]["broker_url"]).ping()
        assert _stack(cfg, "status").stdout.count("running") == 3
    finally:
        _stack(cfg, "down")
        subprocess.run(["rm", "-rf", data["stack"]["data_dir"]])
