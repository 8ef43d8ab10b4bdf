"""Retrieval quality in CI: the real `elf-eval` command on tests/data/eval_small.json against a live elf-api and
elf-worker with the local providers (in-process ONNX MiniLM, local rerank), both search modes in one run.
A retrieval regression that drops recall@10 below the floors fails here."""

from __future__ import annotations

import json
import subprocess
import tomllib

import psycopg
import pytest

from bench.eval_dataset import load_dataset
from bench.eval_small_build import OUT, build
from elf_config.toml_writer import dumps
from tests.conftest import REPO, TEST_CONFIG, entry_point, use_local_providers

DATASET = REPO / "tests" / "data" / "eval_small.json"
# Floors on overall recall@10, 2 points (2 queries) below what this dataset measured with the local providers and
# elf-eval's default notes (each turn with its neighbouring turns as context and its session time as
# observed_at: issue 32), the conversation cues (search.domain.conversation, speaker weight 0.3) and the speaker
# leg (elf_domain.speakers): quick_find 0.924, planned_search 0.950 on 423 items / 96 queries (ingest and search
# are deterministic, so the run-to-run spread is 0; the 2 points cover another CPU's float rounding). Without the
# leg: 0.929 / 0.929; with speaker weight 0.15: 0.908 / 0.934; before the cues: 0.851 / 0.887; before issue 32:
# 0.771 / 0.760. Both modes in
# one run take about 70 s here (planned_search's local rerank about 50 s of it), the whole module about 95 s.
FLOORS = {"quick_find": 0.90, "planned_search": 0.93}


