"""Evidence binding (spec v2 sections 8.2, 19 C; supplement section 5) and extractor-candidate validation
(spec v2 section 18)."""

from __future__ import annotations

import copy

import pytest

from elf_domain.evidence import (
    REJECT_EVIDENCE_MISMATCH,
    REJECT_WRITE_POLICY_MISMATCH,
    CandidateError,
    CandidateNote,
    Evidence,
    check_evidence,
    validate_candidate,
    validate_candidates,
)
from elf_domain.write_policy import apply_write_policy, parse_write_policy

ORIGINALS = [
    "We decided to deploy with Helm; the staging token is tok_9f8e7d.",
    "Café menu ☕: I prefer tea over coffee in the morning.",
]
SECRET = ORIGINALS[0].encode().index(b"tok_9f8e7d")
POLICY = parse_write_policy(
    {"redactions": [{"kind": "replace", "span": {"start": SECRET, "end": SECRET + 10}, "replacement": "***"}]},
    ORIGINALS[0],
    "$.messages[0].write_policy",
)
TRANSFORMED = [apply_write_policy(ORIGINALS[0], POLICY)[0], ORIGINALS[1]]


def check(evidence, *, min_quotes=1, max_quotes=2, max_quote_chars=320, transformed=TRANSFORMED):
    return check_evidence(
        evidence,
        transformed=transformed,
        originals=ORIGINALS,
        min_quotes=min_quotes,
        max_quotes=max_quotes,
        max_quote_chars=max_quote_chars,
    )


def ev(index, quote):
    return {"message_index": index, "quote": quote}


def test_transformed_fixture_holds_the_replacement():
    assert TRANSFORMED[0] == "We decided to deploy with Helm; the staging token is ***."


@pytest.mark.parametrize(
    "evidence",
    [
        [ev(0, "deploy with Helm")],
        [ev(1, "I prefer tea over coffee"), ev(1, "Café menu ☕")],
        [ev(0, "the staging token is ***.")],  # the transformed text is what the extractor saw
        [Evidence(0, "deploy with Helm"), Evidence(1, "tea")],
    ],
)
def test_verbatim_quotes_pass(evidence):
    assert check(evidence) is None


def test_quote_in_no_message_is_evidence_mismatch():
    assert check([ev(0, "deploy with Kubernetes")]) == REJECT_EVIDENCE_MISMATCH
    assert check([ev(0, "I prefer tea")]) == REJECT_EVIDENCE_MISMATCH  # in message 1, cited as 0
    assert check([ev(1, "i prefer tea")]) == REJECT_EVIDENCE_MISMATCH  # not verbatim


def test_quote_only_in_the_original_is_write_policy_mismatch():
    assert check([ev(0, "staging token is tok_9f8e7d")]) == REJECT_WRITE_POLICY_MISMATCH
    assert check([Evidence(0, "tok_9f8e7d")]) == REJECT_WRITE_POLICY_MISMATCH


def test_without_a_policy_the_original_is_the_transformed_text():
    assert check([ev(0, "tok_9f8e7d")], transformed=ORIGINALS) is None


def test_evidence_mismatch_wins_over_write_policy_mismatch_in_either_order():
    fabricated, redacted = ev(1, "I prefer coffee"), ev(0, "tok_9f8e7d")
    assert check([fabricated, redacted]) == REJECT_EVIDENCE_MISMATCH
    assert check([redacted, fabricated]) == REJECT_EVIDENCE_MISMATCH
    assert check([ev(0, "Helm"), redacted]) == REJECT_WRITE_POLICY_MISMATCH


@pytest.mark.parametrize(
    "count, verdict", [(0, REJECT_EVIDENCE_MISMATCH), (1, None), (2, None), (3, REJECT_EVIDENCE_MISMATCH)]
)
def test_quote_count_bounds(count, verdict):
    assert check([ev(0, "Helm")] * count) == verdict


def test_count_is_judged_before_quotes():
    assert check([ev(0, "tok_9f8e7d")] * 3) == REJECT_EVIDENCE_MISMATCH


def test_quote_length_and_emptiness():
    quote = "deploy with Helm"
    assert check([ev(0, quote)], max_quote_chars=len(quote)) is None
    assert check([ev(0, quote)], max_quote_chars=len(quote) - 1) == REJECT_EVIDENCE_MISMATCH
    assert check([ev(0, "")]) == REJECT_EVIDENCE_MISMATCH
    assert check([ev(0, "  ")]) == REJECT_EVIDENCE_MISMATCH


