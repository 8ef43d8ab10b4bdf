"""Process sizing (docs/operations.md, "Sizing"): the [service] and [worker] keys that size elf-api and elf-worker, what
"auto" resolves to, the gunicorn and Celery settings derived from them, and the worker's lower CPU priority
seen from outside its processes."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from elf_config import ConfigError, load_config
from elf_config.rules import LOCAL_EMBEDDING_FLOAT32
from elf_config.sizing import Sizing, resolve_sizing
from elf_config.toml_writer import dumps
from tests.conftest import REPO, autogroups_enabled

EXAMPLE = tomllib.loads((REPO / "elf.toml.example").read_text())


def _load(tmp_path, service: dict | None = None, worker: dict | None = None, pool: int | None = None):
    data = copy.deepcopy(EXAMPLE)
    data["service"].update(service or {})
    data["worker"].update(worker or {})
    if pool is not None:
        data["storage"]["postgres"]["pool_max_conns"] = pool
    path = tmp_path / "elf.toml"
    path.write_text(dumps(data))
    return load_config(path)


def test_omitted_keys_are_auto_and_resolve_from_the_cores(tmp_path):
    cfg = _load(tmp_path)
    assert (cfg.service.api_workers, cfg.service.api_threads, cfg.service.api_embed_threads) == ("auto", 4, "auto")
    assert (cfg.worker.concurrency, cfg.worker.prefetch_multiplier, cfg.worker.nice, cfg.worker.embed_threads) == (
        "auto", 1, 10, "auto")
    # One gunicorn worker per core with one ONNX thread each (two for a batch call); one Celery process per two
    # cores with two.
    assert resolve_sizing(cfg, 2) == Sizing(api_workers=2, api_threads=4, api_embed_threads=1, worker_concurrency=1,
                                            worker_prefetch=1, worker_nice=10, worker_embed_threads=2,
                                            api_embed_batch_threads=2)
    assert resolve_sizing(cfg, 1) == Sizing(1, 4, 1, 1, 1, 10, 1, 1)
    assert resolve_sizing(cfg, 8) == Sizing(8, 4, 1, 4, 1, 10, 2, 2)


def test_explicit_values_are_used_and_auto_threads_follow_the_explicit_process_counts(tmp_path):
    cfg = _load(tmp_path, {"api_workers": 1, "api_threads": 8}, {"concurrency": 3, "prefetch_multiplier": 2, "nice": 0})
    assert resolve_sizing(cfg, 4) == Sizing(api_workers=1, api_threads=8, api_embed_threads=2, worker_concurrency=3,
                                            worker_prefetch=2, worker_nice=0, worker_embed_threads=1,
                                            api_embed_batch_threads=2)
    cfg = _load(tmp_path, {"api_embed_threads": 3}, {"embed_threads": 4})
    sizing = resolve_sizing(cfg, 2)
    assert (sizing.api_embed_threads, sizing.api_embed_batch_threads, sizing.worker_embed_threads) == (3, 3, 4)
    cfg = _load(tmp_path, {"api_embed_threads": 1})
    assert resolve_sizing(cfg, 2).api_embed_batch_threads == 1  # a set count holds for batches too


@pytest.mark.parametrize(
    ("service", "worker", "message"),
    [
        ({"api_workers": 0}, {}, 'service.api_workers must be "auto" or an integer in the range [1, 64]'),
        ({"api_workers": "many"}, {}, 'service.api_workers must be an integer or "auto"'),
        ({"api_workers": True}, {}, 'service.api_workers must be an integer or "auto"'),
        ({"api_embed_threads": 17}, {}, 'service.api_embed_threads must be "auto" or an integer in the range [1, 16]'),
        ({"api_threads": 0}, {}, "service.api_threads must be in the range [1, 64]"),
        ({"api_threads": "auto"}, {}, "service.api_threads must be an integer"),
        ({"api_threads": 11}, {}, "service.api_threads (11) must not exceed storage.postgres.pool_max_conns (10)"),
        ({}, {"concurrency": -1}, 'worker.concurrency must be "auto" or an integer in the range [1, 64]'),
        ({}, {"embed_threads": 0}, 'worker.embed_threads must be "auto" or an integer in the range [1, 16]'),
        ({}, {"prefetch_multiplier": 0}, "worker.prefetch_multiplier must be in the range [1, 16]"),
        ({}, {"nice": 20}, "worker.nice must be in the range [0, 19]"),
        ({}, {"nice": -5}, "worker.nice must be in the range [0, 19]"),
    ],
)
def test_invalid_sizing_stops_start_up_naming_the_key(tmp_path, service, worker, message):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, service, worker)
    assert any(message in p for p in err.value.problems), err.value.problems


def test_gunicorn_options_follow_the_config(tmp_path):
    from elf_project.entrypoints.api import gunicorn_options

    cfg = _load(tmp_path, {"api_workers": 3, "api_threads": 6})
    opts = gunicorn_options(cfg, resolve_sizing(cfg, 2), {"version": 1})
    assert opts["bind"] == [cfg.service.http_bind, cfg.service.admin_bind]
    assert (opts["workers"], opts["threads"]) == (3, 6)
    assert opts["worker_class"] == "elf_project.entrypoints.api_worker.RebalancingThreadWorker"
    assert opts["reuse_port"] is True  # each worker listens on its own socket
    assert opts["logconfig_dict"] == {"version": 1} and opts["preload_app"] is True


def test_the_api_master_freezes_the_preloaded_heap_before_each_fork(tmp_path):
    import gc

    from elf_project.entrypoints.api import gunicorn_options

    cfg = _load(tmp_path, {})
    hook = gunicorn_options(cfg, resolve_sizing(cfg, 2), {"version": 1})["pre_fork"]
    before = gc.get_freeze_count()
    try:
        hook(None, None)  # gunicorn calls pre_fork(server, worker)
        assert gc.get_freeze_count() > before  # what was alive is out of later collections
    finally:
        gc.unfreeze()


def test_each_api_worker_loads_the_local_model_before_its_first_request(tmp_path, monkeypatch):
    from elf_infra.providers import local_embedder
    from elf_project.entrypoints.api import gunicorn_options

    cfg = _load(tmp_path, {})
    hook = gunicorn_options(cfg, resolve_sizing(cfg, 2), {"version": 1})["post_worker_init"]
    monkeypatch.setattr("elf_project.entrypoints.warmup.warm_index_handles", lambda: None)  # test_api_warmup
    monkeypatch.setattr(local_embedder, "_shared", {})
    monkeypatch.setattr("elf_kernel.runtime.get_config", lambda: cfg)
    monkeypatch.setattr(local_embedder, "_intra_op_threads", 1)
    monkeypatch.setattr(local_embedder, "_batch_threads", 2)
    hook(None)  # gunicorn calls post_worker_init(worker)
    # the configured model, and no other
    assert list(local_embedder._shared) == [cfg.providers.embedding.model]
    pid, model = local_embedder._shared[cfg.providers.embedding.model]
    assert pid == os.getpid()
    # the int8-product model runs every text alone on one ONNX thread; a batch call runs two such at a time
    assert sorted(model._sessions) == [1] and model._pool is not None and model._batch_threads == 2

    http = copy.deepcopy(cfg)
    for p in (http.providers.embedding, http.providers.rerank):
        object.__setattr__(p, "provider_id", "openai")
    monkeypatch.setattr(local_embedder, "_shared", {})
    monkeypatch.setattr("elf_kernel.runtime.get_config", lambda: http)
    hook(None)
    assert local_embedder._shared == {}  # no local provider: nothing to load


def test_celery_worker_options_follow_the_config(tmp_path):
    from elf_project.entrypoints.worker import worker_options

    cfg = _load(tmp_path, worker={"concurrency": 3, "prefetch_multiplier": 4})
    opts = worker_options(cfg, resolve_sizing(cfg, 2))
    assert (opts["concurrency"], opts["prefetch_multiplier"], opts["beat"]) == (3, 4, True)


def test_set_embed_threads_reloads_the_model_with_that_many_onnx_threads(monkeypatch):
    from elf_infra.providers import local_embedder
    from elf_project.entrypoints.tuning import set_embed_threads

    loads = []

    class CountingModel(local_embedder.MiniLMOnnxModel):
        def __init__(self, **kwargs):
            loads.append(kwargs["intra_op_num_threads"])
            super().__init__(**kwargs)

    monkeypatch.setattr(local_embedder, "MiniLMOnnxModel", CountingModel)
    monkeypatch.setattr(local_embedder, "_shared", {})
    monkeypatch.setattr(local_embedder, "_intra_op_threads", 2)
    FLOAT32 = LOCAL_EMBEDDING_FLOAT32  # the model whose batches run on a session of their own
    monkeypatch.setattr(local_embedder, "_batch_threads", 2)
    first = local_embedder.shared_model(FLOAT32)
    set_embed_threads(1)
    second = local_embedder.shared_model(FLOAT32)
    assert loads == [2, 1] and second is not first
    set_embed_threads(1)  # unchanged: the loaded model stays
    assert local_embedder.shared_model(FLOAT32) is second and loads == [2, 1]
    set_embed_threads(1, 2)  # batches get two threads: a new model, whose batch calls run on two
    third = local_embedder.shared_model(FLOAT32)
    assert loads == [2, 1, 1] and third is not second
    assert [third.session_for(n).get_session_options().intra_op_num_threads for n in (1, 7, 8, 50)] == [1, 1, 2, 2]
    with pytest.raises(ValueError):
        set_embed_threads(0)


def test_entry_points_give_numpy_no_blas_thread_pool():
    """Whatever the environment says, a process that imports the entry points runs numpy without OpenBLAS's
    per-core thread pool (one thread in all here, the main one)."""
    code = "import os, elf_project.entrypoints.worker, numpy; print(len(os.listdir('/proc/self/task')))"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4"}
    bare = subprocess.run([sys.executable, "-c", "import os, numpy; print(len(os.listdir('/proc/self/task')))"],
                          env=env, capture_output=True, text=True, cwd=REPO, check=True)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=REPO, check=True)
    assert int(bare.stdout) > 1  # the check can fail: without the entry points, OpenBLAS starts its pool
    assert int(out.stdout) == 1


# --- live: the worker's priority seen from /proc ----------------------------------------------------------


def _stat(pid: int, tid: int | None = None) -> list[str]:
    path = f"/proc/{pid}/task/{tid}/stat" if tid else f"/proc/{pid}/stat"
    text = Path(path).read_text()
    return text[text.rindex(")") + 2 :].split()  # fields from the 3rd (state) on


def _nice(pid: int, tid: int | None = None) -> int:
    return int(_stat(pid, tid)[16])  # field 19 of proc(5): nice


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if int(_stat(int(d))[1]) == pid:
                    out.append(int(d))
            except (OSError, ValueError):
                continue
    return out


def _thread_nices(pid: int) -> set[int]:
    nices = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            nices.add(_nice(pid, int(tid)))
        except OSError:
            continue
    return nices


def test_worker_runs_every_process_and_thread_at_its_niceness_and_the_api_does_not(isolated_services):
    def sizing(data):
        data["worker"].update(nice=7, concurrency=2)
        data["service"].update(api_workers=3, api_threads=2)

    s = isolated_services("sizing", sizing)
    s.start_api()
    worker = s.start_worker()
    main = worker.proc.pid
    children = _children(main)
    # Celery's pool processes (worker.concurrency) and the embedded beat, all forked after the priority change.
    assert len(children) == 3, children
    for pid in [main, *children]:
        assert _nice(pid) == 7
        assert _thread_nices(pid) == {7}, (pid, _thread_nices(pid))
    assert "nice 7" in worker.output()
    # Started in a session of its own (as setsid does), the worker lowers its session's autogroup too, else the
    # kernel would share the cores between the API's session and the worker's whatever the threads' niceness.
    if autogroups_enabled():
        assert Path(f"/proc/{main}/autogroup").read_text().split()[-1] == "7"
        assert Path(f"/proc/{s.api.proc.pid}/autogroup").read_text().split()[-1] == "0"

    api_workers = _children(s.api.proc.pid)
    assert len(api_workers) == 3, api_workers  # service.api_workers
    for pid in [s.api.proc.pid, *api_workers]:
        assert _thread_nices(pid) == {0}
    assert "3 workers x 2 threads" in s.api.output()


def test_a_bind_another_process_listens_on_is_refused_before_start_up():
    import socket

    from elf_project.entrypoints.api import taken_binds

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        busy = f"127.0.0.1:{other.getsockname()[1]}"
        with socket.socket() as spare:
            spare.bind(("127.0.0.1", 0))
            free = f"127.0.0.1:{spare.getsockname()[1]}"
        assert taken_binds([free, busy]) == [busy]


def test_a_connection_goes_back_to_the_accept_queue_every_few_requests():
    from types import SimpleNamespace

    from gunicorn.workers.gthread import ThreadWorker

    from elf_project.entrypoints.api_worker import REQUESTS_PER_CONNECTION, RebalancingThreadWorker

    closing = []
    original = ThreadWorker.handle_request
    ThreadWorker.handle_request = lambda self, req, conn: closing.append(req.must_close) or True
    try:
        worker = RebalancingThreadWorker.__new__(RebalancingThreadWorker)
        for conn in (SimpleNamespace(), SimpleNamespace()):  # the client reconnects after the close
            for _ in range(REQUESTS_PER_CONNECTION):
                worker.handle_request(SimpleNamespace(must_close=False), conn)
    finally:
        ThreadWorker.handle_request = original
    assert [i + 1 for i, c in enumerate(closing) if c] == [REQUESTS_PER_CONNECTION, 2 * REQUESTS_PER_CONNECTION]
