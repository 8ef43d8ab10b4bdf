"""A tenant's ranking is its own (issue 36): its search results and scores do not change when another tenant,
or another project of the same tenant, writes, over real HTTP on one elf-api, worker and Qdrant collection.

Tenant A writes a fixed set of notes, documents and events and records what quick_find, the documents' L0
search and a bundle with a query return for fixed queries. Tenant B then writes thousands of notes, and
documents and events, in A's vocabulary but other proportions (B's notes nearly all say "harbor", which A
uses rarely), and so does another project of A's tenant (notes and documents). A asks again: the same ids in
the same order with the same scores, bit for bit.

Before issue 36 the BM25 leg's IDF came from the whole collection, so B's writes moved A's note scores and
reordered A's documents (the closing note of issue 36 shows this test failing on that code). The event log
ranks with Postgres' ts_rank_cd, which reads no corpus statistics, within the caller's (tenant, project):
it is held to the same invariant here.

Ranking runs with ``formula = "spec_additive"`` and ``tie_breaker_weight = 0``, so a note's final score is its
fused retrieval score alone (the recency tie-breaker would move with the clock, not with B).
"""

from __future__ import annotations

import pytest
import requests

from tests.acb_helpers import build, say
from tests.indexing_helpers import DOC_OUTBOX, rows, wait_for
from tests.notes_helpers import headers, ingest, note

A, B = "lex-a", "lex-b"
WORDS = ("harbor", "lantern", "orchard", "glacier", "violin", "compass")
QUERIES = ("harbor lantern", "orchard glacier", "violin compass harbor", "lantern orchard", "glacier harbor")
FILLER = ("The committee met on Tuesday and agreed to review the plan again next month. "
          "Everyone brought notes from the previous meeting and compared them. ")


PEOPLE = ("Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hiro", "Ines", "Jonas", "Kemal", "Lena",
          "Mateo", "Nadia", "Oskar", "Priya", "Quinn")
ACTS = ("painted", "repaired", "photographed", "sold", "measured", "described", "borrowed", "cleaned", "insured",
        "catalogued", "shipped", "sketched", "weighed")
PLACES = ("in Lisbon", "near the old mill", "during the winter fair", "for the school museum", "after the storm",
          "at the county archive", "before the election", "on a rainy Sunday", "for a film crew", "at dawn",
          "with two neighbours", "under a tight budget", "for the first time")