@pytest.mark.parametrize(
    "item",
    [
        ev(2, "Helm"),
        ev(-1, "Helm"),
        ev("0", "Helm"),
        ev(True, "Helm"),
        ev(0.0, "Helm"),
        ev(None, "Helm"),
        ev(0, 5),
        {"quote": "Helm"},
        "Helm",
    ],
)
def test_bad_index_or_item_is_evidence_mismatch(item):
    assert check([item]) == REJECT_EVIDENCE_MISMATCH


def test_mismatched_message_lists_are_a_programming_error():
    with pytest.raises(ValueError):
        check([ev(0, "Helm")], transformed=TRANSFORMED[:1])


# --- candidate validation ---

NOTE = {
    "type": "decision",
    "key": "deploy_tool",
    "text": "Decision: deploy with Helm.",
    "importance": 0.8,
    "confidence": 1,
    "ttl_days": 30.0,
    "structured": {
        "summary": "Deploy tool",
        "facts": ["Helm is the deploy tool"],
        "concepts": None,
        "entities": [{"canonical": "Helm", "kind": "tool", "aliases": ["helm"]}],
        "relations": [
            {
                "subject": {"canonical": "project", "kind": None, "aliases": None},
                "predicate": "deploys_with",
                "object": {"entity": {"canonical": "Helm"}, "value": None},
                "valid_from": "2024-05-01T00:00:00Z",
                "valid_to": None,
            },
            {"subject": {}, "predicate": "region", "object": {"value": "eu-west-1"}},
        ],
    },
    "scope_suggestion": "project_shared",
    "evidence": [{"message_index": 0, "quote": "deploy with Helm"}],
    "reason": "A lasting project decision.",
}
P = "$.notes[3]"


def bad(mutate) -> CandidateError:
    note = copy.deepcopy(NOTE)
    mutate(note)
    with pytest.raises(CandidateError) as info:
        validate_candidate(note, P)
    return info.value


def test_valid_candidate_normalises_structured_and_evidence():
    note = validate_candidate(NOTE, P)
    assert isinstance(note, CandidateNote)
    assert (note.type, note.key, note.text, note.reason) == (
        "decision",
        "deploy_tool",
        "Decision: deploy with Helm.",
        "A lasting project decision.",
    )
    assert (note.importance, note.confidence, note.ttl_days, note.scope_suggestion) == (0.8, 1.0, 30, "project_shared")
    assert note.evidence == (Evidence(0, "deploy with Helm"),)
    relations = note.structured["relations"]
    assert relations[0]["object"] == {"entity": {"canonical": "Helm", "kind": None, "aliases": None}, "value": None}
    assert relations[1] == {
        "subject": {"canonical": None, "kind": None, "aliases": None},
        "predicate": "region",
        "object": {"entity": None, "value": "eu-west-1"},
        "valid_from": None,
        "valid_to": None,
    }
    assert note.structured["concepts"] is None
    assert check(note.evidence) is None


def test_nullable_members_may_be_omitted():
    minimal = {k: NOTE[k] for k in ("type", "text", "importance", "confidence", "evidence", "reason")}
    note = validate_candidate(minimal, P)
    assert (note.key, note.ttl_days, note.structured, note.scope_suggestion) == (None, None, None, None)


def test_type_allowlist_and_text_content_are_left_to_the_write_gate():
    note = validate_candidate({**NOTE, "type": "opinion", "text": ""}, P)
    assert (note.type, note.text) == ("opinion", "")


