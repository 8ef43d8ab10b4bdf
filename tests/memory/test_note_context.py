"""A note's context (issue 32, memory.domain.note_context) over real HTTP on an isolated stack: embedded with the
text (one provider call, the input the embedding endpoint gets), never part of the text, judged by the same
gates, part of what a keyed replay compares, and what makes a short reply findable by what it answers."""

from __future__ import annotations

import pytest
import requests

from memory.domain.note_context import MAX_CONTEXT_CHARS
from tests.conftest import EMBED_PATH
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed

REPLY = "Melanie: Yes, last Friday, and I made a bowl!"
ASKED = "Caroline: Did you finally go to that pottery class you signed up for?"


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("note_context")
    s.start_api()
    s.start_worker()
    return s


def embed_inputs(svc) -> list[str]:
    return [t for r in svc.fake.requests_to(EMBED_PATH) for t in r.json["input"]]


def get_note(svc, note_id: str, **hdr) -> dict:
    r = requests.get(f"{svc.public}/v2/notes/{note_id}", headers=headers(**hdr), timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def test_the_context_is_embedded_with_the_text_and_returned_apart(svc):
    r = ingest(svc, [note(REPLY, key="turn-1", context=ASKED)], project="p-embed")
    (res,) = r.json()["results"]
    assert res["op"] == "ADD", r.text
    assert f"{REPLY} ({ASKED})" in embed_inputs(svc)
    body = get_note(svc, res["note_id"], project="p-embed")
    assert body["text"] == REPLY and body["context"] == ASKED
    (snapshot,) = rows(svc, "SELECT new_snapshot FROM memory_note_versions WHERE note_id = %s", (res["note_id"],))[0]
    assert snapshot["context"] == ASKED


def test_a_note_without_context_embeds_its_text_alone_and_returns_an_empty_context(svc):
    text = "Fact: the office plants are watered on Mondays."
    (res,) = ingest(svc, [note(text)], project="p-embed").json()["results"]
    assert text in embed_inputs(svc)
    assert get_note(svc, res["note_id"], project="p-embed")["context"] == ""


def test_a_keyed_replay_is_none_and_a_new_context_updates_and_embeds_again(svc):
    first = note("Melanie: It was great fun.", key="turn-2", context="Caroline: How was the camping trip?")
    (a,) = ingest(svc, [first], project="p-update").json()["results"]
    wait_indexed(svc, a["note_id"])
    (again,) = ingest(svc, [first], project="p-update").json()["results"]
    assert again["op"] == "NONE"
    before = rows(svc, "SELECT vec::text FROM note_embeddings WHERE note_id = %s", (a["note_id"],))
    moved = {**first, "context": "Caroline: How was the concert last night?"}
    (b,) = ingest(svc, [moved], project="p-update").json()["results"]
    assert b["op"] == "UPDATE" and b["note_id"] == a["note_id"]
    wait_indexed(svc, a["note_id"])
    after = rows(svc, "SELECT vec::text FROM note_embeddings WHERE note_id = %s", (a["note_id"],))
    assert after and after != before
    assert get_note(svc, a["note_id"], project="p-update")["context"] == moved["context"]


@pytest.mark.parametrize(("context", "reason"), [
    ("Caroline: my password is hunter2-Secret!", "REJECT_SECRET"),
    ("word " * (MAX_CONTEXT_CHARS // 5 + 1), "REJECT_TOO_LONG"),
])
def test_a_bad_context_rejects_the_note_with_its_path(svc, context, reason):
    r = ingest(svc, [note(f"Fact: the van is blue, said {reason}."), note("Fact: the car is red.", context=context)],
               project="p-gate")
    ok, bad = r.json()["results"]
    assert ok["op"] == "ADD"
    assert (bad["op"], bad["reason_code"], bad["field_path"]) == ("REJECTED", reason, "$.notes[1].context")


def test_a_non_english_context_fails_the_request_naming_the_field(svc):
    r = ingest(svc, [note("Fact: the tram is late.", context="Караганда находится в Казахстане.")],
               project="p-gate")
    assert r.status_code == 422, r.text
    assert r.json()["error_code"] == "NON_ENGLISH_INPUT" and "$.notes[0].context" in r.json()["fields"]


def test_a_reply_is_found_by_what_it_answers(svc):
    distractors = ["Caroline: I spent the weekend painting a sunset over the lake.",
                   "Melanie: The kids loved the museum trip on Sunday.",
                   "Caroline: My new job at the shelter starts next month."]
    notes = [note(t, key=f"d{i}") for i, t in enumerate(distractors)]
    notes.append(note(REPLY, key="reply", context=ASKED))
    notes.append(note(REPLY.replace("Melanie", "Mel"), key="bare"))  # the same reply with no context
    results = ingest(svc, notes, project="p-find").json()["results"]
    for res in results:
        wait_indexed(svc, res["note_id"])
    r = requests.post(svc.public + "/v2/searches",
                      json={"query": "Did Melanie go to the pottery class?", "mode": "quick_find", "top_k": 5},
                      headers={**headers(project="p-find"), "X-ELF-Read-Profile": "private_only"}, timeout=60)
    assert r.status_code == 200, r.text
    ranked = [i["note_id"] for i in r.json()["items"]]
    assert ranked[0] == results[3]["note_id"], ranked
    assert ranked.index(results[4]["note_id"]) > 0
