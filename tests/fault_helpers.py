"""Helpers for tests/ops/test_faults.py: a private embedded stack (its own Postgres, Redis and Qdrant on free ports and
its own data dir, so killing them touches no other test), its elf-api and elf-worker, a write load of keyed
notes that retries until acknowledged, and the module's tally of faults injected and writes lost.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import requests

from elf_config import load_config
from elf_config.toml_writer import dumps
from elf_infra.stack.postgres import PostgresComponent
from elf_infra.stack.procs import pid_alive, read_pidfile, wait_until
from elf_infra.stack.qdrant import QdrantComponent
from elf_infra.stack.redis import RedisComponent
from tests.conftest import (
    CHAT_PATH,
    EMBED_PATH,
    REPO,
    RERANK_PATH,
    TEST_CONFIG,
    FakeProviderServer,
    ServiceSet,
    free_port,
    local_model_embeddings,
)
from tests.notes_helpers import headers


@dataclass
class Tally:
    """What the module did and what it lost: printed at the end of tests/ops/test_faults.py."""

    faults: list[str] = field(default_factory=list)
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"faults injected: {len(self.faults)} ({', '.join(self.faults)}); acknowledged writes: "
                f"{self.acknowledged}; writes lost: {len(self.lost)}")


class FaultStack:
    """Postgres, Redis and Qdrant of elf-stack on their own ports and data dir, plus a ServiceSet (elf-api,
    elf-workers, a fake provider server whose embeddings come from the local MiniLM) configured for them."""

    def __init__(self, workdir: Path, mutate=None):
        pg, rd, qd = free_port(), free_port(), free_port()
        self.data_dir = REPO / "var" / f"faults-{pg}"  # under var/: the postgres system user must traverse it
        data = tomllib.loads(TEST_CONFIG.read_text())
        data["storage"]["postgres"]["dsn"] = f"postgresql://elf:faults-{pg}@127.0.0.1:{pg}/elf_faults"
        data["storage"]["qdrant"]["url"] = f"http://127.0.0.1:{qd}"
        data["worker"]["broker_url"] = f"redis://127.0.0.1:{rd}/0"
        data["stack"]["data_dir"] = str(self.data_dir)
        for key in ("http_bind", "admin_bind", "mcp_bind"):
            data["service"][key] = f"127.0.0.1:{free_port()}"
        self.fake = FakeProviderServer().start()
        self.fake.handle(EMBED_PATH, local_model_embeddings)
        for kind, path in (("embedding", EMBED_PATH), ("rerank", RERANK_PATH), ("llm_extractor", CHAT_PATH)):
            data["providers"][kind].update(
                provider_id="fake-http", api_base=self.fake.url, api_key="test-key", path=path
            )
        if mutate:
            mutate(data)
        workdir.mkdir(parents=True, exist_ok=True)
        config_path = workdir / "elf.toml"
        config_path.write_text(dumps(data))
        cfg = load_config(config_path)
        self.postgres = PostgresComponent(cfg.storage.postgres.dsn, self.data_dir)
        self.redis = RedisComponent(cfg.worker.broker_url, self.data_dir)
        self.qdrant = QdrantComponent(cfg.storage.qdrant.url, self.data_dir)
        self.services = ServiceSet("faults", config_path, cfg, self.fake, workdir)

    @property
    def cfg(self):
        return self.services.cfg

    def up(self) -> None:
        """The three servers, then elf-api and elf-worker started side by side (each applies the schema under
        the same advisory lock)."""
        for component in (self.postgres, self.redis, self.qdrant):
            component.up()
        errors: list[BaseException] = []

        def start(fn):
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - re-raised below, in the caller's thread
                errors.append(exc)

        threads = [
            threading.Thread(target=start, args=(fn,)) for fn in (self.services.start_api, self.services.start_worker)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    def down(self) -> None:
        """Kill everything (SIGKILL; Postgres an immediate shutdown) and delete the data dir: nothing here is
        kept, so nothing needs a graceful stop."""
        for proc in [*self.services.workers, *([self.services.api] if self.services.api else [])]:
            if proc.proc.poll() is None:
                os.killpg(proc.proc.pid, signal.SIGKILL)
                proc.proc.wait(10)
            proc.log.close()
        self.fake.stop()
        pids = [
            read_pidfile(self.qdrant.pidfile),
            read_pidfile(self.redis.pidfile),
            read_pidfile(self.postgres.pgdata / "postmaster.pid"),
        ]
        # SIGQUIT: immediate shutdown
        for pid, sig in zip(pids, (signal.SIGKILL, signal.SIGKILL, signal.SIGQUIT), strict=False):
            if pid:
                os.kill(pid, sig)
        wait_until(lambda: not any(pid and pid_alive(pid) for pid in pids), 15)
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def kill_qdrant(self) -> None:
        """SIGKILL the Qdrant server process (no shutdown of any kind)."""
        pid = read_pidfile(self.qdrant.pidfile)
        assert pid, "the private Qdrant is not running"
        os.kill(pid, signal.SIGKILL)
        assert wait_until(lambda: not pid_alive(pid), 10), "Qdrant survived SIGKILL"
        self.qdrant.pidfile.unlink(missing_ok=True)

    # --- reads ------------------------------------------------------------------------------------------
    def rows(self, query: str, params=()) -> list[tuple]:
        with psycopg.connect(self.cfg.storage.postgres.dsn) as conn:
            return conn.execute(query, params).fetchall()

    def wait_outboxes_done(self, timeout: float, tables=("indexing_outbox", "doc_indexing_outbox")) -> None:
        """Until no row of ``tables`` is left PENDING or FAILED."""
        query = " UNION ALL ".join(
            f"SELECT '{t}', status, count(*) FROM {t} WHERE status <> 'DONE' GROUP BY status" for t in tables
        )
        deadline = time.monotonic() + timeout
        while (left := self.rows(query)) and time.monotonic() < deadline:
            time.sleep(0.3)
        errors = (
            [
                self.rows(f"SELECT status, attempts, available_at, last_error FROM {t} WHERE status <> 'DONE' LIMIT 3")
                for t in tables
            ]
            if left
            else []
        )
        assert not left, f"outbox rows not DONE after {timeout}s: {left} {errors}"


def is_clear_503(response: requests.Response, codes: set[str]) -> bool:
    """A 503 with the spec's error body and one of ``codes``."""
    if response.status_code != 503:
        return False
    body = response.json()
    return body.get("error_code") in codes and isinstance(body.get("message"), str) and body.get("fields") == []