@pytest.mark.parametrize(
    "object_, message",
    [
        ({"entity": {"canonical": "Helm"}, "value": "helm"}, "exactly one"),
        ({"entity": None, "value": None}, "exactly one"),
        ({}, "exactly one"),
    ],
)
def test_relation_object_needs_exactly_one_of_entity_and_value(object_, message):
    err = bad(lambda n: n["structured"]["relations"][1].update(object=object_))
    assert err.path == f"{P}.structured.relations[1].object"
    assert message in err.message


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda n: n.pop("type"), f"{P}.type"),
        (lambda n: n.pop("evidence"), f"{P}.evidence"),
        (lambda n: n.pop("reason"), f"{P}.reason"),
        (lambda n: n.update(extra=1), f"{P}.extra"),
        (lambda n: n.update(type=None), f"{P}.type"),
        (lambda n: n.update(key=7), f"{P}.key"),
        (lambda n: n.update(text=["a"]), f"{P}.text"),
        (lambda n: n.update(importance="0.5"), f"{P}.importance"),
        (lambda n: n.update(importance=True), f"{P}.importance"),
        (lambda n: n.update(importance=1.5), f"{P}.importance"),
        (lambda n: n.update(confidence=-0.1), f"{P}.confidence"),
        (lambda n: n.update(confidence=float("nan")), f"{P}.confidence"),
        (lambda n: n.update(ttl_days=1.5), f"{P}.ttl_days"),
        (lambda n: n.update(ttl_days=-1), f"{P}.ttl_days"),
        (lambda n: n.update(ttl_days="30"), f"{P}.ttl_days"),
        (lambda n: n.update(scope_suggestion="team"), f"{P}.scope_suggestion"),
        (lambda n: n.update(structured=[]), f"{P}.structured"),
        (lambda n: n["structured"].update(summary=1), f"{P}.structured.summary"),
        (lambda n: n["structured"].update(facts="one"), f"{P}.structured.facts"),
        (lambda n: n["structured"].update(concepts=["ok", 2]), f"{P}.structured.concepts[1]"),
        (lambda n: n["structured"].update(mood="x"), f"{P}.structured.mood"),
        (lambda n: n["structured"]["entities"][0].update(aliases=[None]), f"{P}.structured.entities[0].aliases[0]"),
        (lambda n: n["structured"]["entities"].append("Helm"), f"{P}.structured.entities[1]"),
        (lambda n: n["structured"]["relations"][0].pop("predicate"), f"{P}.structured.relations[0].predicate"),
        (lambda n: n["structured"]["relations"][0].update(predicate=None), f"{P}.structured.relations[0].predicate"),
        (lambda n: n["structured"]["relations"][0].update(subject=None), f"{P}.structured.relations[0].subject"),
        (
            lambda n: n["structured"]["relations"][0].update(valid_to="next week"),
            f"{P}.structured.relations[0].valid_to",
        ),
        (
            lambda n: n["structured"]["relations"][0]["object"]["entity"].update(kind=3),
            f"{P}.structured.relations[0].object.entity.kind",
        ),
        (
            lambda n: n["structured"]["relations"][1]["object"].update(value=5),
            f"{P}.structured.relations[1].object.value",
        ),
        (lambda n: n.update(evidence={"message_index": 0}), f"{P}.evidence"),
        (lambda n: n["evidence"].append("quote"), f"{P}.evidence[1]"),
        (lambda n: n["evidence"][0].update(message_index="0"), f"{P}.evidence[0].message_index"),
        (lambda n: n["evidence"][0].update(message_index=False), f"{P}.evidence[0].message_index"),
        (lambda n: n["evidence"][0].pop("quote"), f"{P}.evidence[0].quote"),
        (lambda n: n["evidence"][0].update(quote=None), f"{P}.evidence[0].quote"),
        (lambda n: n["evidence"][0].update(source="msg"), f"{P}.evidence[0].source"),
    ],
)
def test_bad_shapes_name_the_element(mutate, path):
    assert bad(mutate).path == path


def test_non_object_candidate_is_rejected():
    with pytest.raises(CandidateError) as info:
        validate_candidate("Decision: deploy with Helm.", P)
    assert info.value.path == P


def test_evidence_count_is_check_evidences_to_judge():
    note = validate_candidate({**NOTE, "evidence": []}, P)
    assert note.evidence == ()
    assert check(note.evidence) == REJECT_EVIDENCE_MISMATCH


def test_invalid_candidates_are_rejected_individually():
    notes = [NOTE, {**NOTE, "importance": 2}, None, {**NOTE, "key": None}]
    valid, invalid = validate_candidates(notes)
    assert [n.key for n in valid] == ["deploy_tool", None]
    assert [i for i, _ in invalid] == [1, 2]
    assert invalid[0][1].startswith("$.notes[1].importance: ")
    assert invalid[1][1] == "$.notes[2]: must be an object"
    assert validate_candidates([]) == ([], [])
