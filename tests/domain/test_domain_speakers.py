"""Whom a query asks about, and the query in their words (issue 32, elf_domain.speakers), pure."""

from __future__ import annotations

import pytest

from elf_domain.speakers import MAX_SUBJECTS, first_person, query_subjects, speaker_label


@pytest.mark.parametrize(
    "query,subjects",
    [
        ("When did Caroline go to the LGBTQ support group?", ["Caroline"]),
        ("What is Caroline's identity?", ["Caroline"]),
        ("What did Melanie paint recently?", ["Melanie"]),
        ("How long has Jon been dancing?", ["Jon"]),
        ("What do Jon and Gina both have in common?", ["Jon"]),  # only the word after the auxiliary
        # "Would" opens the question (capitalised: not read); "have Dr" reads a false subject, which costs one
        # dense search that finds nothing unless some note is said by "Dr"
        ("Would Caroline likely have Dr. Seuss books on her bookshelf?", ["Dr"]),
        ("What did Gina's mom say about Jon's studio?", ["Gina", "Jon"]),
        ("Where did Caroline move from 4 years ago? Did Caroline stay?", ["Caroline"]),  # once, first place
    ],
)
def test_subjects_are_the_names_after_an_auxiliary_or_before_a_possessive(query, subjects):
    assert query_subjects(query) == subjects


@pytest.mark.parametrize(
    "query",
    [
        "Did Caroline go to Paris?",  # a capitalised auxiliary opens a question: no lower-case auxiliary before
        "What was discussed in Paris last May?",  # a place after a preposition
        "what did i say about the deploy?",
        "Which runbook covers the Postgres failover?",
        "Does the LGBTQ group meet weekly?",  # an acronym is not a name of one capital and lower-case letters
        "When did I book the flight?",
        "",
    ],
)
def test_no_subject_without_a_name_in_those_places(query):
    assert query_subjects(query) == []


def test_subjects_are_capped():
    query = " ".join(f"What did {n} say?" for n in ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay"])
    assert query_subjects(query) == ["Ann", "Ben", "Cid", "Dan"][:MAX_SUBJECTS]


@pytest.mark.parametrize(
    "query,expected",
    [
        ("When did Caroline go to the LGBTQ support group?", "When did I go to the LGBTQ support group?"),
        ("What is Caroline's identity?", "What is my identity?"),
        ("What is Caroline’s job?", "What is my job?"),  # a typographic apostrophe
        ("What did Gina's mom tell Gina?", "What did my mom tell I?"),  # every mention, object too
        ("What did Carolineville say?", "What did Carolineville say?"),  # whole words only
    ],
)
def test_first_person_rewrites_the_subjects(query, expected):
    assert first_person(query, ["Caroline", "Gina"]) == expected


def test_first_person_without_subjects_is_the_query():
    assert first_person("When did Caroline go?", []) == "When did Caroline go?"


@pytest.mark.parametrize(
    "text,label",
    [
        ("Caroline: I went to a support group yesterday", "Caroline"),
        ("Dr Jane Smith: The results are in.", "Dr Jane Smith"),
        ("caroline: lower case is no label", None),
        ("Note: deploys freeze on Fridays", "Note"),  # the rule cannot tell a heading word from a name
        ("A Very Long Four Words: text", None),
        ("Caroline:no space", None),
        ("No colon here", None),
    ],
)
def test_speaker_label(text, label):
    assert speaker_label(text) == label
