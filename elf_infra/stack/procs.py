"""Small process and port helpers shared by the embedded stack components."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path


class StackError(Exception):
    """A stack component could not be started, stopped or inspected; the message says what to do."""


def port_open(host: str, port: int, timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_until(check: Callable[[], bool], timeout: float, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(interval)
    return check()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours counts as gone
        waited, _ = os.waitpid(pid, os.WNOHANG)
        return waited == 0
    except ChildProcessError:
        return True


def read_pidfile(path: Path) -> int | None:
    try:
        text = path.read_text().split()
    except FileNotFoundError:
        return None
    if not text or not text[0].isdigit():
        return None
    pid = int(text[0])
    return pid if pid_alive(pid) else None


def stop_pid(pid: int, timeout: float = 15.0) -> None:
    """SIGTERM, wait, then SIGKILL if it would not go."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if wait_until(lambda: not pid_alive(pid), timeout):
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    wait_until(lambda: not pid_alive(pid), 5.0)


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"
