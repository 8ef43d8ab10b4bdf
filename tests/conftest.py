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


def autogroups_enabled() -> bool:
    """Whether the kernel shares the cores between sessions first (then a session's autogroup niceness counts)."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


def entry_point(name: str) -> str:
    return str(BIN / name)


@pytest.fixture(scope="session")
def test_cfg():
    from elf_config import load_config

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
        # the log outlives __init__: the process writes to it until stop() closes it
        self.log = open(log_path, "wb")  # noqa: SIM115 - handed to the kept subprocess
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
    proc = LiveProcess(
        [entry_point("elf-worker"), "-c", str(TEST_CONFIG)], tmp_path_factory.mktemp("worker") / "worker.log"
    )
    deadline = time.monotonic() + 60
    while "ready." not in proc.output():
        if proc.proc.poll() is not None or time.monotonic() > deadline:
            proc.stop()
            raise AssertionError("elf-worker did not become ready:\n" + proc.output()[-4000:])
        time.sleep(0.3)
    yield proc
    proc.stop()


CONTEXT_HEADERS = {"X-ELF-Tenant-Id": "t1", "X-ELF-Project-Id": "p1", "X-ELF-Agent-Id": "a1"}


# --- isolated services: own database, broker db, collection and ports; providers over HTTP -------------

import itertools  # noqa: E402
import tomllib  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from elf_config.toml_writer import dumps  # noqa: E402
from elf_infra.qdrant_server.launcher import free_port  # noqa: E402
from tests.fake_provider_server import FakeProviderServer, FakeResponse, RecordedRequest  # noqa: E402

_redis_dbs = itertools.count()
EMBED_PATH, RERANK_PATH, CHAT_PATH = "/v1/embeddings", "/v1/rerank", "/v1/chat/completions"


def local_model_embeddings(request: RecordedRequest) -> FakeResponse:
    """An OpenAI-style embeddings endpoint backed by the real local MiniLM (semantic vectors over HTTP)."""
    from elf_infra.providers.local_embedder import LOCAL_EMBEDDING_MODEL, LocalEmbedder

    vectors = LocalEmbedder(LOCAL_EMBEDDING_MODEL).embed(request.json["input"])
    return FakeResponse(json={"object": "list", "data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]})


@dataclass
class ServiceSet:
    name: str
    config_path: Path
    cfg: object
    fake: FakeProviderServer
    workdir: Path
    api: LiveProcess | None = None
    workers: list = field(default_factory=list)

    @property
    def public(self) -> str:
        return f"http://{self.cfg.service.http_bind}"

    @property
    def admin(self) -> str:
        return f"http://{self.cfg.service.admin_bind}"

    def start_api(self) -> None:
        self.api = LiveProcess([entry_point("elf-api"), "-c", str(self.config_path)], self.workdir / "api.log")
        try:
            wait_http(self.public + "/health", 60, self.api.proc)
        except AssertionError:
            self.api.stop()
            raise AssertionError(self.api.output()[-4000:]) from None

    def start_worker(self) -> LiveProcess:
        n = len(self.workers)
        proc = LiveProcess([entry_point("elf-worker"), "-c", str(self.config_path)], self.workdir / f"worker{n}.log")
        deadline = time.monotonic() + 60
        while "ready." not in proc.output():
            if proc.proc.poll() is not None or time.monotonic() > deadline:
                proc.stop()
                raise AssertionError("elf-worker did not become ready:\n" + proc.output()[-4000:])
            time.sleep(0.2)
        self.workers.append(proc)
        return proc

    def stop(self) -> None:
        for w in self.workers:
            w.stop()
        if self.api is not None:
            self.api.stop()


class ServiceFactory:
    """Builds ServiceSets: a fresh database, broker db, collection and ports each, and a fake provider server
    (embeddings served by the local model; rerank and chat unanswered unless a test programs them)."""

    def __init__(self, pg_admin_dsn: str, workdir: Path):
        self.pg_admin_dsn = pg_admin_dsn
        self.workdir = workdir
        self.made: list[ServiceSet] = []

    def _database(self, db: str, *, create: bool) -> None:
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.pg_admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(db)))
            if create:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db)))

    def __call__(self, name: str, mutate=None) -> ServiceSet:
        from elf_config import load_config

        fake = FakeProviderServer().start()
        fake.handle(EMBED_PATH, local_model_embeddings)
        data = tomllib.loads(TEST_CONFIG.read_text())
        db = f"elf_iso_{name}_{os.getpid()}"
        parts = urlsplit(data["storage"]["postgres"]["dsn"])
        data["storage"]["postgres"]["dsn"] = urlunsplit(parts._replace(path=f"/{db}"))
        data["storage"]["qdrant"]["collection"] = f"mem_notes_{db}"
        # Redis dbs 1-15 (db 0 belongs to the session's test stack and its live worker).
        data["worker"]["broker_url"] = data["worker"]["broker_url"].rsplit("/", 1)[0] + f"/{1 + next(_redis_dbs) % 15}"
        data["stack"]["data_dir"] = str(REPO / "var" / "test-stack")
        ports: set[int] = set()  # free_port() may hand out the same just-freed port twice (seen on a fresh clone)
        for key in ("http_bind", "admin_bind", "mcp_bind"):
            port = free_port()
            while port in ports:
                port = free_port()
            ports.add(port)
            data["service"][key] = f"127.0.0.1:{port}"
        for kind, path in (("embedding", EMBED_PATH), ("rerank", RERANK_PATH), ("llm_extractor", CHAT_PATH)):
            data["providers"][kind].update(provider_id="fake-http", api_base=fake.url, api_key="test-key", path=path)
        if mutate:
            mutate(data)
        workdir = self.workdir / name
        workdir.mkdir(parents=True, exist_ok=True)
        config_path = workdir / "elf.toml"
        config_path.write_text(dumps(data))
        self._database(db, create=True)
        s = ServiceSet(name, config_path, load_config(config_path), fake, workdir)
        self.made.append(s)
        return s

    def cleanup(self) -> None:
        from qdrant_client import QdrantClient

        for s in self.made:
            s.stop()
            s.fake.stop()
            client = QdrantClient(url=s.cfg.storage.qdrant.url, timeout=10)
            for name in (s.cfg.storage.qdrant.collection, s.cfg.storage.qdrant.docs_collection):
                if client.collection_exists(name):
                    client.delete_collection(name)
            client.close()
            self._database(urlsplit(s.cfg.storage.postgres.dsn).path.lstrip("/"), create=False)


def use_local_providers(data: dict) -> None:
    """A ServiceFactory ``mutate``: the test config's local providers (in-process ONNX embedder, local rerank
    and extractor) instead of the fake HTTP ones."""
    data["providers"] = tomllib.loads(TEST_CONFIG.read_text())["providers"]


@pytest.fixture
def isolated_services(test_stack, pg_admin_dsn, tmp_path):
    """Factory: ``isolated_services(name, mutate=None)`` -> ServiceSet (see ServiceFactory), cleaned up after."""
    factory = ServiceFactory(pg_admin_dsn, tmp_path)
    yield factory
    factory.cleanup()


@pytest.fixture(scope="module")
def isolated_services_module(test_stack, pg_admin_dsn, tmp_path_factory):
    """The same factory, shared by the tests of one module."""
    factory = ServiceFactory(pg_admin_dsn, tmp_path_factory.mktemp("iso"))
    yield factory
    factory.cleanup()


# --- elf-mcp: a real process on a config generated from the test config -----------------------------------


def write_mcp_config(path: Path, mutate=None) -> Path:
    """tests/elf.test.toml with elf-mcp on a free port and the stack's data_dir made absolute, then ``mutate``d."""
    data = tomllib.loads(TEST_CONFIG.read_text())
    data["stack"]["data_dir"] = str(REPO / "var" / "test-stack")
    data["service"]["mcp_bind"] = f"127.0.0.1:{free_port()}"
    if mutate:
        mutate(data)
    path.write_text(dumps(data))
    return path


