"""Facts current by default (issue 32) on the real stack with the local providers (in-process embedder, local
rerank and extractor) and the shipped predicate registry, with no operator action:

- "X leads A", then "X now leads B" gives one current fact and one superseded, whether the relation comes with
  add_note or from the local extractor through add_event;
- the current-versus-superseded set (tests/data/supersede_cases.json) through the real ``elf-bench supersede``:
  no superseded note ranks above the current one in either search mode; asked about the past (as_of), search
  does not demote."""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest
import requests

from tests.conftest import REPO, entry_point, use_local_providers
from tests.notes_helpers import headers, ingest, note, rows

CASES = REPO / "tests" / "data" / "supersede_cases.json"


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("supersede", mutate=use_local_providers)
    s.start_api()
    s.start_worker()
    return s


def facts(svc, tenant: str, **params) -> list[dict]:
    r = requests.get(svc.public + "/v2/graph/facts", params=params, headers=headers(tenant=tenant), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["facts"]


def _one_current_one_superseded(svc, tenant: str, first: str, second: str) -> None:
    (current,) = facts(svc, tenant, subject="Alice", predicate="leads")
    assert current["object"]["entity"]["canonical"] == "platform team" and current["state"] == "current"
    assert current["evidence_note_ids"] == [second]
    (old,) = facts(svc, tenant, subject="Alice", predicate="leads", state="historical")
    assert old["object"]["entity"]["canonical"] == "data team" and old["evidence_note_ids"] == [first]
    assert old["superseded_by"][0]["fact_id"] == current["fact_id"]
    # The shipped global predicate did it: nothing was registered for the tenant.
    assert rows(svc, "SELECT count(*) FROM graph_predicates WHERE tenant_id = %s", (tenant,)) == [(0,)]


def test_leads_then_now_leads_gives_one_current_fact_via_add_note(svc):
    t = f"sup-{uuid.uuid4().hex[:8]}"
    written = []
    for text, team in (("Alice leads the data team.", "data team"), ("Alice now leads the platform team.",
                                                                     "platform team")):
        rel = {"subject": {"canonical": "Alice", "kind": "person"}, "predicate": "leads",
               "object": {"entity": {"canonical": team}, "value": None}}
        r = ingest(svc, [note(text, key=f"alice.{len(written)}", structured={"relations": [rel]})], tenant=t)
        assert r.status_code == 200 and r.json()["results"][0]["op"] == "ADD", r.text
        written.append(r.json()["results"][0]["note_id"])
    _one_current_one_superseded(svc, t, *written)


def test_leads_then_now_leads_gives_one_current_fact_via_the_local_extractor(svc):
    t = f"sup-{uuid.uuid4().hex[:8]}"
    written = []
    for text in ("Alice leads the data team.", "Alice now leads the platform team."):
        r = requests.post(svc.public + "/v2/events/ingest", json={"messages": [{"role": "user", "content": text}]},
                          headers=headers(tenant=t), timeout=60)
        assert r.status_code == 200, r.text
        stored = [x for x in r.json()["results"] if x.get("note_id")]
        assert len(stored) == 1 and stored[0]["op"] == "ADD", r.text
        written.append(stored[0]["note_id"])
    _one_current_one_superseded(svc, t, *written)


def test_no_superseded_note_ranks_above_the_current_one(svc, tmp_path):
    cases = json.loads(CASES.read_text())["cases"]
    assert len(cases) >= 60 and all(len(c["notes"]) >= 2 for c in cases)
    out = tmp_path / "supersede.json"
    proc = subprocess.run([entry_point("elf-bench"), "supersede", "-c", str(svc.config_path), "--as-of-past",
                           "--json", str(out)], capture_output=True, text=True, timeout=900, cwd=REPO)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["cases"] == len(cases) and result["ops"] == {"ADD": sum(len(c["notes"]) for c in cases)}
    assert result["one_current_fact"] == len(cases), result["not_one_current_fact"]
    arms = {(a["mode"], a["as_of_past"]): a for a in result["arms"]}
    for mode in ("quick_find", "planned_search"):
        now = arms[(mode, False)]
        assert now["cases"] == len(cases)
        assert now["superseded_above_current"] == 0, now["above_cases"]
        assert now["current_missing"] == 0
    # Asked about the past, nothing is demoted: the set is not trivial (retrieval alone puts old notes first).
    assert any(arms[(m, True)]["superseded_above_current"] > 0 for m in ("quick_find", "planned_search"))
    assert result["deleted"] == result["notes"]
