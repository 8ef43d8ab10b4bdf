"""elf-bench's floors: the ratio and ceiling arithmetic, the Server-Timing parsing, and (against an isolated
service with the local providers) the in-process search floor's re-validation query and the search,
add-note and concurrency commands end to end at small sizes, then the graph, core-memory, docs and acb parts."""

from __future__ import annotations

import re
import subprocess

import pytest
import requests

from bench.add_note_floor import Floor
from bench.concurrency_floor import MixFloor, mix
from bench.search_bench import AGENT, PROJECT, READ_PROFILE, Loader, query_sets, server_ms
from bench.search_floor import REVALIDATE, QueryFloor, SearchFloor, candidate_ids, ratio
from bench.server_timing import duration, timings, vector_cached
from bench.stats import table
from tests.conftest import REPO, entry_point, use_local_providers


def qf(embed: float, qdrant: float, pg: float, cpu: float | None = None) -> QueryFloor:
    return QueryFloor(embed, embed if cpu is None else cpu, qdrant, pg, candidates=60)


def test_a_query_floor_is_the_sum_of_its_parts_and_ratios_are_percentile_over_percentile():
    floors = [qf(4.0, 1.0, 1.0), qf(5.0, 1.0, 2.0), qf(8.0, 2.0, 10.0)]
    assert [f.total_ms for f in floors] == [6.0, 8.0, 20.0]
    assert qf(4.0, 1.0, 1.0, cpu=7.0).cpu_ms == 9.0  # the embedding's CPU (several threads) replaces its wall time
    server = [30.0, 12.0, 16.0]
    assert ratio(server, [f.total_ms for f in floors], 50) == 16.0 / 8.0
    assert ratio(server, [f.total_ms for f in floors], 95) == 30.0 / 20.0


def test_candidates_are_as_many_distinct_ids_as_fusion_keeps():
    assert candidate_ids(["a", "b", "c"], ["c", "d", "a", "e"], 4) == ["a", "b", "c", "d"]
    assert candidate_ids(["a"], [], 60) == ["a"]


def test_the_mix_ceiling_is_bounded_by_agents_then_by_cores():
    write = Floor(embed_s=0.8, postgres_s=0.2, notes=100, embed_cpu_s=1.2)  # 10 ms wall, 14 ms CPU per note
    search = [qf(5.0, 1.0, 1.0, cpu=8.0), qf(7.0, 1.0, 1.0, cpu=10.0)]  # 8 ms wall, 11 ms CPU on average
    m = mix(write, search, write_ratio=0.25, cores=2)
    assert m.wall_ms == pytest.approx(0.25 * 10 + 0.75 * 8)  # 8.5
    assert m.cpu_ms == pytest.approx(0.25 * 14 + 0.75 * 11)  # 11.75
    assert m.ceiling(1) == pytest.approx(1000 / 8.5)  # one agent: its requests one after the other
    assert m.ceiling(32) == pytest.approx(2000 / 11.75)  # many: the cores' CPU
    assert m.latency_ms(1) == pytest.approx(8.5)
    assert m.latency_ms(32) == pytest.approx(32 * 11.75 / 2)  # Little's law at the ceiling
    assert MixFloor(10.0, 10.0, 2).ceiling(2) == MixFloor(10.0, 10.0, 2).ceiling(3) == 200.0


def test_server_timing_is_read_by_name_whatever_entries_surround_it():
    assert server_ms({"Server-Timing": "search;dur=12.50"}) == 12.5
    assert server_ms({"Server-Timing": "recall;dur=3.1, search;dur=20.25, pg;dur=1.0"}) == 20.25
    assert server_ms({"Server-Timing": 'search;desc="all";dur=7'}) == 7.0
    with pytest.raises(RuntimeError, match="search;dur="):
        server_ms({"Server-Timing": "research;dur=5"})
    with pytest.raises(RuntimeError):
        server_ms({})
    assert timings({"Server-Timing": "search;dur=9, embed;dur=4.5, trace, total;dur=9"}) == {
        "search": 9.0, "embed": 4.5, "total": 9.0}
    # what the API sends now (a search's steps after it), and the other parts' entries, read by name by every bench
    assert duration({"Server-Timing": "search;dur=88.92, embed;dur=3.1, recall;dur=4.0, total;dur=88.92"},
                    "search") == 88.92
    assert duration({"Server-Timing": "resolve;dur=1.25"}, "resolve") == 1.25
    assert duration({"Server-Timing": "db;dur=0.5, acb;dur=12"}, "acb") == 12.0
    with pytest.raises(RuntimeError, match="no resolve;dur= entry"):
        duration({"Server-Timing": "search;dur=3"}, "resolve")
    assert vector_cached({"search": 5.0, "embed": 0.0}) and not vector_cached({"search": 9.0, "embed": 2.31})
    assert not vector_cached({"search": 9.0})  # a response without steps says nothing about the cache


