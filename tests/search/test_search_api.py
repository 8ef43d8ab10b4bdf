"""Search over real HTTP on an isolated stack: isolation, Postgres re-validation, filters, modes,
expansion and rerank caches, sessions, traces (spec v2 sections 13-15)."""

from __future__ import annotations

import json
import time
import uuid

import psycopg
import pytest
import requests

from tests.conftest import CHAT_PATH, RERANK_PATH
from tests.fake_provider_server import FakeResponse, chat_completion
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed
from traces.domain.trace_payload import STAGE_NAMES


def _rerank(request):
    words = set(request.json["query"].lower().split())
    scores = [len(words & set(d.lower().split())) / (1 + len(words)) for d in request.json["documents"]]
    return FakeResponse(json={"results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]})


def _expansion(request):
    user = request.json["messages"][-1]["content"]
    query = user.rsplit("Original query:\n", 1)[1].strip()
    return FakeResponse(json=chat_completion(json.dumps({"queries": [query, f"What is known about {query}?"]})))


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["search"]["expansion"]["mode"] = "always"
    s = isolated_services_module("search", mutate)
    s.fake.handle(RERANK_PATH, _rerank)
    s.fake.handle(CHAT_PATH, _expansion)
    s.start_api()
    s.start_worker()
    notes = {
        "a1_private": (note("Fact: the billing service runs on port 8443."), "agent_private", "a1", "p1", "t1"),
        "a2_private": (
            note("Fact: the billing service password rotates monthly on the first."),
            "agent_private",
            "a2",
            "p1",
            "t1",
        ),
        "shared": (
            note("Decision: billing moves to the new cluster in March.", type="decision", importance=0.9),
            "project_shared",
            "a1",
            "p1",
            "t1",
        ),
        "other_project": (
            note("Fact: the billing service in project two runs on port 9000."),
            "agent_private",
            "a1",
            "p2",
            "t1",
        ),
        "other_tenant": (
            note("Fact: the billing service of another tenant runs on port 7000."),
            "agent_private",
            "a1",
            "p1",
            "t2",
        ),
        "low": (note("Fact: billing reports are archived yearly.", importance=0.1), "agent_private", "a1", "p1", "t1"),
    }
    s.ids = {}
    for name, (n, scope, agent, project, tenant) in notes.items():
        res = ingest(s, [n], scope=scope, agent=agent, project=project, tenant=tenant).json()["results"][0]
        assert res["op"] == "ADD", res
        s.ids[name] = res["note_id"]
    for nid in s.ids.values():
        wait_indexed(s, nid)
    return s


def search(svc, query="billing service", *, agent="a1", profile="all_scopes", admin=False, **body):
    url = (svc.admin + "/v2/admin/searches/raw") if admin else (svc.public + "/v2/searches")
    return requests.post(
        url, json={"query": query, **body}, headers={**headers(agent), "X-ELF-Read-Profile": profile}, timeout=60
    )


def ids(response) -> set[str]:
    return {i["note_id"] for i in response.json()["items"]}


def test_isolation_by_agent_tenant_and_project(svc):
    got = ids(search(svc, mode="quick_find"))
    assert svc.ids["a1_private"] in got and svc.ids["shared"] in got
    assert not got & {svc.ids["a2_private"], svc.ids["other_project"], svc.ids["other_tenant"]}
    # a2 sees its own private note, not a1's; the shared note needs a grant
    got2 = ids(search(svc, agent="a2", mode="quick_find"))
    assert svc.ids["a2_private"] in got2 and svc.ids["a1_private"] not in got2 and svc.ids["shared"] not in got2
    private_only = ids(search(svc, profile="private_only", mode="quick_find"))
    assert svc.ids["shared"] not in private_only


def test_postgres_revalidation_drops_stale_index_entries(svc):
    nid = ingest(svc, [note("Fact: the billing cache warms at midnight.")]).json()["results"][0]["note_id"]
    wait_indexed(svc, nid)
    assert nid in ids(search(svc, "billing cache midnight", mode="quick_find"))
    # Expire it behind Qdrant's back: Qdrant still holds the points, Postgres says no.
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        conn.execute("UPDATE memory_notes SET expires_at = now() - interval '1 second' WHERE note_id = %s", (nid,))
    assert nid not in ids(search(svc, "billing cache midnight", mode="quick_find"))
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        conn.execute("UPDATE memory_notes SET expires_at = NULL, status = 'deleted' WHERE note_id = %s", (nid,))
    assert nid not in ids(search(svc, "billing cache midnight", mode="quick_find"))


def trajectory(svc, trace_id: str, hdr: dict | None = None) -> dict:
    """GET /v2/admin/trajectories/{trace_id} (as ``hdr``, default ``headers()``) once the worker has persisted it."""
    deadline = time.monotonic() + 30
    while True:
        got = requests.get(f"{svc.admin}/v2/admin/trajectories/{trace_id}", headers=hdr or headers(), timeout=10)
        if got.status_code == 200 or time.monotonic() > deadline:
            assert got.status_code == 200, got.text
            return got.json()
        time.sleep(0.3)


def test_filter_applies_and_reports_impact(svc):
    flt = {"schema": "search_filter_expr/v1", "expr": {"op": "gte", "field": "importance", "value": 0.5}}
    r = search(svc, mode="quick_find", filter=flt, admin=True, candidate_k=20, top_k=5)
    assert r.status_code == 200, r.text
    got = ids(r)
    assert svc.ids["low"] not in got and svc.ids["shared"] in got
    # The recall stage of the trajectory carries filter_impact (supplement section 1); no stage of its own.
    stages = trajectory(svc, r.json()["trace_id"])["stages"]
    assert "filter.expr" not in [s["stage_name"] for s in stages]
    recall_stage = next(s for s in stages if s["stage_name"] == "recall.hybrid")
    impact = recall_stage["stage_payload"]["filter_impact"]
    assert recall_stage["stage_payload"]["limit"] == impact["effective_candidate_k"] == 60
    assert impact["schema"] == "search_filter_impact/v1" and impact["requested_candidate_k"] == 20
    assert impact["filter"] == flt
    # a1 reads its two private notes and the shared one; "low" (importance 0.1) is the one dropped
    assert (impact["candidate_count_pre"], impact["candidate_count_post"], impact["dropped_total"]) == (3, 2, 1)
    assert impact["top_drop_reasons"] == [{"reason": "gte:importance", "count": 1}]
    unfiltered = trajectory(svc, search(svc, mode="quick_find", admin=True).json()["trace_id"])["stages"]
    assert next(s for s in unfiltered if s["stage_name"] == "recall.hybrid")["stage_payload"]["filter_impact"] is None


@pytest.mark.parametrize(
    "flt,path",
    [
        (
            {"schema": "search_filter_expr/v2", "expr": {"op": "eq", "field": "type", "value": "fact"}},
            "$.filter.schema",
        ),
        (
            {"schema": "search_filter_expr/v1", "expr": {"op": "eq", "field": "colour", "value": "x"}},
            "$.filter.expr.field",
        ),
        (
            {
                "schema": "search_filter_expr/v1",
                "expr": {
                    "op": "and",
                    "args": [
                        {"op": "eq", "field": "type", "value": "fact"},
                        {"op": "gt", "field": "importance", "value": "high"},
                    ],
                },
            },
            "$.filter.expr.args[1].value",
        ),
    ],
    ids=["schema", "field", "nested-value"],
)
def test_filter_errors_have_exact_jsonpaths(svc, flt, path):
    r = search(svc, filter=flt)
    assert r.status_code == 400 and r.json()["fields"] == [path]


def test_non_english_query_is_422(svc):
    r = search(svc, "платежный сервис")
    assert r.status_code == 422 and r.json()["fields"] == ["$.query"]


def test_missing_read_profile_is_400(svc):
    r = requests.post(svc.public + "/v2/searches", json={"query": "billing"}, headers=headers(), timeout=10)
    assert r.status_code == 400 and r.json()["fields"] == ["$.headers.X-ELF-Read-Profile"]


def test_quick_find_never_calls_llm_or_rerank(svc):
    before = (len(svc.fake.requests_to(CHAT_PATH)), len(svc.fake.requests_to(RERANK_PATH)))
    assert search(svc, "billing port", mode="quick_find").status_code == 200
    assert (len(svc.fake.requests_to(CHAT_PATH)), len(svc.fake.requests_to(RERANK_PATH))) == before


def test_expansion_and_rerank_caches(svc):
    query = f"billing cluster move {uuid.uuid4().hex[:6]}"
    chat0, rerank0 = len(svc.fake.requests_to(CHAT_PATH)), len(svc.fake.requests_to(RERANK_PATH))
    first = search(svc, query, mode="planned_search", admin=True)
    assert first.status_code == 200, first.text
    assert len(svc.fake.requests_to(CHAT_PATH)) == chat0 + 1
    assert len(svc.fake.requests_to(RERANK_PATH)) == rerank0 + 1
    second = search(svc, query, mode="planned_search", admin=True)
    assert second.status_code == 200
    assert len(svc.fake.requests_to(CHAT_PATH)) == chat0 + 1, "expansion cache hit must not call the LLM"
    assert len(svc.fake.requests_to(RERANK_PATH)) == rerank0 + 1, "rerank cache hit must not call the reranker"
    assert [i["note_id"] for i in first.json()["items"]] == [i["note_id"] for i in second.json()["items"]]


def test_explain_terms_add_up(svc):
    r = search(svc, mode="planned_search", admin=True)
    for item in r.json()["items"]:
        terms = item["explain"]["ranking"]["terms"]
        # Only computed terms are listed: the rank blend's (the default formula), no always-zero ones.
        assert [t["name"] for t in terms] == ["blend.retrieval", "blend.rerank", "tie_breaker", "context.scope_boost"]
        assert sum(t["value"] for t in terms) == pytest.approx(item["final_score"])
        assert item["explain"]["ranking"]["policy_id"].startswith("ranking_v2:rank_blend:")
        assert "billing" in item["explain"]["match"]["matched_terms"]


def test_session_lifecycle(svc):
    r = search(svc, mode="quick_find")
    assert r.status_code == 200 and "Server-Timing" in r.headers
    body = r.json()
    sid = body["search_id"]
    assert body["items"] and {"note_id", "summary", "final_score"} <= set(body["items"][0])
    got = requests.get(f"{svc.public}/v2/searches/{sid}", params={"top_k": 1}, headers=headers(), timeout=10).json()
    assert len(got["items"]) == 1 and got["items"][0]["note_id"] == body["items"][0]["note_id"]
    assert got["expires_at"] >= body["expires_at"]
    tl = requests.get(f"{svc.public}/v2/searches/{sid}/timeline", headers=headers(), timeout=10).json()
    assert sum(len(g["items"]) for g in tl["groups"]) == len(body["items"])
    assert (
        requests.get(
            f"{svc.public}/v2/searches/{sid}/timeline", params={"group_by": "none"}, headers=headers(), timeout=10
        ).json()["groups"][0]["date"]
        == "all"
    )
    first = body["items"][0]["note_id"]
    hits_before = rows(svc, "SELECT hit_count FROM memory_notes WHERE note_id = %s", (first,))[0][0]
    hyd = requests.post(
        f"{svc.public}/v2/searches/{sid}/notes",
        json={"note_ids": [first, str(uuid.uuid4())]},
        headers=headers(),
        timeout=10,
    ).json()
    assert hyd["results"][0]["note"]["note_id"] == first and hyd["results"][0]["error"] is None
    assert hyd["results"][1]["error"]["error_code"] == "NOT_IN_SESSION"
    assert rows(svc, "SELECT hit_count FROM memory_notes WHERE note_id = %s", (first,))[0][0] == hits_before + 1
    # foreign and expired sessions are 404
    assert requests.get(f"{svc.public}/v2/searches/{sid}", headers=headers("a2"), timeout=10).status_code == 404
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        conn.execute(
            "UPDATE search_sessions SET created_at = now() - interval '2 hours', "
            "expires_at = now() - interval '1 second' WHERE search_id = %s",
            (sid,),
        )
    assert requests.get(f"{svc.public}/v2/searches/{sid}", headers=headers(), timeout=10).status_code == 404


def test_search_writes_a_trace(svc):
    r = search(svc, mode="planned_search")
    trace_id = r.json()["trace_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not rows(svc, "SELECT 1 FROM search_traces WHERE trace_id = %s", (trace_id,)):
        time.sleep(0.3)
    assert rows(svc, "SELECT count(*) FROM search_traces WHERE trace_id = %s", (trace_id,)) == [(1,)]
    stages = [
        s[0]
        for s in rows(
            svc, "SELECT stage_name FROM search_trace_stages WHERE trace_id = %s ORDER BY stage_order", (trace_id,)
        )
    ]
    assert stages == list(STAGE_NAMES)  # the pipeline emits every stage the trace payload schema names, in order
    assert rows(svc, "SELECT count(*) FROM search_trace_items WHERE trace_id = %s", (trace_id,))[0][0] == len(
        r.json()["items"]
    )
    # The ids the search made are time-ordered (elf_domain.time_ids): trace, session and result handles (the
    # trace items' key), so the trace and session indexes grow at their right edge.
    handles = [row[0] for row in rows(svc, "SELECT item_id FROM search_trace_items WHERE trace_id = %s", (trace_id,))]
    made = [uuid.UUID(trace_id), uuid.UUID(r.json()["search_id"]), *handles]
    assert all(u.version == 7 for u in made) and len(made) >= 3
    assert max(abs(int.from_bytes(u.bytes[:6], "big") - time.time() * 1000) for u in made) < 60_000


def test_trace_failure_does_not_fail_search(svc):
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        conn.execute("ALTER TABLE search_trace_outbox RENAME TO search_trace_outbox_away")
    try:
        r = search(svc, mode="quick_find")
        assert r.status_code == 200 and r.json()["items"]
        # the session is written in the trace's transaction: the failed trace insert did not take it along
        sid = r.json()["search_id"]
        assert requests.get(f"{svc.public}/v2/searches/{sid}", headers=headers(), timeout=10).status_code == 200
    finally:
        with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
            conn.execute("ALTER TABLE search_trace_outbox_away RENAME TO search_trace_outbox")


def test_trace_endpoint_shows_terms_adding_up_to_each_score(svc):
    r = search(svc, mode="planned_search")
    body = r.json()
    trace_id = body["trace_id"]
    deadline = time.monotonic() + 30
    got = None
    while time.monotonic() < deadline:
        got = requests.get(f"{svc.admin}/v2/admin/traces/{trace_id}", headers=headers(), timeout=10)
        if got.status_code == 200:
            break
        time.sleep(0.3)
    assert got is not None and got.status_code == 200, got.text
    items = got.json()["items"]
    assert [i["note_id"] for i in items] == [i["note_id"] for i in body["items"]]
    for item, returned in zip(items, body["items"], strict=False):
        terms = item["explain"]["ranking"]["terms"]
        assert {t["name"] for t in terms} >= {"blend.retrieval", "blend.rerank", "tie_breaker", "context.scope_boost"}
        assert sum(t["value"] for t in terms) == pytest.approx(item["final_score"])
        assert item["final_score"] == pytest.approx(returned["final_score"])


def test_conversation_cues_lift_the_named_speaker_and_the_strong_match_s_episode(svc):
    """Issue 32 (search.domain.conversation), through the API: in a conversation stored turn by turn, Melanie's
    question repeats the query's words and leads retrieval, but the query names Caroline, so Caroline's own answer
    ranks first with the context.speaker term; and a weaker turn of the session of the best match is pulled up by
    context.episode, 0.6 of its gap to that match (elf.toml's default)."""
    session, other = "2023-05-08T13:56:00+00:00", "2023-07-01T10:00:00+00:00"
    turns = [("Melanie: Where did Caroline go hiking? She said she went hiking with her dog.", session),
             ("Caroline: I went to the lake trail with my dog last weekend, hiking all day.", session),
             ("Melanie: That sounds lovely, what a view from the top.", session)]
    turns += [(f"Melanie: I painted a {c} sunset by the lake last {d}.", other)
              for c, d in (("red", "Monday"), ("blue", "Tuesday"), ("gold", "Friday"), ("pink", "Sunday"))]
    turns += [(f"Melanie: Hiking boots are on sale at the {s} store.", other) for s in ("corner", "mall", "outdoor")]
    hdr = headers(project="conv")
    notes = [note(t, observed_at=at, key=f"turn-{n}") for n, (t, at) in enumerate(turns)]
    res = requests.post(svc.public + "/v2/notes/ingest", headers=hdr, timeout=60,
                        json={"scope": "agent_private", "notes": notes}).json()["results"]
    assert [r["op"] for r in res] == ["ADD"] * len(turns), res
    for r in res:
        wait_indexed(svc, r["note_id"])
    melanie_q, caroline_a, view = (r["note_id"] for r in res[:3])
    r = requests.post(svc.admin + "/v2/admin/searches/raw", timeout=60,
                      headers={**hdr, "X-ELF-Read-Profile": "private_only"},
                      json={"query": "Where did Caroline go hiking?", "mode": "quick_find", "top_k": 10})
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    by_id = {i["note_id"]: i for i in items}
    terms = {nid: {t["name"]: t["value"] for t in i["explain"]["ranking"]["terms"]} for nid, i in by_id.items()}
    assert terms[melanie_q]["blend.retrieval"] > terms[caroline_a]["blend.retrieval"]  # retrieval: Melanie first
    assert items[0]["note_id"] == caroline_a and terms[caroline_a]["context.speaker"] > 0
    assert not any("context.speaker" in terms[n] for n in by_id if n != caroline_a)
    assert "context.episode" not in terms[caroline_a]  # the best of its episode
    pulled = {t: v for t, v in terms[view].items() if t != "context.episode"}
    gap = by_id[caroline_a]["final_score"] - sum(pulled.values())
    assert terms[view]["context.episode"] == pytest.approx(0.6 * gap)
    for i in items:
        assert i["final_score"] == pytest.approx(sum(t["value"] for t in i["explain"]["ranking"]["terms"]))


def test_a_question_about_a_speaker_searches_their_own_turns_in_their_words(svc):
    """Issue 32 (elf_domain.speakers, leg dense_speaker), through the API: "What did Caroline paint?" asks about
    Caroline, whose turns are written in the first person ("Caroline: I made a watercolour..."), while the turns
    that name her are Melanie's. Recall also searches Caroline's own notes, and only hers, with "What did I
    paint?", and the trace says so: the recall stage names the subject and the query searched, and the fusion
    stage gives that leg's score to Caroline's turns alone. A question about no one has no such leg."""
    turns = [f"Melanie: Caroline, what did you paint {w}? Caroline paints so well, Caroline." for w in
             ("today", "this week", "last month", "at the fair")]
    turns += ["Caroline: I made a watercolour of sunflowers, my first in years.",
              "Caroline: The weather was warm and we had lunch outside.",
              "Gina: I painted my kitchen wall yellow."]
    hdr = headers(project="speakers")
    res = requests.post(svc.public + "/v2/notes/ingest", headers=hdr, timeout=60,
                        json={"scope": "agent_private", "notes": [note(t, key=f"t{n}") for n, t in enumerate(turns)]})
    res = res.json()["results"]
    assert [r["op"] for r in res] == ["ADD"] * len(turns), res
    for r in res:
        wait_indexed(svc, r["note_id"])
    ask = {**hdr, "X-ELF-Read-Profile": "private_only"}
    r = requests.post(svc.admin + "/v2/admin/searches/raw", headers=ask, timeout=60,
                      json={"query": "What did Caroline paint?", "mode": "quick_find", "top_k": 10})
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert len(items) == len(turns)
    stages = {s["stage_name"]: s for s in trajectory(svc, r.json()["trace_id"], hdr)["stages"]}
    assert stages["recall.hybrid"]["stage_payload"]["queries"][0]["speaker_leg"] == {
        "subjects": ["Caroline"], "query": "What did I paint?"}
    leg = {i["chunk_id"]: "dense_speaker_score" in i["metrics"] for i in stages["fusion"]["items"]}
    said = {i["note_id"]: leg[i["chunk_id"]] for i in items}
    assert said == {x["note_id"]: turns[n].startswith("Caroline:") for n, x in enumerate(res)}
    about_no_one = requests.post(svc.admin + "/v2/admin/searches/raw", headers=ask, timeout=60,
                                 json={"query": "Who painted sunflowers?", "mode": "quick_find"})
    stages = {s["stage_name"]: s for s in trajectory(svc, about_no_one.json()["trace_id"], hdr)["stages"]}
    assert "speaker_leg" not in stages["recall.hybrid"]["stage_payload"]["queries"][0]
    assert not any("dense_speaker_score" in i["metrics"] for i in stages["fusion"]["items"])
