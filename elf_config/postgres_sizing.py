"""How the embedded Postgres sizes its memory from the machine (``elf-stack up``; README and docs/operations.md,
"Sizing"). One pure rule, checked without the machine: ``postgres_settings`` turns the memory Postgres may
plan for into server settings; the entry point passes ``machine_memory()``.

``[stack] postgres_memory`` is that memory: ``"auto"`` (the default) is half of the machine's memory (its
cgroup limit when lower), because the embedded Postgres shares the machine with Qdrant, Redis, elf-api and
elf-worker; or a size such as ``"4GB"`` or ``"512MB"``. From it, in the usual proportions for a mixed load:

- ``shared_buffers``: a quarter of it (128 MB to 16 GB); the kernel's page cache holds the rest of the data;
- ``effective_cache_size``: three quarters of it (what the planner may expect cached, buffers plus page cache);
- ``work_mem``: what is left beside shared_buffers, split across two sorts or hashes per connection at
  ``max_connections`` (4 MB to 64 MB): one bad plan cannot exhaust the machine;
- ``maintenance_work_mem``: a sixteenth (64 MB to 2 GB): index builds (HNSW, GIN) and bulk loads;
- ``max_wal_size`` 2 GB (fewer forced checkpoints during a bulk load) and ``random_page_cost`` 1.1 (the stack's
  data dir is a local disk, assumed solid-state).

``[stack] postgres_settings`` sets any server setting by name and wins over the rule.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .schema import AUTO

KB, MB, GB = 1024, 1024**2, 1024**3
MAX_CONNECTIONS = 200
MIN_POSTGRES_MEMORY = 256 * MB
_SIZE = re.compile(r"^\s*(\d+)\s*(kB|KB|MB|GB|TB)\s*$")
_UNITS = {"kB": KB, "KB": KB, "MB": MB, "GB": GB, "TB": 1024 * GB}
_SETTING_NAME = re.compile(r"^[a-z][a-z0-9_.]*$")
# settings elf-stack itself decides: the address it listens on and the connection count the sizing assumes
RESERVED = frozenset({"listen_addresses", "port", "unix_socket_directories", "max_connections"})


def parse_size(text: str) -> int | None:
    """``"4GB"`` -> bytes; None for anything else (Postgres' own units: kB, MB, GB, TB; KB accepted too)."""
    m = _SIZE.match(text)
    return int(m.group(1)) * _UNITS[m.group(2)] if m else None


def _pg_size(n: int) -> str:
    """Bytes as Postgres spells a memory setting, rounded down to a whole MB (or kB below 1 MB)."""
    if n >= GB and n % GB == 0:
        return f"{n // GB}GB"
    return f"{n // MB}MB" if n >= MB else f"{max(1, n // KB)}kB"


def _clamp(n: int, low: int, high: int) -> int:
    return max(low, min(high, n))


def postgres_memory(setting: str, machine: int) -> int:
    """The memory Postgres plans for: half of ``machine`` for "auto", else the configured size; at least 256 MB."""
    planned = machine // 2 if setting == AUTO else (parse_size(setting) or 0)
    return max(MIN_POSTGRES_MEMORY, planned)


def postgres_settings(memory: int, *, overrides: dict[str, str] | None = None,
                      max_connections: int = MAX_CONNECTIONS) -> dict[str, str]:
    """The server settings for ``memory`` bytes (the rule in this module's docstring), ``overrides`` on top."""
    shared = _clamp(memory // 4, 128 * MB, 16 * GB)
    work = _clamp((memory - shared) // (2 * max_connections), 4 * MB, 64 * MB)
    out = {
        "max_connections": str(max_connections),
        "shared_buffers": _pg_size(shared),
        "effective_cache_size": _pg_size(memory * 3 // 4),
        "work_mem": _pg_size(work),
        "maintenance_work_mem": _pg_size(_clamp(memory // 16, 64 * MB, 2 * GB)),
        "max_wal_size": "2GB",
        "random_page_cost": "1.1",
    }
    out.update(overrides or {})
    return out


def settings_problems(memory_setting: str, overrides: dict[str, str]) -> list[str]:
    """Config problems of ``[stack] postgres_memory`` and ``postgres_settings``."""
    problems = []
    if memory_setting != AUTO and parse_size(memory_setting) is None:
        problems.append('stack.postgres_memory must be "auto" or a size such as "4GB" or "512MB"')
    elif memory_setting != AUTO and (parse_size(memory_setting) or 0) < MIN_POSTGRES_MEMORY:
        problems.append("stack.postgres_memory must be at least 256MB")
    for name, value in overrides.items():
        if not _SETTING_NAME.match(name) or name in RESERVED:
            why = "is set by elf-stack itself" if name in RESERVED else "is not a Postgres setting name"
            problems.append(f"stack.postgres_settings.{name} {why}")
        elif not isinstance(value, str) or not value or any(c in value for c in "'\"\\\n"):
            problems.append(f"stack.postgres_settings.{name} must be a non-empty string without quotes")
    return problems


def machine_memory(meminfo: Path = Path("/proc/meminfo"),
                   cgroup_max: Path = Path("/sys/fs/cgroup/memory.max")) -> int:
    """This machine's memory in bytes: MemTotal, or the cgroup's limit (a container's) when that is lower."""
    total = 0
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemTotal:"):
                total = int(line.split()[1]) * KB
                break
    except OSError:
        pass
    if not total:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):
            total = 4 * GB
    try:
        limit = cgroup_max.read_text().strip()
        if limit.isdigit():
            total = min(total, int(limit))
    except OSError:
        pass
    return total
