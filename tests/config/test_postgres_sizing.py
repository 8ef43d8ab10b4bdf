"""The embedded Postgres' memory settings (elf_config.postgres_sizing; docs/operations.md, "Sizing"): the rule from
the machine's memory, the [stack] keys that change it, their refusals, and the memory read from /proc and the
cgroup. The live stack's settings are checked in tests/infra/test_postgres_sizing_live.py."""

from __future__ import annotations

import copy
import tomllib

import pytest

from elf_config import ConfigError, load_config
from elf_config.postgres_sizing import GB, MB, machine_memory, parse_size, postgres_memory, postgres_settings
from elf_config.toml_writer import dumps
from tests.conftest import REPO

EXAMPLE = tomllib.loads((REPO / "elf.toml.example").read_text())


def _load(tmp_path, **stack):
    data = copy.deepcopy(EXAMPLE)
    data.setdefault("stack", {}).update(stack)
    path = tmp_path / "elf.toml"
    path.write_text(dumps(data))
    return load_config(path)


def test_a_24_gib_machine_gives_postgres_half_and_a_quarter_of_that_to_shared_buffers():
    memory = postgres_memory("auto", 24 * GB)
    assert memory == 12 * GB
    s = postgres_settings(memory)
    assert (s["shared_buffers"], s["effective_cache_size"], s["maintenance_work_mem"]) == ("3GB", "9GB", "768MB")
    # (12 GiB - 3 GiB) over 2 x 200 connections
    assert s["work_mem"] == "23MB" and s["max_connections"] == "200"


def test_small_and_huge_machines_stay_within_the_bounds():
    small = postgres_settings(postgres_memory("auto", 1 * GB))  # 512 MB planned
    assert (small["shared_buffers"], small["work_mem"], small["maintenance_work_mem"]) == ("128MB", "4MB", "64MB")
    huge = postgres_settings(postgres_memory("auto", 512 * GB))
    assert (huge["shared_buffers"], huge["work_mem"], huge["maintenance_work_mem"]) == ("16GB", "64MB", "2GB")
    assert postgres_memory("auto", 100 * MB) == 256 * MB  # never below what Postgres needs to start sensibly


def test_a_configured_size_replaces_auto_and_settings_win_over_the_rule(tmp_path):
    cfg = _load(tmp_path, postgres_memory="4GB", postgres_settings={"work_mem": "8MB", "jit": "off"})
    memory = postgres_memory(cfg.stack.postgres_memory, 64 * GB)
    assert memory == 4 * GB
    s = postgres_settings(memory, overrides=cfg.stack.postgres_settings)
    assert (s["shared_buffers"], s["work_mem"], s["jit"]) == ("1GB", "8MB", "off")


def test_omitted_keys_are_auto_and_no_overrides(tmp_path):
    cfg = _load(tmp_path)
    assert (cfg.stack.postgres_memory, cfg.stack.postgres_settings) == ("auto", {})


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        ({"postgres_memory": "4 gigs"}, 'stack.postgres_memory must be "auto" or a size'),
        ({"postgres_memory": "100MB"}, "stack.postgres_memory must be at least 256MB"),
        ({"postgres_settings": {"port": "1"}}, "stack.postgres_settings.port is set by elf-stack itself"),
        ({"postgres_settings": {"max_connections": "5"}}, "max_connections is set by elf-stack itself"),
        ({"postgres_settings": {"Work-Mem": "8MB"}}, "is not a Postgres setting name"),
        ({"postgres_settings": {"work_mem": "8MB' -c fsync=off"}}, "must be a non-empty string without quotes"),
        ({"postgres_settings": {"work_mem": 8}}, "stack.postgres_settings.work_mem must be a string"),
    ],
)
def test_bad_keys_are_refused_at_start_with_their_path(tmp_path, stack, problem):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, **stack)
    assert problem in str(err.value)


def test_sizes_parse_in_postgres_units():
    assert (parse_size("512MB"), parse_size("4GB"), parse_size("64kB")) == (512 * MB, 4 * GB, 64 * 1024)
    assert parse_size("4 GiB") is None and parse_size("-1GB") is None and parse_size("") is None


def test_the_machine_memory_is_memtotal_or_a_lower_cgroup_limit(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       25165824 kB\nMemFree:        1000 kB\n")
    cgroup = tmp_path / "memory.max"
    cgroup.write_text("max\n")
    assert machine_memory(meminfo, cgroup) == 24 * GB
    cgroup.write_text(f"{8 * GB}\n")
    assert machine_memory(meminfo, cgroup) == 8 * GB  # a container's limit
    cgroup.write_text(f"{64 * GB}\n")
    assert machine_memory(meminfo, cgroup) == 24 * GB
    assert machine_memory(meminfo, tmp_path / "absent") == 24 * GB
