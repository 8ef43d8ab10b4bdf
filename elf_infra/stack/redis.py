"""Redis for the Celery broker: Debian's redis-server, no persistence (the broker holds nothing durable:
the outbox tables in Postgres are the record of pending work)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from .procs import StackError, port_open, read_pidfile, stop_pid, tail, wait_until


class RedisComponent:
    name = "redis"

    def __init__(self, broker_url: str, data_dir: Path):
        url = urlsplit(broker_url)
        self.host = url.hostname or "127.0.0.1"
        self.port = url.port or 6379
        self.password = url.password
        self.dir = data_dir / "redis"
        self.pidfile = self.dir / "redis.pid"
        self.logfile = self.dir / "redis.log"

    def status(self) -> str:
        pid = read_pidfile(self.pidfile)
        if pid and port_open(self.host, self.port):
            return f"running (pid {pid}) at {self.host}:{self.port}"
        if port_open(self.host, self.port):
            return f"port {self.host}:{self.port} answers but not started by elf-stack"
        return "stopped"

    def up(self) -> str:
        if read_pidfile(self.pidfile) and port_open(self.host, self.port):
            return f"already running at {self.host}:{self.port}"
        if port_open(self.host, self.port):
            raise StackError(
                f"redis: {self.host}:{self.port} is taken by another process; stop it or change worker.broker_url"
            )
        exe = shutil.which("redis-server") or (
            "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
        )
        if exe is None:
            raise StackError("redis: redis-server not found; run `make install` (installs Debian's redis-server)")
        self.dir.mkdir(parents=True, exist_ok=True)
        args = [
            exe,
            "--bind",
            self.host,
            "--port",
            str(self.port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "yes",
            "--pidfile",
            str(self.pidfile),
            "--logfile",
            str(self.logfile),
            "--dir",
            str(self.dir),
            "--protected-mode",
            "no",
        ]
        if self.password:
            args += ["--requirepass", self.password]
        subprocess.run(args, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not wait_until(lambda: port_open(self.host, self.port), 10):
            raise StackError(
                f"redis did not start at {self.host}:{self.port}; log {self.logfile}:\n{tail(self.logfile)}"
            )
        return f"started at {self.host}:{self.port}"

    def down(self) -> str:
        pid = read_pidfile(self.pidfile)
        if pid is None:
            return "not running"
        stop_pid(pid)
        return "stopped"