def test_concurrency_searches_are_new_questions_unless_asked_to_repeat():
    """With one question to draw from, every search still gets a text of its own (no query-vector cache hit);
    --repeat-questions sends the bare question."""
    from argparse import Namespace

    from bench.concurrency_bench import Agent

    def sent(repeat: bool, index: int) -> list[str]:
        agent = Agent("http://127.0.0.1:9", "run1", index, ["t"], ["Where did Caroline move from?"],
                      Namespace(repeat_questions=repeat))
        bodies = []
        agent._request = lambda kind, path, body: bodies.append(body["query"])
        for _ in range(3):
            agent.search()
        return bodies

    fresh = sent(False, 0) + sent(False, 1)
    assert len(set(fresh)) == 6 and all(q.startswith("Where did Caroline move from? #run1-") for q in fresh)
    assert sent(True, 0) == ["Where did Caroline move from?"] * 3


def test_every_pass_gets_questions_of_its_own():
    warm, sets, repeats = query_sets(50, 6)
    assert len(warm) == 5 and [len(s) for s in sets] == [50] * 6 and not repeats
    flat = warm + [q for s in sets for q in s]
    assert len(set(flat)) == len(flat)
    _, sets, repeats = query_sets(1000, 3)
    assert repeats and all(len(s) == 1000 for s in sets)


def test_table_aligns_columns():
    lines = table(["mode", "p50"], [["quick_find", "1.5"], ["planned_search", "120.0"]])
    assert lines[0] == "mode              p50"
    assert lines[2] == "quick_find        1.5"
    assert lines[3] == "planned_search  120.0"


# --- against an isolated service -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("bench_floors", mutate=use_local_providers)
    s.start_api()
    s.start_worker()
    return s


def test_the_floor_revalidates_with_the_read_rule(svc):
    tenant = "floor-t1"
    Loader(svc.cfg, tenant, distinct=50).load_to(50)
    floor = SearchFloor(svc.cfg, tenant=tenant, project=PROJECT, agent=AGENT, read_profile=READ_PROFILE)
    try:
        f = floor.measure("What did Caroline research?")
        assert f.candidates == 50 and f.rows == 50  # every note is its one chunk, active and the caller's own
        assert f.embed_ms > 0 and f.qdrant_ms > 0 and f.postgres_ms > 0
        ids = [r[0] for r in floor.conn.execute("SELECT c.chunk_id FROM memory_note_chunks c JOIN memory_notes n "
                                                "ON n.note_id = c.note_id WHERE n.tenant_id = %s", [tenant])]
        rows = lambda **p: floor.conn.execute(REVALIDATE, {**floor.params, "chunks": ids, **p}).fetchall()  # noqa: E731
        assert len(rows()) == 50
        assert rows(agent="agent-1") == []  # another agent's private notes
        assert rows(tenant="floor-t2") == []
        floor.conn.execute("UPDATE memory_notes SET status = 'deleted' WHERE note_id = "
                           "(SELECT note_id FROM memory_note_chunks WHERE chunk_id = %s)", [ids[0]])
        floor.conn.execute("UPDATE memory_notes SET expires_at = now() - interval '1 day' WHERE note_id = "
                           "(SELECT note_id FROM memory_note_chunks WHERE chunk_id = %s)", [ids[1]])
        assert len(rows()) == 48
    finally:
        floor.close()


def bench(svc, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run([entry_point("elf-bench"), *args[:1], "-c", str(svc.config_path), *args[1:]],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_elf_bench_search_prints_each_mode_beside_its_floor(svc):
    out = bench(svc, "search", "--sizes", "100,200", "--queries", "6").stdout
    for size in (100, 200):
        assert f"search @ {size} notes, 6 questions per mode" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("quick_find ", "planned_search "))]
    assert [r[0] for r in rows] == ["quick_find", "planned_search"] * 2
    for r in rows:
        # mode n server(p50 / p95) client(p50 / p95) embed qdrant pg floor(p50 / p95) server/floor client/floor
        assert r[1] == "6" and len(r) == 20
        server_p50, floor_p50, share_p50 = float(r[2]), float(r[11]), float(r[14])
        assert floor_p50 > 0 and share_p50 == pytest.approx(server_p50 / floor_p50, rel=0.02, abs=0.01)
    assert "Qdrant engine time" in out and "candidates re-validated per query p50 " in out
    assert out.count("none repeated in this run; load average") == 2 and "service's cache" not in out
    # The same questions again on the same elf-api: its query-vector caches (one per API process; a fresh
    # connection lands on either) answer them, and the bench says so.
    warm, sets, _ = query_sets(6, 2)
    for q in sets[0] + sets[1]:
        for _ in range(8):
            r = requests.post(f"{svc.public}/v2/searches", json={"query": q, "mode": "quick_find"}, timeout=60,
                              headers={"X-ELF-Tenant-Id": "floor-t3", "X-ELF-Project-Id": PROJECT,
                                       "X-ELF-Agent-Id": AGENT, "X-ELF-Read-Profile": READ_PROFILE,
                                       "Connection": "close"})
            assert r.status_code == 200, r.text
    again = bench(svc, "search", "--sizes", "100", "--queries", "6").stdout
    cached = re.search(r"none repeated in this run; (\d+) of 12 query vectors came from the service's cache", again)
    assert cached and int(cached.group(1)) >= 6, again


