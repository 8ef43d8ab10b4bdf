"""elf-bench concurrency --mix at a small size against an isolated service (local providers): the report has every
request kind beside its floor, the indexing lag sampled during each phase and the drain after it."""

from __future__ import annotations

import json
import subprocess

from bench.concurrency_mix import KINDS
from tests.conftest import REPO, entry_point, use_local_providers


def test_the_mix_reports_every_kind_the_lag_during_each_phase_and_the_drain(isolated_services_module, tmp_path):
    svc = isolated_services_module("bench_mix", mutate=use_local_providers)
    svc.start_api()
    svc.start_worker()
    out_json = tmp_path / "mix.json"
    proc = subprocess.run(
        [entry_point("elf-bench"), "concurrency", "--mix", "-c", str(svc.config_path), "--agents", "2",
         "--duration", "4", "--closed-duration", "3", "--think-s", "0.1", "--write-share", "0.75",
         "--seed-notes", "100", "--floor-n", "5", "--json", str(out_json)],
        capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert "100 team_shared notes seeded through the API" in out and "floors per request, in this process" in out
    report = json.loads(out_json.read_text())
    assert report["agents"] == 2 and set(report["floors"]) == set(KINDS)
    assert all(report["floors"][k]["p95"] > 0 for k in ("search", "add_note", "record_event"))
    assert list(report["phases"]) == ["paced", "closed loop"]
    for name, phase in report["phases"].items():
        assert phase["errors"] == [], phase["errors"]
        assert set(phase["client"]) == set(KINDS)
        assert all(phase["client"][k] for k in KINDS), {k: len(v) for k, v in phase["client"].items()}
        assert all(phase["server"][k] for k in KINDS), phase["server"]  # search;dur= and the writes' app;dur=
        # a lag sample a second, each naming every indexing outbox
        assert len(phase["lag"]) >= 2
        assert all(set(s["rows"]) == {"indexing_outbox", "doc_indexing_outbox"} for s in phase["lag"])
        assert phase["drained_s"] is not None and phase["left"] == 0
        assert f"{name}: 2 agents" in out
    assert out.count("indexing lag during the phase:") == 2 and out.count("0 rows left") == 2
    for kind in KINDS:
        assert out.count(f"  {kind} ") >= 2
