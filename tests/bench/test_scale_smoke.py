"""elf-bench scale end to end at tiny sizes against an isolated service with the local providers: its markdown
tables (latency beside the floor, overlap@10, memory per process, disk per note, load rate) and its PNG plot."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import REPO, entry_point, use_local_providers


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("bench_scale", mutate=use_local_providers)
    s.start_api()
    return s


def md_rows(text: str, first_header: str) -> list[list[str]]:
    """The rows of the markdown table whose header starts with ``first_header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_elf_bench_scale_writes_its_tables_and_plot(svc, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([entry_point("elf-bench"), "scale", "-c", str(svc.config_path), "--sizes", "200",
                           "--tenants", "3x50", "--queries", "5", "--overlap-sample", "8", "--out", str(out),
                           "--vector-cache", str(tmp_path / "vectors"), "--ef-sweep", "4,64"],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "notes/s" in proc.stdout and "load average" in proc.stdout

    png = out / "scale.png"
    assert png.stat().st_size > 1000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    md = (out / "scale.md").read_text()
    assert "Notes: 350 distinct texts (bench.pair_notes)" in md  # the default: distinct notes, each embedded
    assert len(list((tmp_path / "vectors").glob("pair-notes-*-350-*.npy"))) == 1
    heading = "Dense leg by hnsw_ef at 200 notes, 1 tenant (8 questions after the overlap sample's"
    sweep = md.split(heading, 1)[1].split("```")[1].splitlines()
    efs = [line.split()[0] for line in sweep[3:] if line.strip()]
    assert efs == ["service", "4", "64"], sweep  # the service's ef (Qdrant's default below 250k points), then each
    assert all(0.0 <= float(line.split()[-4]) <= 1.0 for line in sweep[3:] if line.strip())
    latency = md_rows(md, "notes in collection")
    # notes in collection, tenants x notes, mode, n, server, client, floor, floor parts, server/floor, client/floor,
    # overlap, load
    assert [(r[0], r[1], r[2]) for r in latency] == [("200", "1 x 200", "quick_find"),
                                                     ("200", "1 x 200", "planned_search"),
                                                     ("350", "3 x 50", "quick_find"),
                                                     ("350", "3 x 50", "planned_search")]
    for r in latency:
        assert r[3] == "5"
        server_p50, floor_p50 = float(r[4].split(" / ")[0]), float(r[6].split(" / ")[0])
        assert server_p50 > 0 and floor_p50 > 0
        assert float(r[8].split(" / ")[0]) == pytest.approx(server_p50 / floor_p50, rel=0.05, abs=0.01)
        assert sum(float(x) for x in r[7].split(" / ")) == pytest.approx(floor_p50, rel=0.5)  # p50s of the parts
    overlaps = [float(r[10]) for r in latency if r[2] == "quick_find"]
    assert len(overlaps) == 2 and all(0.0 <= o <= 1.0 for o in overlaps)

    memory = md_rows(md.split("Memory of each process", 1)[1], "notes in collection")
    roles = {r[1] for r in memory}
    assert {"elf-api", "postgres", "qdrant", "all"} <= roles, roles
    assert all(float(r[3]) > 0 and float(r[4]) >= float(r[3]) for r in memory)  # PSS > 0 and PSS <= RSS

    disk = md_rows(md, "notes (Postgres)")
    assert [r[0] for r in disk] == ["200", "350"] and [r[3] for r in disk] == ["200", "350"]
    assert all(float(r[2].replace(",", "")) > 0 and float(r[5].replace(",", "")) > 0 for r in disk)

    load = md_rows(md, "stage")
    assert [r[1] for r in load] == ["200", "150"] and all(float(r[3].replace(",", "")) > 0 for r in load)