def test_elf_bench_add_note_says_when_every_note_was_searchable(svc):
    out = bench(svc, "add-note", "--notes", "60", "--single", "10", "--batch", "25", "--probes", "1").stdout
    found = re.search(r"^(\d+) notes searchable [0-9.]+ s after the last write returned", out, re.M)
    assert found and 50 <= int(found.group(1)) <= 60, out  # ADDs (a near-duplicate may be an UPDATE or NONE)
    assert f"reaching its {found.group(1)} chunks in Postgres ({found.group(1)} active notes)" in out
    assert "ingest-to-searchable (one note, idle queue, n=1)" in out
    # the floor's rows were kept through the writes (deleting them first slowed those) and removed at the end
    import psycopg

    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        left = conn.execute("SELECT count(*) FROM memory_notes WHERE tenant_id ~ '^floor-[0-9a-f]{8}$'").fetchone()[0]
    assert left == 0


def test_elf_bench_concurrency_prints_each_level_beside_its_ceiling(svc):
    out = bench(
        svc,
        "concurrency",
        "--agents",
        "1,2",
        "--duration",
        "3",
        "--max-ops",
        "8",
        "--seed-notes",
        "1",
        "--floor-n",
        "10",
    ).stdout
    assert "floor per request, in this process (n=10 each)" in out
    levels = [line for line in out.splitlines() if line.startswith("concurrency ")]
    assert len(levels) == 2 and all("| floor: ceiling " in line and "errors=0" in line for line in levels)
    # Each level started on a quiet service (its seeding indexed, no trace pending) and says what it left.
    waits = re.findall(
        r"started after [0-9.]+ s of waiting for the service to be quiet \((\w+)\); left behind: "
        r"(\d+) indexing and (\d+) trace outbox rows pending",
        out,
    )
    assert [w[0] for w in waits] == ["quiet", "quiet"], out
    # Each search is a question of its own (tagged), so the query-vector cache answered none of them.
    cached = re.findall(r"^  (\d+) of (\d+) searches took their query vector from the service's cache", out, re.M)
    assert len(cached) == 2 and all(c[0] == "0" for c in cached) and sum(int(c[1]) for c in cached) > 0, out


def test_the_quiet_wait_sees_pending_outbox_rows_and_their_end(svc):
    """bench.quiet counts what the worker still has to do: an add_note's indexing row is pending until the
    worker indexed it, then the service is quiet."""
    from bench.quiet import backlog, wait_quiet
    from tests.notes_helpers import ingest, note

    for worker in svc.workers:
        worker.stop()
    svc.workers.clear()
    try:
        assert ingest(svc, [note("Fact: the quiet wait counts this note's indexing.")]).status_code == 200
        assert backlog(svc.cfg).indexing >= 1 and not backlog(svc.cfg).quiet
    finally:
        svc.start_worker()
    waited, after = wait_quiet(svc.cfg, timeout_s=60)
    assert after.quiet and after.indexing == after.traces == 0, after


def test_elf_bench_graph_core_memory_acb_and_docs_run_at_small_sizes(svc):
    """The other parts of `elf-bench -c` end to end: each reads its own Server-Timing entry by name among the
    others the API sends (the graph part once split on the first ``dur=`` and died on a search's step list)."""
    out = bench(svc, "graph", "--notes", "40", "--facts", "80", "--queries", "4", "--rounds", "1").stdout
    assert re.search(
        r"^quick_find server: graph_context on p50=[0-9.]+ ms .* \| off \(floor\) p50=[0-9.]+ ms", out, re.M
    )
    assert re.search(r"relation_context holds [1-9][0-9.]* facts per returned item", out), out
    out = bench(svc, "core-memory", "--n", "5", "--warmup", "1").stdout
    assert (
        len(re.findall(r"^resolve .* server p50=[0-9.]+ ms .* \| floor \(one SQL query in-process\)", out, re.M)) == 2
    )
    out = bench(svc, "docs", "--docs", "3", "--queries", "3", "--timeout", "120").stdout
    assert re.search(r"^docs_search_l0 \(n=3\): p50=[0-9.]+ ms .* \| floor", out, re.M), out
    out = bench(
        svc,
        "acb",
        "--events-session",
        "100",
        "--events-tenant",
        "300",
        "--per-session",
        "100",
        "--batch",
        "300",
        "--n",
        "4",
        "--agents",
        "2",
        "--agent-n",
        "2",
        "--single-n",
        "2",
        "--restarts",
        "1",
    ).stdout
    assert "| retrieval path (server) |" in out and "no Server-Timing" not in out, out
