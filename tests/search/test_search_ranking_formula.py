"""ranking.formula through the API: the same notes and queries on a rank_blend service and a spec_additive
service give different explain.ranking terms, and spec_additive's relevance term is the reranker's raw score
(planned_search) or the candidate's fused retrieval score from the trace's fusion stage (quick_find)."""

from __future__ import annotations

import math

import pytest
import requests

from tests.conftest import RERANK_PATH
from tests.notes_helpers import headers, ingest, note, wait_indexed
from tests.search.test_search_api import _rerank, search

QUERY = "billing service port"
TEXTS = ["Fact: the billing service runs on port 8443.", "Fact: billing reports are archived yearly.",
         "Decision: the billing service moves to the new cluster."]


def _service(factory, name: str, formula: str):
    def mutate(data):
        data["ranking"]["formula"] = formula
        data["search"]["explain"]["write_mode"] = "inline"
    s = factory(name, mutate)
    s.fake.handle(RERANK_PATH, _rerank)
    s.start_api()
    s.start_worker()
    for t in TEXTS:
        res = ingest(s, [note(t, importance=0.5)]).json()["results"][0]
        wait_indexed(s, res["note_id"])
    return s


def _fake_rerank_score(query: str, doc: str) -> float:
    words = set(query.lower().split())
    return len(words & set(doc.lower().split())) / (1 + len(words))


def _raw(svc, mode: str) -> dict:
    r = search(svc, QUERY, mode=mode, admin=True)
    assert r.status_code == 200, r.text
    return r.json()


def _terms(item) -> dict[str, float]:
    return {t["name"]: t["value"] for t in item["explain"]["ranking"]["terms"]}


def test_formula_choice_changes_the_explain_terms(isolated_services):
    blend, spec = (
        _service(isolated_services, "rank_blend", "rank_blend"),
        _service(isolated_services, "spec", "spec_additive"),
    )

    for item in _raw(blend, "planned_search")["items"]:
        assert list(_terms(item)) == ["blend.retrieval", "blend.rerank", "tie_breaker", "context.scope_boost"]
        assert item["explain"]["ranking"]["policy_id"].startswith("ranking_v2:rank_blend:")

    planned = _raw(spec, "planned_search")["items"]
    assert len(planned) == len(TEXTS)
    for item in planned:
        terms = _terms(item)
        assert list(terms) == ["rerank_score", "tie_breaker", "context.scope_boost"]
        assert item["explain"]["ranking"]["policy_id"].startswith("ranking_v2:spec_additive:")
        assert terms["rerank_score"] == pytest.approx(_fake_rerank_score(QUERY, item["snippet"]))
        assert terms["tie_breaker"] == pytest.approx(0.1 * (1 + 0.6 * 0.5), rel=1e-3)  # fresh notes: exp(~0) = 1
        assert item["final_score"] == pytest.approx(sum(terms.values()))
    # final = rerank_score + tie_breaker_weight * base: with equal bases the raw rerank score decides the order
    assert [_terms(i)["rerank_score"] for i in planned] == sorted(
        (_terms(i)["rerank_score"] for i in planned), reverse=True
    )
    assert planned[0]["snippet"] == TEXTS[0] and _terms(planned[0])["rerank_score"] == pytest.approx(0.75)

    quick = _raw(spec, "quick_find")
    traj = requests.get(f"{spec.admin}/v2/admin/trajectories/{quick['trace_id']}", headers=headers(), timeout=10).json()
    fusion = next(s for s in traj["stages"] if s["stage_name"] == "fusion")
    fused = {i["chunk_id"]: i["metrics"]["fusion_score"] for i in fusion["items"]}
    rank_stage = next(s for s in traj["stages"] if s["stage_name"] == "rank.score")
    assert rank_stage["stage_payload"]["formula"] == "spec_additive"
    for item in quick["items"]:
        terms = _terms(item)
        assert list(terms) == ["retrieval_score", "tie_breaker", "context.scope_boost"]
        assert terms["retrieval_score"] == fused[item["chunk_id"]] and 0.0 <= terms["retrieval_score"] <= 1.0
        assert math.isclose(item["final_score"], sum(terms.values()))
    assert max(_terms(i)["retrieval_score"] for i in quick["items"]) == 1.0  # min-max fusion: the best leg hit
