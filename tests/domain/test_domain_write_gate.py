"""WriteGate (spec v2 section 9): each rejection, and the reference order when several apply."""

from __future__ import annotations

import pytest

from memory.domain.write_gate import (
    MEMORY_TYPES,
    REJECT_EMPTY,
    REJECT_INVALID_TYPE,
    REJECT_NON_ENGLISH,
    REJECT_SCOPE_DENIED,
    REJECT_SECRET,
    REJECT_TOO_LONG,
    GateVerdict,
    evaluate_note,
)

SCOPES = ("agent_private", "project_shared", "org_shared")
WRITE_ALLOWED = {"agent_private": True, "project_shared": True, "org_shared": False}
FRENCH = (
    "L'utilisateur préfère le mode sombre dans tous les éditeurs et souhaite recevoir des réponses courtes, "
    "précises et sans détails inutiles."
)
SECRET = "Fact: the deploy password: hunter22 works."


def gate(
    text="Preference: dark mode in every editor.",
    note_type="preference",
    scope="agent_private",
    max_note_chars=240,
    key=None,
    write_allowed=WRITE_ALLOWED,
):
    return evaluate_note(
        text=text,
        note_type=note_type,
        scope=scope,
        max_note_chars=max_note_chars,
        allowed_types=MEMORY_TYPES,
        allowed_scopes=SCOPES,
        write_allowed=write_allowed,
        key=key,
    )


def test_memory_types_are_the_six_of_the_spec():
    assert set(MEMORY_TYPES) == {"preference", "constraint", "decision", "profile", "fact", "plan"}


@pytest.mark.parametrize("note_type", MEMORY_TYPES)
def test_valid_note_passes(note_type):
    assert gate(note_type=note_type, key="editor_theme") is None


@pytest.mark.parametrize(
    "kwargs, verdict",
    [
        ({"text": ""}, GateVerdict(REJECT_EMPTY, "text")),
        ({"text": " \n\t\u3000"}, GateVerdict(REJECT_EMPTY, "text")),
        ({"text": FRENCH}, GateVerdict(REJECT_NON_ENGLISH, "text")),
        ({"text": "Предпочтение: тёмная тема"}, GateVerdict(REJECT_NON_ENGLISH, "text")),
        ({"text": "dark\u200bmode"}, GateVerdict(REJECT_NON_ENGLISH, "text")),
        ({"key": "тема"}, GateVerdict(REJECT_NON_ENGLISH, "key")),
        ({"key": "editor\ntheme"}, GateVerdict(REJECT_NON_ENGLISH, "key")),
        ({"text": "x" * 241}, GateVerdict(REJECT_TOO_LONG, "text")),
        ({"note_type": "opinion"}, GateVerdict(REJECT_INVALID_TYPE, "type")),
        ({"note_type": "Preference"}, GateVerdict(REJECT_INVALID_TYPE, "type")),
        ({"scope": "org_shared"}, GateVerdict(REJECT_SCOPE_DENIED, "scope")),
        ({"scope": "team_shared"}, GateVerdict(REJECT_SCOPE_DENIED, "scope")),
        (
            {"scope": "project_shared", "write_allowed": {"agent_private": True}},
            GateVerdict(REJECT_SCOPE_DENIED, "scope"),
        ),
        ({"text": SECRET}, GateVerdict(REJECT_SECRET, "text")),
        ({"text": "Profile: reach the user at jane.doe@example.com."}, GateVerdict(REJECT_SECRET, "text")),
        ({"key": "jane.doe@example.com"}, GateVerdict(REJECT_SECRET, "key")),
    ],
    ids=[
        "empty",
        "whitespace",
        "french",
        "cyrillic",
        "zero-width",
        "key-cyrillic",
        "key-newline",
        "too-long",
        "unknown-type",
        "type-case",
        "write-not-allowed",
        "scope-not-allowed",
        "scope-missing-from-write-allowed",
        "secret",
        "pii-email",
        "secret-in-key",
    ],
)
def test_each_rejection(kwargs, verdict):
    assert gate(**kwargs) == verdict


@pytest.mark.parametrize(
    "kwargs, reason_code",
    [
        ({"text": "   ", "note_type": "opinion", "scope": "nowhere"}, REJECT_EMPTY),
        ({"text": FRENCH * 3, "note_type": "opinion"}, REJECT_NON_ENGLISH),
        ({"text": "Предпочтение " * 30 + SECRET}, REJECT_NON_ENGLISH),
        ({"text": SECRET + " padding" * 40, "note_type": "opinion"}, REJECT_TOO_LONG),
        ({"text": SECRET + " padding" * 40}, REJECT_TOO_LONG),
        ({"text": SECRET, "note_type": "opinion", "scope": "nowhere"}, REJECT_INVALID_TYPE),
        ({"text": SECRET, "scope": "org_shared"}, REJECT_SCOPE_DENIED),
        ({"text": "x" * 300, "key": "тема"}, REJECT_NON_ENGLISH),
    ],
    ids=[
        "empty-before-type",
        "non-english-before-type",
        "non-english-before-secret",
        "too-long-before-type",
        "too-long-before-secret",
        "type-before-scope",
        "scope-before-secret",
        "key-language-before-length",
    ],
)
def test_first_failing_check_in_reference_order_wins(kwargs, reason_code):
    verdict = gate(**kwargs)
    assert verdict is not None and verdict.reason_code == reason_code


def test_length_is_counted_in_characters_after_nfkc():
    # U+FB01 (the "fi" ligature) is one character before NFKC and two after.
    assert gate(text="\ufb01" * 120, max_note_chars=240) is None
    assert gate(text="\ufb01" * 120, max_note_chars=239) == GateVerdict(REJECT_TOO_LONG, "text")
    # Characters, not bytes: 240 two-byte characters fit in 240.
    assert gate(text="é" * 240, max_note_chars=240) is None


def test_secret_detection_sees_the_nfkc_form():
    fullwidth_card = "Card ４１１１ １１１１ １１１１ １１１１ on file."
    assert gate(text=fullwidth_card) == GateVerdict(REJECT_SECRET, "text")


def test_a_context_is_judged_like_the_text_after_everything_else():
    from memory.domain.note_context import MAX_CONTEXT_CHARS, embedding_text

    def verdict(context, **kw):
        v = evaluate_note(text=kw.get("text", "Fact: ok."), note_type="fact", scope="agent_private",
                          max_note_chars=240, allowed_types=MEMORY_TYPES, allowed_scopes=["agent_private"],
                          write_allowed={"agent_private": True}, context=context)
        return None if v is None else (v.reason_code, v.field)

    assert verdict("") is None and verdict("Caroline: Did you go?") is None
    assert verdict("x" * MAX_CONTEXT_CHARS) is None
    assert verdict("x" * (MAX_CONTEXT_CHARS + 1)) == ("REJECT_TOO_LONG", "context")
    assert verdict("Это по-русски, совсем не английский текст.") == ("REJECT_NON_ENGLISH", "context")
    assert verdict("my password is hunter2-Secret!") == ("REJECT_SECRET", "context")
    assert verdict("my password is hunter2-Secret!", text="") == ("REJECT_EMPTY", "text")  # the text comes first
    assert embedding_text("a", "") == "a" and embedding_text("a", "b") == "a (b)"
