"""Shared fixtures: the test stack (tests/elf.test.toml), a live elf-api and elf-worker, DB access.

`make test` brings the test stack up before pytest and down after it. Run alone, pytest brings it up
itself when it is not running and stops it at the end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

REPO = Path(__file__).resolve().parent.parent
TEST_CONFIG = REPO / "tests" / "elf.test.toml"
BIN = Path(sys.executable).parent


def entry_point(name: str) -> str:
    return str(BIN / name)


@pytest.fixture(scope="session")
def test_cfg():
    from elf_project.config import load_config

    return load_config(TEST_CONFIG)


def _stack(action: str) -> subprocess.CompletedProcess:
    return subprocess.run([entry_point("elf-stack"), action, "-c", str(TEST_CONFIG)], capture_output=True, text=True)


@pytest.fixture(scope="session")
def test_stack(test_cfg):
    """The embedded test stack, running for the whole session."""
    started_here = _stack("status").returncode != 0
    if started_here:
        up = _stack("up")
        assert up.returncode == 0, f"elf-stack up failed:\n{up.stdout}\n{up.stderr}"
    yield test_cfg
    if started_here:
        _stack("down")


@pytest.fixture(scope="session")
def pg_admin_dsn(test_stack) -> str:
    """Superuser DSN to the test server's maintenance database (for creating scratch databases)."""
    parts = urlsplit(test_stack.storage.postgres.dsn)
    return urlunsplit(parts._replace(path="/postgres"))


@pytest.fixture(scope="session")
def django_db_setup(test_stack, django_db_blocker):
    """Use the test stack's database as-is: our schema from sql/, Django's tables from its migrations."""
    from elf_project import startup

    with django_db_blocker.unblock():
        startup.apply_schema(test_stack)
        startup.migrate_django(test_stack)


def wait_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"process exited with {proc.returncode} before {url} answered")
        try:
            requests.get(url, timeout=1)
            return
        except requests.RequestException:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {timeout}s")


class LiveProcess:
    def __init__(self, args: list[str], log_path: Path):
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(5)
        self.log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="session")
def live_api(test_stack, tmp_path_factory):
    """A real elf-api process on the test config's binds; yields (public_url, admin_url)."""
    svc = test_stack.service
    public, admin = f"http://{svc.http_bind}", f"http://{svc.admin_bind}"
    proc = LiveProcess([entry_point("elf-api"), "-c", str(TEST_CONFIG)], tmp_path_factory.mktemp("api") / "api.log")
    try:
        wait_http(public + "/health", 60, proc.proc)
        wait_http(admin + "/health", 10, proc.proc)
    except AssertionError:
        proc.stop()
        raise AssertionError(proc.output()[-4000:]) from None
    yield public, admin
    proc.stop()


@pytest.fixture(scope="session")
def live_worker(test_stack, tmp_path_factory):
    """A real elf-worker (Celery worker + beat) on the test broker."""
    proc = LiveProcess([entry_point("elf-worker"), "-c", str(TEST_CONFIG)], tmp_path_factory.mktemp("worker") / "worker.log")
    deadline = time.monotonic() + 60
    while "ready." not in proc.output():
        if proc.proc.poll() is not None or time.monotonic() > deadline:
            proc.stop()
            raise AssertionError("elf-worker did not become ready:\n" + proc.output()[-4000:])
        time.sleep(0.3)
    yield proc
    proc.stop()


CONTEXT_HEADERS = {"X-ELF-Tenant-Id": "t1", "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": "a1"}
