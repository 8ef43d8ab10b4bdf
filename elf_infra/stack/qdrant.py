"""The embedded Qdrant server (elf_infra.qdrant_server) as a detached child process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import requests

from .procs import StackError, port_open, read_pidfile, stop_pid, tail, wait_until


class QdrantComponent:
    name = "qdrant"

    def __init__(self, url: str, data_dir: Path):
        parts = urlsplit(url)
        self.url = url.rstrip("/")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.dir = data_dir / "qdrant"
        self.pidfile = data_dir / "qdrant.pid"
        self.logfile = data_dir / "qdrant.log"

    def _answers(self) -> bool:
        try:
            return requests.get(self.url + "/", timeout=1).ok
        except requests.RequestException:
            return False

    def status(self) -> str:
        pid = read_pidfile(self.pidfile)
        if pid and self._answers():
            return f"running (pid {pid}) at {self.url}"
        if port_open(self.host, self.port):
            return f"{self.url} answers but not started by elf-stack"
        return "stopped"

    def up(self) -> str:
        if read_pidfile(self.pidfile) and self._answers():
            return f"already running at {self.url}"
        if port_open(self.host, self.port):
            raise StackError(
                f"qdrant: {self.host}:{self.port} is taken by another process; stop it or change storage.qdrant.url"
            )
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.logfile, "ab") as log:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "elf_infra.qdrant_server",
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                    "--data-dir",
                    str(self.dir),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.pidfile.write_text(str(proc.pid))
        if not wait_until(lambda: self._answers() or proc.poll() is not None, 30) or proc.poll() is not None:
            raise StackError(f"qdrant did not start at {self.url}; log {self.logfile}:\n{tail(self.logfile)}")
        return f"started at {self.url}"

    def down(self) -> str:
        pid = read_pidfile(self.pidfile)
        if pid is None:
            return "not running"
        stop_pid(pid, timeout=30)
        self.pidfile.unlink(missing_ok=True)
        return "stopped"
