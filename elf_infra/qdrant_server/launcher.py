"""Run the embedded Qdrant server as a child process (tests and benchmarks)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class EmbeddedQdrant:
    """`python -m elf_infra.qdrant_server` on a data directory, logging to `log_path`; can be stopped and
    started again on the same directory (each start picks a new free port)."""

    def __init__(
        self, data_dir: Path, log_path: Path, extra_args: tuple[str, ...] = (), host: str = "127.0.0.1"
    ) -> None:
        self.data_dir = data_dir
        self.log_path = log_path
        self.extra_args = extra_args
        self.host = host
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def log_text(self) -> str:
        """Everything the server has logged so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def start(self, timeout_s: float = 30.0) -> None:
        """Start the server and wait until GET / answers; RuntimeError with the log if it does not."""
        self.port = free_port(self.host)
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "elf_infra.qdrant_server", "--host", self.host, "--port", str(self.port),
                 "--data-dir", str(self.data_dir), *self.extra_args],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"qdrant server exited with {self.proc.returncode}:\n{self.log_text()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=1) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"qdrant server did not answer within {timeout_s} s:\n{self.log_text()}")

    def stop(self, timeout_s: float = 60.0) -> int:
        """SIGTERM (the server flushes and closes its shards), wait, and return the exit code."""
        if self.proc is None:
            raise RuntimeError("server was never started")
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def restart(self) -> int:
        """Stop (returning the exit code) and start again on the same data directory."""
        code = self.stop()
        self.start()
        return code
