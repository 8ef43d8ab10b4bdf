"""`make test-external`: ELF against services it does not manage (tests_external/deployment.py).

Run by scripts/test_external.sh, which gives the run's folder (--external-workdir) and removes it, and ends any
process still listed in its pids/ folder, whatever happened here. Run alone (``pytest -c tests_external/pytest.ini
tests_external``), the folder is made and removed here.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from tests_external.deployment import Deployment, tail

# Measurements the tests record (RSS, disk per note), printed at the end of the run (docs/deploying.md, Sizing).
MEASURED: dict[str, object] = {}


def pytest_configure(config):
    """SIGTERM (scripts/test_external.sh passes its signals on so) interrupts the run like Ctrl-C: the session
    fixture's finalizer then stops the deployment."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


def pytest_addoption(parser):
    parser.addoption("--external-workdir", default=None,
                     help="empty folder for the run's services, hosts and logs (default: a new temp folder)")


def process_group_memory(leader: int) -> list[dict]:
    """Rss and Pss (kB, /proc/<pid>/smaps_rollup) of every process in the group ``leader`` leads (gunicorn's master
    and workers, Celery's main process and pool)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            pgid = int(stat.rsplit(")", 1)[1].split()[2])
            if pgid != leader:
                continue
            fields = {}
            for line in (entry / "smaps_rollup").read_text().splitlines()[1:]:
                key, value = line.split(":", 1)
                fields[key] = int(value.split()[0])
            out.append({"pid": int(entry.name), "comm": (entry / "comm").read_text().strip(),
                        "rss_kb": fields["Rss"], "pss_kb": fields["Pss"]})
        except (OSError, ValueError, IndexError, KeyError):
            continue  # gone meanwhile
    return sorted(out, key=lambda p: p["pid"])


def memory_of(dep: Deployment) -> dict[str, dict]:
    """Per host: its processes' RSS and PSS, and its Postgres connections (by the application_name of its DSN)."""
    with psycopg.connect(dep.pg.owner_dsn) as conn:
        conns = dict(conn.execute("SELECT application_name, count(*) FROM pg_stat_activity WHERE datname = "
                                  "current_database() AND pid <> pg_backend_pid() GROUP BY 1").fetchall())
    out = {}
    for host in (dep.api, dep.worker):
        procs = process_group_memory(host.proc.pid)
        out[host.name] = {"processes": len(procs), "rss_mb": round(sum(p["rss_kb"] for p in procs) / 1024, 1),
                          "pss_mb": round(sum(p["pss_kb"] for p in procs) / 1024, 1),
                          "each_rss_mb": [f"{p['comm']} {p['rss_kb'] / 1024:.0f}" for p in procs],
                          "pg_connections": conns.get(host.name, 0)}
    return out


@pytest.fixture(scope="session")
def deployment(request):
    given = request.config.getoption("--external-workdir")
    workdir = Path(given) if given else Path(tempfile.mkdtemp(prefix="elf-external-"))
    workdir.mkdir(parents=True, exist_ok=True)
    os.chmod(workdir, 0o755)  # the Postgres system user (when run as root) must reach services/postgres
    dep = Deployment(workdir)
    stopped = []

    def finish():
        if not stopped:
            stopped.append(True)
            dep.stop()
            if not given:
                shutil.rmtree(workdir, ignore_errors=True)

    request.addfinalizer(finish)
    try:
        dep.start()
        MEASURED["startup"] = dict(dep.timings)
        time.sleep(5)  # let the first beat sweeps and the model loads settle before the idle figure
        MEASURED["memory_idle"] = memory_of(dep)
    except BaseException as exc:
        # pytest runs no finalizer of a fixture whose setup was interrupted (Ctrl-C, SIGTERM): stop here.
        if not isinstance(exc, KeyboardInterrupt):
            for name, path in dep.logs().items():
                print(f"---- {name} ({path})\n{tail(path)}")
        finish()
        raise
    return dep


def pytest_terminal_summary(terminalreporter):
    if not MEASURED:
        return
    tr = terminalreporter
    tr.section("external deployment: measurements (docs/deploying.md, Sizing)")
    for key, value in MEASURED.items():
        tr.write_line(f"{key}: {value}")
