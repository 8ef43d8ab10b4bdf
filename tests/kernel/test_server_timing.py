"""Server-Timing of a search over real HTTP on an isolated service: ``search`` first (the whole server time,
what elf-bench reads), one entry per stage, then ``total``; the stages never overlap, so they add up to at
most the total. The request middleware's ``app`` (the whole request in Django) comes after them all."""

from __future__ import annotations

import pytest
import requests

from tests.notes_helpers import headers, ingest, note, wait_indexed

PIPELINE_STAGES = ["embed", "recall", "validate", "rerank", "rank"]
ROUNDING_MS = 0.005  # each entry is printed to 0.01 ms


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("timing")
    s.start_api()
    s.start_worker()
    for text in ("Fact: the build cache lives on the second disk.", "Fact: the build server reboots on Sundays."):
        res = ingest(s, [note(text)]).json()["results"][0]
        wait_indexed(s, res["note_id"])
    return s


def timings(response: requests.Response) -> list[tuple[str, float]]:
    """The view's entries, in order, after checking the middleware's ``app`` ends the header and covers them."""
    entries = []
    for part in response.headers["Server-Timing"].split(","):
        name, _, dur = part.strip().partition(";dur=")
        entries.append((name, float(dur)))
    (app, app_ms), own = entries[-1], entries[:-1]
    assert app == "app" and app_ms + ROUNDING_MS >= max(ms for _, ms in own), entries
    return own


def assert_adds_up(entries: list[tuple[str, float]]) -> dict[str, float]:
    names = [n for n, _ in entries]
    assert names[0] == "search" and names[-1] == "total", names
    assert len(set(names)) == len(names), names
    by_name = dict(entries)
    assert by_name["search"] == by_name["total"] > 0
    stages = entries[1:-1]
    assert all(ms >= 0 for _, ms in stages), stages
    assert sum(ms for _, ms in stages) <= by_name["total"] + ROUNDING_MS * len(stages), entries
    return by_name


def test_quick_find_reports_every_stage_within_the_total(svc):
    r = requests.post(svc.public + "/v2/searches",
                      json={"query": "Where does the build cache live?", "mode": "quick_find"},
                      headers={**headers(), "X-ELF-Read-Profile": "private_only"}, timeout=60)
    assert r.status_code == 200 and r.json()["items"], r.text
    entries = timings(r)
    assert [n for n, _ in entries] == ["search", *PIPELINE_STAGES, "session", "trace", "total"]
    by_name = assert_adds_up(entries)
    assert by_name["embed"] > 0 and by_name["recall"] > 0 and by_name["validate"] > 0  # a new query: embedded
    assert by_name["rerank"] < 1  # quick_find does not rerank


def test_raw_search_has_no_session_stage(svc):
    r = requests.post(svc.admin + "/v2/admin/searches/raw", json={"query": "When does the build server reboot?",
                                                                  "mode": "planned_search"},
                      headers={**headers(), "X-ELF-Read-Profile": "private_only"}, timeout=60)
    assert r.status_code == 200 and r.json()["items"], r.text
    entries = timings(r)
    assert [n for n, _ in entries] == ["search", *PIPELINE_STAGES, "trace", "total"]
    assert_adds_up(entries)
