"""What elf-api does before a worker's first request (elf_project/entrypoints/warmup.py): the master imports the
views and qdrant-client's transport and loads the English gate's model before the fork; each worker then checks its
index collections. Without it, the first request of each new worker took 450-700 ms."""

from __future__ import annotations

import copy
import json
import logging
import os
import subprocess
import sys
import tomllib

from elf_config import load_config
from elf_config.toml_writer import dumps
from tests.conftest import REPO
from tests.qdrant_fixtures import client_for, qdrant_server  # noqa: F401

EXAMPLE = tomllib.loads((REPO / "elf.toml.example").read_text())

# Run in a new interpreter: this test process has imported the views long ago.
_MASTER = """
import json, sys
from elf_project.runtime import bootstrap
bootstrap(sys.argv[1])
from elf_domain import english_gate
watched = ["search.api.views", "memory.api.notes_views", "httpcore"]
before = {m: m in sys.modules for m in watched} | {"language model": english_gate._identifier is not None}
from elf_project.entrypoints.warmup import load_request_path
load_request_path()
after = {m: m in sys.modules for m in watched} | {"language model": english_gate._identifier is not None}
print(json.dumps({"before": before, "after": after}))
"""


def _config(tmp_path, qdrant_url: str = "http://127.0.0.1:6343"):
    data = copy.deepcopy(EXAMPLE)
    data["storage"]["qdrant"].update(url=qdrant_url, collection="warm_notes")
    path = tmp_path / "elf.toml"
    path.write_text(dumps(data))
    return path, load_config(path)


def test_the_master_imports_the_views_and_loads_the_language_model_before_the_fork(tmp_path):
    path, _ = _config(tmp_path)
    run = subprocess.run([sys.executable, "-c", _MASTER, str(path)], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    # Django setup alone leaves them for the first request: that is what the warm-up is for
    assert not any(seen["before"].values()), seen["before"]
    assert all(seen["after"].values()), seen["after"]


def test_each_worker_checks_its_index_collections_before_its_first_request(tmp_path, qdrant_server, monkeypatch):  # noqa: F811
    from elf_infra.index import collection
    from elf_project.entrypoints.warmup import warm_index_handles

    _, cfg = _config(tmp_path, qdrant_server.url)
    monkeypatch.setattr("elf_kernel.runtime.get_config", lambda: cfg)
    monkeypatch.setattr(collection, "_handles", {})
    warm_index_handles()
    ensured = {h.collection: h._ensured for k, h in collection._handles.items() if k[0] == os.getpid()}
    assert ensured == {"warm_notes": True, cfg.storage.qdrant.docs_collection: True}
    client = client_for(qdrant_server)
    try:  # the check is the one a search makes: a missing collection is created
        assert {c.name for c in client.get_collections().collections} == set(ensured)
    finally:
        client.close()


def test_a_worker_starts_while_qdrant_is_down_and_says_so(tmp_path, monkeypatch, caplog):
    from elf_infra.index import collection
    from elf_project.entrypoints.warmup import warm_index_handles

    _, cfg = _config(tmp_path, "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.setattr("elf_kernel.runtime.get_config", lambda: cfg)
    monkeypatch.setattr(collection, "_handles", {})
    with caplog.at_level(logging.WARNING, logger="elf.api"):
        warm_index_handles()  # no exception: the worker starts, its first request ensures the collection
    assert [h._ensured for h in collection._handles.values()] == [False, False]
    assert "warm_notes not checked before the first request" in caplog.text


def test_the_worker_hook_loads_the_model_and_then_the_index_handles(tmp_path, monkeypatch):
    from elf_config.sizing import resolve_sizing
    from elf_project.entrypoints import warmup
    from elf_project.entrypoints.api import gunicorn_options

    _, cfg = _config(tmp_path)
    calls = []
    monkeypatch.setattr(warmup, "warm_local_model", lambda worker: calls.append(("model", worker)))
    monkeypatch.setattr(warmup, "warm_index_handles", lambda: calls.append(("index", None)))
    hook = gunicorn_options(cfg, resolve_sizing(cfg, 2), {"version": 1})["post_worker_init"]
    hook("worker")
    assert calls == [("model", "worker"), ("index", None)]