class WriteLoad:
    """``threads`` clients, each writing keyed notes (two per request, each in its own transaction) and every
    ``search_every``-th request a search, until stopped. A write is retried with the same payload until it is
    answered 200: the acknowledged results are what must be in the database afterwards, exactly once.

    Every response is recorded by status; a 503 must carry one of ``codes`` (anything else fails the test)."""

    def __init__(
        self,
        s: ServiceSet,
        tenant: str,
        *,
        threads: int = 6,
        codes: set[str],
        search_every: int = 4,
        per_request: int = 2,
        timeout: float = 30,
    ):
        self.s, self.tenant, self.codes, self.timeout = s, tenant, codes, timeout
        self.search_every, self.per_request = search_every, per_request
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()  # "write 200", "write 503", "search 503", "write error ConnectionError" ...
        self.bad: list[str] = []  # responses that are neither 200 nor a clear 503
        self.acked: dict[str, tuple[str, str, int]] = {}  # key -> (note_id, op, attempts it took)
        self.threads = [threading.Thread(target=self._client, args=(n,), daemon=True) for n in range(threads)]

    def start(self) -> WriteLoad:
        for t in self.threads:
            t.start()
        return self

    def stop(self) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(self.timeout * 3)
        assert not any(t.is_alive() for t in self.threads), "a client thread is stuck"

    def count(self, prefix: str) -> int:
        return sum(n for k, n in self.statuses.items() if k.startswith(prefix))

    def _record(self, what: str, response: requests.Response | None, error: Exception | None = None) -> bool:
        with self.lock:
            if response is None:
                self.statuses[f"{what} error {type(error).__name__}"] += 1
                return False
            self.statuses[f"{what} {response.status_code}"] += 1
            if response.status_code == 200:
                return True
            if not is_clear_503(response, self.codes):
                self.bad.append(f"{what} {response.status_code}: {response.text[:300]}")
            return False

    def _client(self, n: int) -> None:
        agent = f"writer-{n}"
        i = 0
        while not self.stop_event.is_set():
            i += 1
            if self.search_every and i % self.search_every == 0:
                self._search(agent)
                continue
            keys = [f"fault.{agent}.{i}.{j}" for j in range(self.per_request)]
            self._write_until_acked(agent, keys)

    def _write_until_acked(self, agent: str, keys: list[str]) -> None:
        body = {
            "scope": "agent_private",
            "notes": [
                {
                    "type": "fact",
                    "key": key,
                    "text": f"The fault drill wrote entry {key} for the ledger.",
                    "importance": 0.5,
                    "confidence": 0.9,
                }
                for key in keys
            ],
        }
        attempts = 0
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            attempts += 1
            try:
                r = requests.post(
                    self.s.public + "/v2/notes/ingest",
                    json=body,
                    headers=headers(agent, tenant=self.tenant),
                    timeout=self.timeout,
                )
            except requests.RequestException as exc:
                self._record("write", None, exc)
                time.sleep(0.2)
                continue
            if self._record("write", r):
                with self.lock:
                    for key, result in zip(keys, r.json()["results"], strict=False):
                        self.acked[key] = (result["note_id"], result["op"], attempts)
                return
            time.sleep(0.2)
        with self.lock:
            self.bad.append(f"write of {keys} never acknowledged within 90 s")

    def _search(self, agent: str) -> None:
        try:
            r = requests.post(
                self.s.public + "/v2/searches",
                json={"query": "fault drill ledger entry", "mode": "quick_find"},
                headers={**headers(agent, tenant=self.tenant), "X-ELF-Read-Profile": "private_only"},
                timeout=self.timeout,
            )
        except requests.RequestException as exc:
            self._record("search", None, exc)
            return
        self._record("search", r)


def lost_writes(stack: FaultStack, tenant: str, acked: dict[str, tuple[str, str, int]]) -> list[str]:
    """Acknowledged keys that are not in the database exactly once as the acknowledged note, with more than
    one note or another note id (a duplicate) counted as lost too."""
    found: dict[str, list[str]] = {}
    for key, note_id in stack.rows(
        "SELECT key, note_id::text FROM memory_notes WHERE tenant_id = %s AND key IS NOT NULL", (tenant,)
    ):
        found.setdefault(key, []).append(note_id)
    return [
        f"{key}: acknowledged {note_id} ({op}), stored {found.get(key, [])}"
        for key, (note_id, op, _) in acked.items()
        if found.get(key) != [note_id]
    ]