def start_elf_mcp(config_path: Path, log_path: Path) -> tuple[LiveProcess, str]:
    """Start ``elf-mcp -c config_path``; returns the process and its MCP endpoint URL once /health answers."""
    data = tomllib.loads(config_path.read_text())
    base = f"http://{data['service']['mcp_bind']}"
    proc = LiveProcess([entry_point("elf-mcp"), "-c", str(config_path)], log_path)
    try:
        wait_http(base + "/health", 60, proc.proc)
    except AssertionError:
        proc.stop()
        raise AssertionError(proc.output()[-4000:]) from None
    return proc, base + "/mcp"


def mcp_session(url: str, steps):
    """``await steps(session)`` in an initialized session of the official MCP client (Streamable HTTP)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def run():
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await steps(session)

    return anyio.run(run)


def mcp_call(url: str, tool: str, arguments: dict | None = None):
    """One tool call in its own MCP session; returns the CallToolResult."""
    return mcp_session(url, lambda session: session.call_tool(tool, arguments or {}))


def start_elf_mcp_for(service_set, mcp_context: dict) -> tuple[LiveProcess, str]:
    """elf-mcp in front of an isolated ServiceSet's API (its binds, database and free mcp_bind), acting in
    ``mcp_context`` (the [mcp] table)."""
    data = tomllib.loads(service_set.config_path.read_text())
    data["mcp"] = dict(mcp_context)
    config = service_set.workdir / "elf-mcp.toml"
    config.write_text(dumps(data))
    return start_elf_mcp(config, service_set.workdir / "mcp.log")
