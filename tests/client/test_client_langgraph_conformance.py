"""LangGraph's own store tests, run against elf_client.langgraph.ElfStore on the live test stack.

The tests are langgraph-checkpoint-sqlite's (tests/test_store.py and tests/test_async_store.py of its sdist, the
version pinned in pyproject.toml; the wheel has no tests): scripts/install.sh fetches the sdist into
var/langgraph-conformance, and nothing of it is copied into this repository. Their code runs unchanged; only the
store they get is ElfStore: the `store` fixture they take, and the stores they build themselves
(`SqliteStore.from_conn_string`, `AsyncSqliteStore.from_conn_string`, `create_vector_store`), each a fresh, empty
ElfStore (its own agent, whose private scope holds its items). Every test of both files is listed here, run or
skipped, and each skip says why; the test below fails when the suite holds a test this file does not list.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import itertools
import sys
import uuid
from contextlib import asynccontextmanager, contextmanager
from importlib.metadata import version
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from elf_client import ElfClient
from elf_client.langgraph import ElfStore

REPO = Path(__file__).resolve().parents[2]
SUITE_VERSION = version("langgraph-checkpoint-sqlite")
SUITE = REPO / "var" / "langgraph-conformance" / f"langgraph_checkpoint_sqlite-{SUITE_VERSION}" / "tests"

VECTOR = ("configures the store's own embedding function and checks the scores and index settings it yields; "
          "ElfStore has no store-side embeddings: ELF embeds with its configured model and searches with its own "
          "pipeline (query search is covered in tests/client/test_client_langgraph.py)")
SQLITE = "tests SqliteStore's internals (SQL text, glob escaping, migrations), not the BaseStore contract"

# test name -> None (run) or the reason it is skipped. Parametrized tests run for every parameter set.
SYNC_TESTS: dict[str, str | None] = {
    "test_batch_order": None,
    "test_batch_get_ops": None,
    "test_batch_put_ops": None,
    "test_batch_search_ops": None,
    "test_batch_list_namespaces_ops": None,
    "TestSqliteStore.test_basic_store_ops": None,
    "TestSqliteStore.test_list_namespaces": None,
    "TestSqliteStore.test_search": None,
    "test_vector_store_initialization": VECTOR,
    "test_vector_insert_with_auto_embedding": VECTOR,
    "test_vector_update_with_embedding": VECTOR,
    "test_vector_search_with_filters": VECTOR,
    "test_vector_search_pagination": VECTOR,
    "test_vector_search_edge_cases": VECTOR,
    "test_embed_with_path": VECTOR,
    "test_embed_with_path_operation_config": VECTOR,
    "test_scores": VECTOR,
    "test_nonnull_migrations": SQLITE,
    "test_basic_store_operations": None,
    "test_list_namespaces_operations": None,
    "test_search_items": None,
    "test_sql_injection_vulnerability": (
        "expects SqliteStore's ValueError 'Invalid filter key' for a filter key shaped like SQL; ElfStore builds no "
        "query text from filter keys (filters are evaluated on the parsed values), so such a key just matches "
        "nothing (the filter-value half of the same concern runs in test_sql_injection_filter_values)"),
    "test_sql_injection_filter_values": None,
    "test_numeric_filter_safety": None,
    "test_boolean_filter_safety": None,
    "test_filter_keys_with_hyphens_and_digits": None,
    "test_non_ascii": ("stores and searches Chinese, Japanese, Korean, Russian and Hindi text with the store's own "
                       "embeddings; ELF is English-only by specification (422 NON_ENGLISH_INPUT), see "
                       "tests/client/test_client_langgraph.py"),
    "test_escape_glob_literal": SQLITE,
    "test_namespace_match_pattern": SQLITE,
    "test_search_namespace_segment_boundary": None,
    "test_search_namespace_wildcard_chars_are_literal": None,
    "test_search_namespace_is_case_sensitive": None,
    "test_list_namespaces_segment_boundary": None,
    "test_search_empty_prefix_is_unconstrained": None,
    "test_namespace_labels_with_trailing_newline": None,
    "test_list_namespaces_prefix_uses_indexable_condition": SQLITE,
    "test_list_namespaces_metacharacter_labels": None,
    "test_batch_rejects_invalid_namespace_labels": None,
    "test_batch_allows_empty_search_prefix_and_listing_wildcards": None,
}
ASYNC_TESTS: dict[str, str | None] = {
    "test_no_running_loop": (
        "AsyncSqliteStore's sync methods refuse to run on the event loop's thread (InvalidStateError); ElfStore's "
        "sync methods use the blocking client and work on any thread, so there is nothing to refuse"),
    "test_large_batches_async": (
        "6,000 concurrent operations (2,000 writes, each an embedded note) against one live service on this "
        "machine's 2 cores: a load test, not a contract check (the same ops run at small scale in the tests "
        "above and in tests/client/test_client_langgraph.py)"),
    "test_abatch_order": None,
    "test_batch_get_ops": None,
    "test_batch_put_ops": None,
    "test_batch_search_ops": None,
    "test_batch_list_namespaces_ops": None,
    "test_vector_store_initialization": VECTOR,
    "test_vector_insert_with_auto_embedding": VECTOR,
    "test_vector_update_with_embedding": VECTOR,
    "test_vector_search_with_filters": VECTOR,
    "test_vector_search_pagination": VECTOR,
    "test_vector_search_edge_cases": VECTOR,
    "test_embed_with_path": VECTOR,
    "test_basic_store_ops": None,
    "test_list_namespaces": None,
    "test_search_items": None,
    "test_async_namespace_segment_boundary": None,
    "test_abatch_rejects_invalid_namespace_labels": None,
    "test_invalid_namespace_only_fails_its_own_call": None,
    "test_sync_methods_reject_invalid_namespace_labels": None,
}


class SuiteStore(ElfStore):
    """ElfStore as the suite's sync tests use a store: they call ``setup()`` first (nothing to set up here)."""

    def setup(self) -> None:
        pass


