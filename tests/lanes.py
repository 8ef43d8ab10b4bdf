"""Test lanes: every collected test gets one of the registered markers `unit` or `stack`, plus `browser` and `slow`
where they apply (pyproject.toml registers them; tests/README.md explains the lanes).

- `stack`: the test needs real services: the test stack (Postgres, Redis, Qdrant of tests/elf.test.toml), directly
  or through a fixture (`test_stack` in its fixture closure, or pytest-django's database access), or a server it
  starts itself (`qdrant_server`, SERVICE_MODULES).
- `unit`: everything else: pure rules, config parsing, in-process code, fakes served over HTTP by the test itself.
  `make test-fast` runs this lane alone, with no stack started (its CI check runs it where no service answers).
- `browser`: drives Debian's chromium (tests/admin/test_admin_browser.py); always `stack` too.
- `slow`: a test module whose tests take more than about 10 s each on this machine (SLOW_MODULES, from
  `pytest --durations`), so `-m "stack and not slow"` is a quicker stack lane while working.

Markers are decided here, from the fixture closure, rather than written on each test, so a new test that asks
for a stack fixture cannot land in the fast lane by a forgotten decorator.
"""

from __future__ import annotations

import pytest

STACK_FIXTURES = frozenset({"test_stack", "django_db_setup", "_django_db_helper"})
# Fixtures that start a real service of their own (an embedded Qdrant server on a temporary directory).
SERVICE_FIXTURES = frozenset({"qdrant_server"})
BROWSER_MODULES = frozenset({"test_admin_browser"})
# Modules whose every test belongs to the stack lane although some ask for no stack fixture: a summary test that
# reads what the module's stack tests recorded.
STACK_MODULES = frozenset({"test_fuzz_openapi"})
# Modules that start and stop their own stacks or server processes (elf-stack's lifecycle, faults injected into a
# stack of their own, the Qdrant server process): real services, so not the unit lane.
SERVICE_MODULES = frozenset({"test_faults", "test_stack_lifecycle", "test_qdrant_server_process"})
SLOW_MODULES = frozenset({
    "test_bench_floors", "test_tenant_isolation", "test_lexical_scope", "test_event_log_encryption",
    "test_export_import", "test_faults", "test_search_ranking_formula", "test_backup_restore",
    "test_stack_lifecycle", "test_supersede_eval", "test_worker_db_reuse", "test_indexing_crash",
    "test_eval_small", "test_fuzz_openapi", "test_bulk_import", "test_bulk_load_smoke", "test_concurrency_mix_smoke",
})


def needs_stack(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    return bool(names & (STACK_FIXTURES | SERVICE_FIXTURES)) or item.get_closest_marker("django_db") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if getattr(item, "module", None) else ""
        stack = needs_stack(item) or module in BROWSER_MODULES | STACK_MODULES | SERVICE_MODULES
        item.add_marker(pytest.mark.stack if stack else pytest.mark.unit)
        if module in BROWSER_MODULES:
            item.add_marker(pytest.mark.browser)
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
