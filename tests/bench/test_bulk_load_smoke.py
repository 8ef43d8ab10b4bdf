"""elf-bench bulk-load end to end at 300 notes against an isolated service (a worker, the local embedder): the
import beside its COPY floor, the worker's drain and rebuild_qdrant beside the upsert floor, and nothing of the
bench tenants left behind."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import REPO, entry_point, use_local_providers
from tests.notes_helpers import rows


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("bench_bulk", mutate=use_local_providers)
    s.start_worker()
    return s


def md_rows(text: str, first_header: str) -> list[list[str]]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header}"))
    out = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        out.append([c.strip() for c in line.strip("|").split("|")])
    return out


def consistent(ratio: float, a: float, b: float) -> bool:
    """``ratio`` (two decimals) is a / b for some times that print as ``a`` and ``b`` (two decimals)."""
    low = (a - 0.005) / (b + 0.005)
    high = (a + 0.005) / (b - 0.005) if b > 0.005 else float("inf")
    return low - 0.005 <= ratio <= high + 0.005


def test_elf_bench_bulk_load_prints_each_rate_beside_its_floor_and_cleans_up(svc, tmp_path):
    proc = subprocess.run([entry_point("elf-bench"), "bulk-load", "-c", str(svc.config_path), "--notes", "300",
                           "--drain-seconds", "120", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    load = md_rows(proc.stdout, "load (300 notes, 1,800 rows)")
    assert [r[0] for r in load] == ["manage.py import_tenant (COPY)", "floor: COPY alone, same rows",
                                    "ratio import / floor"]
    import_s, floor_s = float(load[0][1]), float(load[1][1])
    assert import_s > 0 and floor_s > 0
    assert consistent(float(load[2][1].rstrip("x")), import_s, floor_s)

    searchable = md_rows(proc.stdout, "searchable (300 notes)")
    labels = [r[0] for r in searchable]
    assert labels[0].startswith("worker (") and labels[1].startswith("manage.py rebuild_qdrant (")
    assert labels[2] == "floor: Qdrant upsert of the same 300 points alone"
    assert "(300 points, all tenants)" in labels[1]  # the only notes of this database
    # Without --keep: no bench tenant, outbox row or export file is left.
    assert rows(svc, "SELECT count(*) FROM memory_notes")[0][0] == 0
    assert rows(svc, "SELECT count(*) FROM indexing_outbox")[0][0] == 0
    assert rows(svc, "SELECT count(*) FROM memory_note_versions")[0][0] == 0
    assert list(tmp_path.iterdir()) == []


def test_elf_bench_bulk_load_index_now_compares_rows_and_points_with_both_floors(svc, tmp_path):
    proc = subprocess.run([entry_point("elf-bench"), "bulk-load", "-c", str(svc.config_path), "--notes", "300",
                           "--index-now", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    load = md_rows(proc.stdout, "load (300 notes, 1,800 rows)")
    assert load[0][0] == "manage.py import_tenant --index-now (COPY, then the points)"
    assert load[1][0].startswith("floor: COPY alone (") and "+ Qdrant upsert of the 300 points alone (" in load[1][0]
    assert consistent(float(load[2][1].rstrip("x")), float(load[0][1]), float(load[1][1]))
    assert "searchable" not in proc.stdout  # the import made them searchable itself
    assert rows(svc, "SELECT count(*) FROM memory_notes")[0][0] == 0
    assert list(tmp_path.iterdir()) == []
