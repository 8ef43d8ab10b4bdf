"""core_memory.domain.markdown, pure: the spec's three examples round-trip byte for byte and render canonically;
hostile input (missing fields, '|' inside values, duplicate keys, unknown kinds, CRLF) parses or fails naming
the line and the field; the service's edits keep every other line as it was."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core_memory.domain.markdown import Entry, ParseError, empty_document, parse, remove_key, render, upsert
from core_memory.domain.vocabulary import MemoryScope

SPEC = Path(__file__).resolve().parents[2] / "docs" / "spec" / "core-memory-markdown.md"
EXAMPLES = dict(zip((MemoryScope.PROFILE, MemoryScope.SESSION, MemoryScope.POLICY),
                    re.findall(r"```md\n(.*?)```", SPEC.read_text(), re.S), strict=False))
T = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def canonical(doc):
    """The document with every entry line re-rendered by the renderer instead of kept as read."""
    return replace(doc, lines=tuple(replace(ln, text=None) if ln.entry else ln for ln in doc.lines))


@pytest.mark.parametrize("scope", list(EXAMPLES), ids=str)
def test_spec_examples_round_trip_and_render_canonically(scope):
    text = EXAMPLES[scope]
    doc = parse(text, scope)
    assert render(doc) == text
    assert render(canonical(doc)) == text  # the renderer writes the spec's own form
    assert len(doc.entries()) in (2, 3)


def test_spec_profile_fields_are_parsed():
    (n, tone), (_, lang), (_, fmt) = parse(EXAMPLES[MemoryScope.PROFILE], MemoryScope.PROFILE).entries()
    assert (n, tone.key, tone.value, tone.kind, tone.priority, tone.ttl, tone.source) == (
        4, "response.tone", "professional-friendly", "preference", 70, "none", "user_explicit")
    assert tone.updated_at == datetime(2026, 2, 7, 11, 0, tzinfo=UTC)
    assert (lang.value, fmt.source) == ("th", "user_inferred")


def test_session_and_policy_kinds_come_from_their_sections():
    session = parse(EXAMPLES[MemoryScope.SESSION], MemoryScope.SESSION).entries()
    assert [e.ttl for _, e in session] == ["session_end", "8h"] and {e.kind for _, e in session} == {"fact"}
    policy = parse(EXAMPLES[MemoryScope.POLICY], MemoryScope.POLICY).entries()
    assert {e.kind for _, e in policy} == {"constraint"} and policy[1][1].value.count(",") == 5


def test_crlf_and_no_final_newline_round_trip():
    text = EXAMPLES[MemoryScope.PROFILE].replace("\n", "\r\n").rstrip("\r\n")
    doc = parse(text, MemoryScope.PROFILE)
    assert render(doc) == text and len(doc.entries()) == 3
    edited, _ = upsert(doc, Entry("user.name", "Ana", "fact", updated_at=T))
    out = render(edited)
    assert out.startswith(text) and out.endswith("\r\n") and "\n" not in out.replace("\r\n", "")


def test_hand_spacing_is_kept_and_defaults_fill_missing_optional_fields():
    text = "# PROFILE\n\n## Facts\n-   key:user.city|value:Lisbon   \n\n\n"
    doc = parse(text, MemoryScope.PROFILE)
    assert render(doc) == text
    (_, e), = doc.entries()
    assert (e.key, e.value, e.kind, e.priority, e.ttl, e.source, e.updated_at) == (
        "user.city", "Lisbon", "fact", 50, "none", None, None)


def test_escaped_pipe_inside_a_value_round_trips_and_unescapes():
    text = "# PROFILE\n\n## Facts\n- key:shell.pipe | value:use a \\| b and C:\\\\temp | priority:60\n"
    doc = parse(text, MemoryScope.PROFILE)
    (_, e), = doc.entries()
    assert e.value == "use a | b and C:\\temp"
    assert render(doc) == text
    assert parse(render(canonical(doc)), MemoryScope.PROFILE).entries()[0][1].value == e.value


@pytest.mark.parametrize("line, field", [
    ("- value:short", "key"),
    ("- key:response.tone", "value"),
    ("- key:response.tone | value:", "value"),
    ("- key:a | value:x | b", "field 3"),  # an unescaped '|' inside a value
    ("- key:a | value:x | colour:red", "colour"),
    ("- key:a | value:x | kind:opinion", "kind"),
    ("- key:a | value:x | priority:high", "priority"),
    ("- key:a | value:x | priority:5000", "priority"),
    ("- key:a | value:x | ttl:soon", "ttl"),
    ("- key:a | value:x | ttl:session_end", "ttl"),  # a SESSION.md TTL in PROFILE.md
    ("- key:a | value:x | source:someone", "source"),
    ("- key:a | value:x | source:admin", "source"),  # admin writes POLICY.md only
    ("- key:a | value:x | updated_at:2026-02-07T11:00:00", "updated_at"),  # no zone
    ("- key:a | value:x | key:b", "key"),
    ("- key:bad key | value:x", "key"),
    ("plain prose", "line"),
    ("# SECOND TITLE", "line"),
    ("## ", "section"),  # a section line with no name (was an AttributeError: a 500 on PUT)
    ("##    ", "section"),
])
def test_malformed_lines_name_their_line_and_field(line, field):
    text = f"# PROFILE\n\n## Preferences\n- key:ok | value:fine\n{line}\n"
    with pytest.raises(ParseError) as err:
        parse(text, MemoryScope.PROFILE)
    assert (err.value.line, err.value.field) == (5, field)


def test_title_section_and_kind_rules():
    with pytest.raises(ParseError) as err:
        parse("# SESSION\n", MemoryScope.PROFILE)
    assert (err.value.line, err.value.field) == (1, "title")
    with pytest.raises(ParseError) as err:
        parse("# PROFILE\n- key:a | value:b\n", MemoryScope.PROFILE)
    assert (err.value.line, err.value.field) == (2, "line")
    with pytest.raises(ParseError) as err:
        parse("# PROFILE\n## Misc\n- key:a | value:b\n", MemoryScope.PROFILE)
    assert (err.value.line, err.value.field) == (3, "kind")
    (_, e), = parse("# PROFILE\n## Misc\n- key:a | kind:fact | value:b\n", MemoryScope.PROFILE).entries()
    assert e.kind == "fact"
    assert parse("", MemoryScope.PROFILE).entries() == [] and parse("\n\n", MemoryScope.SESSION).entries() == []


def test_a_lone_carriage_return_is_refused():
    with pytest.raises(ParseError) as err:
        parse("# PROFILE\n## Facts\n- key:a | value:b\rc\n", MemoryScope.PROFILE)
    assert err.value.line == 3


def test_duplicate_keys_parse_and_upsert_leaves_one_line():
    text = (
        "# PROFILE\n\n## Preferences\n- key:tone | value:warm | priority:60\n- key:x | value:y\n"
        "- key:tone | value:dry\n"
    )
    doc = parse(text, MemoryScope.PROFILE)
    assert [e.key for _, e in doc.entries()] == ["tone", "x", "tone"]
    edited, removed = upsert(doc, Entry("tone", "calm", "preference", priority=70, updated_at=T))
    assert [(n, e.value) for n, e in removed] == [(4, "warm"), (6, "dry")]
    assert render(edited) == (
        "# PROFILE\n\n## Preferences\n- key:tone | value:calm | priority:70 | ttl:none | "
        "updated_at:2026-03-01T09:30:00Z\n- key:x | value:y\n"
    )


def test_upsert_files_a_kind_under_its_section_and_keeps_other_lines_byte_for_byte():
    text = EXAMPLES[MemoryScope.SESSION]
    doc = parse(text, MemoryScope.SESSION)
    fact, _ = upsert(doc, Entry("task.deadline", "Friday", "fact", ttl="session_end", source="system", updated_at=T))
    lines = render(fact).splitlines()
    assert lines[:5] == text.splitlines()  # appended to Context, the session's fact section
    assert len(lines) == 6 and lines[5].startswith("- key:task.deadline | value:Friday |")
    rule, _ = upsert(fact, Entry("style.no_emoji", "never use emoji", "constraint", updated_at=T))
    assert render(rule).endswith(
        "\n\n## Constraints\n- key:style.no_emoji | value:never use emoji | priority:50 | "
        "ttl:none | updated_at:2026-03-01T09:30:00Z\n"
    )
    moved, removed = upsert(rule, Entry("task.deadline", "Monday", "instruction", updated_at=T))
    assert [e.value for _, e in removed] == ["Friday"] and "## Instructions\n- key:task.deadline | kind" not in render(
        moved
    )
    assert parse(render(moved), MemoryScope.SESSION).entries()[-1][1].kind == "instruction"


def test_remove_key_and_empty_document():
    doc = parse(EXAMPLES[MemoryScope.PROFILE], MemoryScope.PROFILE)
    after, removed = remove_key(doc, "response.language")
    assert [e.key for _, e in removed] == ["response.language"]
    assert render(after) == EXAMPLES[MemoryScope.PROFILE].replace(
        EXAMPLES[MemoryScope.PROFILE].splitlines()[4] + "\n", ""
    )
    assert remove_key(doc, "nope")[1] == []
    assert render(empty_document(MemoryScope.POLICY)) == "# POLICY\n"
    first, _ = upsert(parse("", MemoryScope.SESSION), Entry("goal", "ship it", "fact", ttl="session_end"))
    assert render(first) == "# SESSION\n\n## Context\n- key:goal | value:ship it | priority:50 | ttl:session_end\n"
