"""A note's observed_at (issue 32) over real HTTP on an isolated stack: stored and returned as given (UTC when it
has no offset), validated with a JSONPath, part of a keyed replay's comparison, and what a search whose query
names a date looks among (elf_domain.time_phrases; recall's dense_observed leg)."""

from __future__ import annotations

import pytest
import requests

from tests.conftest import use_local_providers
from tests.notes_helpers import headers, ingest, note, wait_indexed


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("observed_at", use_local_providers)  # planned_search's local rerank
    s.start_api()
    s.start_worker()
    return s


def _search(svc, query: str, project: str, mode: str = "quick_find") -> list[str]:
    r = requests.post(svc.public + "/v2/searches", json={"query": query, "mode": mode, "top_k": 5},
                      headers={**headers(project=project), "X-ELF-Read-Profile": "private_only"}, timeout=60)
    assert r.status_code == 200, r.text
    return [i["note_id"] for i in r.json()["items"]]


def test_observed_at_is_stored_returned_and_compared(svc):
    first = note("Caroline: I joined the choir.", key="t1", observed_at="2023-05-08T13:56:00")
    (a,) = ingest(svc, [first], project="p-store").json()["results"]
    got = requests.get(f"{svc.public}/v2/notes/{a['note_id']}", headers=headers(project="p-store"), timeout=30)
    assert got.json()["observed_at"] == "2023-05-08T13:56:00+00:00"
    (same,) = ingest(svc, [first], project="p-store").json()["results"]
    assert same["op"] == "NONE"
    (moved,) = ingest(svc, [{**first, "observed_at": "2023-05-09T10:00:00+02:00"}], project="p-store").json()["results"]
    assert moved["op"] == "UPDATE"
    got = requests.get(f"{svc.public}/v2/notes/{a['note_id']}", headers=headers(project="p-store"), timeout=30)
    assert got.json()["observed_at"] == "2023-05-09T08:00:00+00:00"


def test_a_bad_observed_at_is_a_400_naming_the_field(svc):
    r = ingest(svc, [note("Fact: the kiln is hot.", observed_at="last Tuesday")], project="p-store")
    assert r.status_code == 400, r.text
    assert "$.notes[0].observed_at" in r.text


def test_a_query_naming_a_date_finds_what_was_said_then(svc):
    # the same words on three days: only the day tells them apart (a keyed note is resolved by its key alone)
    said = {day: "Caroline: I went hiking with some friends today." for day in ("2023-05-08", "2023-07-01",
                                                                                 "2023-09-10")}
    notes = [note(text, key=f"h{day}", observed_at=f"{day}T12:00:00") for day, text in said.items()]
    notes.append(note("Caroline: I love hiking in the mountains.", key="undated"))
    results = ingest(svc, notes, project="p-find").json()["results"]
    for res in results:
        wait_indexed(svc, res["note_id"])
    ids = dict(zip([*said, "undated"], (r["note_id"] for r in results), strict=False))
    for mode in ("quick_find", "planned_search"):  # planned_search's rerank reads the day too
        for day, spoken in (("2023-07-01", "1 July, 2023"), ("2023-09-10", "September 10, 2023"),
                            ("2023-05-08", "May 8th, 2023")):
            ranked = _search(svc, f"Where did Caroline go hiking on {spoken}?", "p-find", mode)
            assert ranked[0] == ids[day], (mode, spoken, ranked)
    assert set(_search(svc, "Where did Caroline go hiking?", "p-find")) == set(ids.values())


def test_the_rerank_reads_a_note_day_in_the_words_a_query_uses():
    from datetime import datetime, timedelta, timezone

    from elf_infra.providers.local_rerank import embed_overlap_scores
    from search.services.stored_rerank import observed_day

    day = observed_day(datetime(2022, 5, 25, 23, 30, tzinfo=timezone(timedelta(hours=-2))))
    assert day == "26 May 2022"  # the UTC day
    query, vec = "What did Nate cook on 26 May, 2022?", [1.0, 0.0]
    plain, dated = embed_overlap_scores(query, vec, ["Nate: I cooked pasta.", f"Nate: I cooked pasta. {day}"],
                                        [vec, vec])
    assert dated > plain