def run_eval(config, *args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([entry_point("elf-eval"), "-c", str(config), "--dataset", str(DATASET), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("eval_small", mutate=use_local_providers)
    s.start_api()
    s.start_worker()
    return s


def test_eval_small_is_valid_and_matches_its_source():
    ds = load_dataset(DATASET)
    assert len(ds.conversations) == 4 and 400 <= ds.item_count <= 450 and 60 <= ds.query_count <= 100
    cats = {q.category_name for c in ds.conversations for q in c.queries}
    assert cats == {"single-hop", "multi-hop", "temporal", "open-domain"}
    assert OUT == DATASET and build() == DATASET.read_bytes(), "stale: run python -m bench.eval_small_build"


def test_recall_at_10_stays_above_the_floors_in_both_modes(svc, tmp_path):
    out = tmp_path / "eval.json"
    proc = run_eval(svc.config_path, "--mode", "quick_find", "--ab", "planned_search", "--json", str(out),
                    "--min-recall10", str(min(FLOORS.values())))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    ingest = result["targets"]["A"]["ingest"]
    assert ingest["items"] == 423 and ingest["rejected"] == [] and ingest["none"] == []
    assert ingest["split_items"] >= 3 and ingest["notes"] == ingest["items"] - ingest["split_items"] + ingest["parts"]
    recall = {arm["mode"]: arm["overall"]["recall@10"] for arm in result["arms"]}
    print("recall@10", recall, "seconds", result["seconds"])
    for mode, floor in FLOORS.items():
        assert recall[mode] >= floor, f"{mode} recall@10 {recall[mode]:.3f} fell below the floor {floor}"
    for arm in result["arms"]:
        assert arm["queries"] == 96 and set(arm["by_category"]) == {
            "single-hop",
            "multi-hop",
            "temporal",
            "open-domain",
        }
        assert arm["latency_ms"]["server"]["n"] == 96  # every response carried Server-Timing
    assert "recall@10" in proc.stdout and "planned_search" in proc.stdout
    # Cleanup: every note written was deleted through the API.
    assert result["targets"]["A"]["cleanup"]["deleted"] == ingest["notes"]
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        active = conn.execute(
            "SELECT count(*) FROM memory_notes WHERE tenant_id = %s AND status = 'active'", [ingest["tenant"]]
        ).fetchone()[0]
    assert active == 0


def test_a_recall_floor_above_the_result_exits_1(svc, tmp_path):
    out = tmp_path / "eval.json"
    proc = run_eval(
        svc.config_path,
        "--mode",
        "quick_find",
        "--limit-conversations",
        "1",
        "--limit-queries",
        "5",
        "--min-recall10",
        "1.01",
        "--json",
        str(out),
    )
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "below --min-recall10" in proc.stderr
    assert json.loads(out.read_text())["passed_min_recall10"] is False


def test_a_non_loopback_service_is_refused(tmp_path):
    data = tomllib.loads(TEST_CONFIG.read_text())
    data["service"]["http_bind"] = "192.0.2.10:8089"
    data["security"]["bind_localhost_only"] = False
    config = tmp_path / "elf.toml"
    config.write_text(dumps(data))
    proc = run_eval(config, "--limit-conversations", "1", timeout=60)
    assert proc.returncode == 2 and "loopback" in proc.stderr, proc.stderr


def tiny_dataset(path):
    long_turn = "Ben: " + " ".join(
        f"My garden has {c} tomatoes this year and I water them every evening."
        for c in ("red", "yellow", "green", "striped")
    )
    texts = {
        "t:D1:1": "Ana: I moved to Porto last spring and I love walking by the river.",
        "t:D1:2": "Ben: Je suis très content de te voir, nous allons au marché demain matin avec les enfants.",
        "t:D1:3": "Ana: You can write to me at ana.silva@example.org any time.",
        "t:D1:4": long_turn,
    }
    queries = [
        ("Where did Ana move?", "t:D1:1"),
        ("What colour are Ben's tomatoes?", "t:D1:4"),
        ("Where are they going tomorrow morning?", "t:D1:2"),
    ]
    path.write_text(
        json.dumps(
            {
                "format": "locomo_retrieval/v1",
                "conversations": [
                    {
                        "conversation_id": "tiny",
                        "items": [{"item_id": i, "text": t, "speaker": t.split(":")[0]} for i, t in texts.items()],
                        "queries": [
                            {
                                "query_id": f"tiny:q{n}",
                                "text": q,
                                "expected_item_ids": [e],
                                "category": 4,
                                "category_name": "single-hop",
                            }
                            for n, (q, e) in enumerate(queries)
                        ],
                    }
                ],
            }
        )
    )
    return path


def test_rejected_items_are_reported_by_reason_and_the_run_goes_on(svc, tmp_path):
    out = tmp_path / "eval.json"
    proc = subprocess.run(
        [
            entry_point("elf-eval"),
            "-c",
            str(svc.config_path),
            "--dataset",
            str(tiny_dataset(tmp_path / "tiny.json")),
            "--mode",
            "quick_find",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ingest = json.loads(out.read_text())["targets"]["A"]["ingest"]
    # The English gate refuses a whole request naming the note; elf-eval drops that note and sends the rest.
    assert ingest["rejected_by_reason"] == {"NON_ENGLISH_INPUT": 1, "REJECT_SECRET": 1}
    assert ingest["lost_items"] == ["t:D1:2", "t:D1:3"]
    assert (ingest["split_items"], ingest["parts"], ingest["ops"]["ADD"]) == (1, 2, 3)
    assert "REJECTED t:D1:2: NON_ENGLISH_INPUT" in proc.stderr and "2 notes REJECTED" in proc.stdout
    arm = json.loads(out.read_text())["arms"][0]
    assert arm["queries_with_unstored_evidence"] == 1
    # The long turn was split in two notes; a hit on either part is a hit on the item.
    assert arm["per_query"][1]["metrics"]["hit@10"] == 1.0


def test_a_service_that_is_not_running_fails_with_exit_3(tmp_path):
    from elf_infra.qdrant_server.launcher import free_port

    data = tomllib.loads(TEST_CONFIG.read_text())
    data["service"]["http_bind"] = f"127.0.0.1:{free_port()}"
    config = tmp_path / "elf.toml"
    config.write_text(dumps(data))
    proc = run_eval(config, "--limit-conversations", "1", timeout=60)
    assert proc.returncode == 3 and "FAILED" in proc.stderr, proc.stderr