def _sentence(i: int, words: list[str]) -> str:
    """A distinct sentence (dedup keeps near-identical notes as one) naming ``words``."""
    who, act = PEOPLE[i % len(PEOPLE)], ACTS[(i * 7) % len(ACTS)]
    where = PLACES[(i * 5 + i // len(PLACES)) % len(PLACES)]
    return f"{who} {act} the {' and the '.join(words)} {where} (item {i})."


def _a_note(i: int) -> str:
    """A's notes: "harbor" in a few, the other words in many, each note its own mix."""
    words = [WORDS[1 + i % 5], WORDS[1 + (i * 3 + 1) % 5]] + (["harbor"] if i % 6 == 0 else [])
    return _sentence(i, words)


COLOURS = ("red", "blue", "green", "amber", "silver", "black", "white", "copper", "golden", "violet", "grey", "pink")
MATERIALS = ("oak", "steel", "glass", "stone", "brick", "paper", "linen", "clay", "iron", "cedar", "marble")


def _b_note(i: int) -> str:
    """B's notes: "harbor" nearly everywhere, "lantern" often, the rest rarely."""
    looks = f"{COLOURS[i % len(COLOURS)]} {MATERIALS[(i // len(COLOURS)) % len(MATERIALS)]}"
    words = [f"{looks} harbor"] + (["lantern"] if i % 3 else []) + ([WORDS[2 + i % 4]] if i % 10 == 0 else [])
    return _sentence(i * 11 + 1, words)


def _a_docs() -> list[str]:
    """Two documents lean on "harbor", four on "lantern" (so in A "harbor" is the rarer, higher-IDF word)."""
    docs = [f"Harbor notes {k}. " + "The harbor is busy. " * (3 + k) + "A lantern hangs by the door. " + FILLER
            for k in range(2)]
    docs += [f"Lantern notes {k}. " + "The lantern is bright. " * (2 + k) + FILLER for k in range(4)]
    return docs


def _b_doc(i: int) -> str:
    return f"Harbor log {i}. " + "The harbor master counts the boats. " * 2 + FILLER


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    def mutate(data):
        data["ranking"].update(formula="spec_additive", tie_breaker_weight=0.0)
    s = isolated_services_module("lexical_scope", mutate)
    s.start_api()
    s.start_worker()
    return s


def _post(svc, path: str, tenant: str, body: dict, project: str = "p1") -> dict:
    hdr = {**headers(tenant=tenant, project=project), "X-ELF-Read-Profile": "all_scopes"}
    r = requests.post(svc.public + path, json=body, headers=hdr, timeout=120)
    assert r.status_code == 200, (path, r.status_code, r.text[:500])
    return r.json()


def _quiet(svc) -> None:
    """Until no note or document waits for indexing."""
    wait_for(lambda: not rows(svc, "SELECT 1 FROM indexing_outbox WHERE status <> 'DONE' LIMIT 1")
             and not rows(svc, f"SELECT 1 FROM {DOC_OUTBOX} WHERE status <> 'DONE' LIMIT 1"), 300, "indexing done")


def _rankings(svc) -> dict:
    """What A sees for each query: notes (quick_find), document chunks (L0) and the bundle, ids with scores."""
    out = {}
    for q in QUERIES:
        notes = _post(svc, "/v2/searches", A, {"query": q, "mode": "quick_find", "top_k": 10})["items"]
        out[("notes", q)] = [(i["note_id"], i["final_score"]) for i in notes]
        docs = _post(svc, "/v2/docs/search/l0", A, {"query": q, "top_k": 10})["items"]
        out[("docs", q)] = [(i["source_ref"]["ref"]["chunk_id"], i["score"]) for i in docs]
        bundle = build(svc, A, query=q, max_tokens=1200)
        out[("bundle", q)] = (bundle["bundle_hash"], [(s["name"], s["items"]) for s in bundle["sections"]])
    return out


def test_another_tenants_writes_change_nothing_in_a_tenants_rankings(svc):
    for i in range(30):
        res = ingest(svc, [note(_a_note(i))], tenant=A).json()["results"][0]
        assert res["op"] == "ADD", res
    for text in _a_docs():
        _post(svc, "/v2/docs", A, {"scope": "agent_private", "content": text})
    for i in range(40):
        say(svc, A, f"Message {i}: {_a_note(i)}")
    _quiet(svc)
    before = _rankings(svc)
    assert all(before[("notes", q)] and before[("docs", q)] for q in QUERIES), before
    assert len({tuple(before[("docs", q)]) for q in QUERIES}) > 1  # the queries rank differently

    for start in range(0, 3000, 100):
        r = ingest(svc, [note(_b_note(i)) for i in range(start, start + 100)], tenant=B)
        assert r.status_code == 200, r.text[:500]
    for i in range(60):
        _post(svc, "/v2/docs", B, {"scope": "agent_private", "content": _b_doc(i)})
    for i in range(300):
        say(svc, B, f"Message {i}: {_b_note(i)}")
    for start in range(0, 600, 100):  # A's tenant, another project
        r = ingest(svc, [note(_b_note(i)) for i in range(start, start + 100)], tenant=A, project="p2")
        assert r.status_code == 200, r.text[:500]
    for i in range(20):
        _post(svc, "/v2/docs", A, {"scope": "agent_private", "content": _b_doc(i)}, project="p2")
    _quiet(svc)
    # thousands (dedup merges some)
    assert rows(svc, "SELECT count(*) FROM memory_notes WHERE tenant_id = %s", (B,))[0][0] >= 2000

    after = _rankings(svc)
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert not changed, f"{len(changed)} of {len(before)} rankings of tenant A changed when tenant B wrote: {changed}"