class AsyncSuiteStore(ElfStore):
    async def setup(self) -> None:
        pass


class Stores:
    """Fresh ElfStores for the suite: each its own agent in one tenant of the test stack."""

    client: ElfClient | None = None

    @classmethod
    def new(cls, kind: type[ElfStore] = SuiteStore) -> ElfStore:
        assert cls.client is not None, "the live stack is not up"
        return kind(cls.client.with_context(agent_id=f"lgc-{uuid.uuid4().hex[:12]}"))


class SqliteStoreShim:
    """Stands in for SqliteStore in the suite's module: from_conn_string yields an ElfStore (the connection
    string and any index config are SQLite's and ignored)."""

    @staticmethod
    @contextmanager
    def from_conn_string(conn_string: str, **kwargs: Any):
        store = Stores.new(SuiteStore)
        try:
            yield store
        finally:
            store.close()


class AsyncSqliteStoreShim:
    @staticmethod
    @asynccontextmanager
    async def from_conn_string(conn_string: str, **kwargs: Any):
        store = Stores.new(AsyncSuiteStore)
        try:
            yield store
        finally:
            await store.aclose()


def _load(name: str, alias: dict[str, ModuleType] | None = None) -> ModuleType:
    path = SUITE / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"langgraph_store_suite.{name}", path)
    module = importlib.util.module_from_spec(spec)
    # The suite imports its own modules as `tests.<name>`; ELF's tests/ is the package `tests` too, so the
    # names it needs are aliased while it loads, then removed.
    saved = {k: sys.modules.get(k) for k in alias or {}}
    sys.modules.update(alias or {})
    try:
        spec.loader.exec_module(module)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return module


def _suite() -> tuple[ModuleType, ModuleType] | None:
    if not (SUITE / "test_store.py").exists():
        return None
    sync = _load("test_store")
    sync.SqliteStore = SqliteStoreShim
    asynchronous = _load("test_async_store", {"tests.test_store": sync})
    asynchronous.AsyncSqliteStore = AsyncSqliteStoreShim
    return sync, asynchronous


MODULES = _suite()
MISSING = (f"LangGraph's store tests are not at {SUITE}: run scripts/install.sh (make install), which fetches "
           f"the langgraph-checkpoint-sqlite {SUITE_VERSION} sdist")


def _function(module: ModuleType, name: str):
    owner, _, attr = name.rpartition(".")
    if owner:
        cls = getattr(module, owner)
        return getattr(cls(), attr)
    return getattr(module, name)


def _collected(module: ModuleType) -> set[str]:
    names = {n for n, f in vars(module).items() if n.startswith("test_") and inspect.isfunction(f)}
    for cname, cls in vars(module).items():
        if cname.startswith("Test") and inspect.isclass(cls):
            names |= {f"{cname}.{n}" for n in vars(cls) if n.startswith("test_")}
    return names


def _cases(table: dict[str, str | None], module_index: int) -> list:
    """pytest params: (module index, test name, its parametrize arguments), skips marked with their reason."""
    params = []
    for name, reason in table.items():
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        arg_sets: list[dict[str, Any]] = [{}]
        if MODULES is not None and not reason:
            fn = _function(MODULES[module_index], name)
            for mark in getattr(fn, "pytestmark", []):
                if mark.name == "parametrize":
                    names = [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) \
                        else list(mark.args[0])
                    values = [v if len(names) > 1 else (v,) for v in mark.args[1]]
                    arg_sets = [
                        {**a, **dict(zip(names, v, strict=False))} for a, v in itertools.product(arg_sets, values)
                    ]
        for i, args in enumerate(arg_sets):
            pid = name if len(arg_sets) == 1 else f"{name}[{i}]"
            params.append(pytest.param(module_index, name, args, id=pid, marks=marks))
    return params


@pytest.fixture(scope="module")
def suite_client(live_api, live_worker):
    with ElfClient(live_api[0], tenant_id=f"lgc-{uuid.uuid4().hex[:8]}", project_id="p1", agent_id="suite") as c:
        Stores.client = c
        yield c
        Stores.client = None


def _arguments(module: ModuleType, fn, given: dict[str, Any], store: ElfStore) -> dict[str, Any]:
    args = dict(given)
    for name in inspect.signature(fn).parameters:
        if name == "store":
            args["store"] = store
        elif name == "fake_embeddings":  # only handed to create_vector_store, whose store is an ElfStore here
            args["fake_embeddings"] = module.CharacterEmbeddings(dims=500)
        elif name == "distance_type":
            args.setdefault("distance_type", "cosine")
    return args


def test_every_test_of_the_suite_is_listed():
    if MODULES is None:
        pytest.fail(MISSING)
    for module, table in zip(MODULES, (SYNC_TESTS, ASYNC_TESTS), strict=False):
        assert _collected(module) == set(table), f"classify the suite's tests of {module.__name__}"


@pytest.mark.parametrize("module_index,name,params", _cases(SYNC_TESTS, 0) + _cases(ASYNC_TESTS, 1))
def test_langgraph_store_suite(suite_client, module_index, name, params):
    if MODULES is None:
        pytest.fail(MISSING)
    module = MODULES[module_index]
    fn = _function(module, name)
    store = Stores.new(AsyncSuiteStore if module_index else SuiteStore)
    args = _arguments(module, fn, params, store)
    if inspect.iscoroutinefunction(fn):

        async def run():
            try:
                await fn(**args)
            finally:
                await store.aclose()

        asyncio.run(run())
    else:
        try:
            fn(**args)
        finally:
            store.close()
