"""write_policy (supplement section 5): span validation with exact JSONPaths, and applying the policy."""

from __future__ import annotations

import pytest

from elf_domain.write_policy import (
    MAX_REPLACEMENT_CHARS,
    Redaction,
    Span,
    WritePolicy,
    WritePolicyError,
    apply_write_policy,
    parse_write_policy,
)

P = "$.messages[2].write_policy"
TEXT = "Café menu ☕ costs 5€, token abc123 stays secret."  # é, ☕ and € are 2, 3 and 3 bytes


def at(fragment: str, text: str = TEXT) -> int:
    """The UTF-8 byte offset of ``fragment`` in ``text``."""
    return text.encode().index(fragment.encode())


def span(fragment: str, text: str = TEXT) -> dict[str, int]:
    start = at(fragment, text)
    return {"start": start, "end": start + len(fragment.encode())}


def error(raw, text=TEXT) -> WritePolicyError:
    with pytest.raises(WritePolicyError) as info:
        parse_write_policy(raw, text, P)
    return info.value


def test_empty_policy_and_absent_lists_mean_no_spans():
    assert parse_write_policy({}, TEXT, P) == WritePolicy((), ())
    assert parse_write_policy({"exclusions": [], "redactions": []}, TEXT, P) == WritePolicy((), ())


def test_valid_policy_parses_in_request_order():
    raw = {
        "exclusions": [span("stays"), span("Café")],
        "redactions": [
            {"kind": "replace", "span": span("abc123"), "replacement": "***"},
            {"kind": "remove", "span": span("☕")},
        ],
    }
    policy = parse_write_policy(raw, TEXT, P)
    assert policy.exclusions == (Span(**span("stays")), Span(**span("Café")))
    assert policy.redactions == (
        Redaction("replace", Span(**span("abc123")), "***"),
        Redaction("remove", Span(**span("☕")), ""),
    )


def test_span_may_cover_the_whole_text_and_adjacent_spans_do_not_overlap():
    size = len(TEXT.encode())
    whole = parse_write_policy({"exclusions": [{"start": 0, "end": size}]}, TEXT, P)
    assert whole.exclusions == (Span(0, size),)
    cut = at(" menu")
    adjacent = {
        "exclusions": [{"start": 0, "end": cut}],
        "redactions": [{"kind": "remove", "span": {"start": cut, "end": size}}],
    }
    assert len(parse_write_policy(adjacent, TEXT, P).redactions) == 1


@pytest.mark.parametrize(
    "raw, path",
    [
        ([], P),
        (None, P),
        ({"exclusions": [], "redact": []}, f"{P}.redact"),
        ({"exclusions": [{"start": 0, "end": 1, "len": 1}]}, f"{P}.exclusions[0].len"),
        (
            {"redactions": [{"kind": "remove", "span": {"start": 0, "end": 1}, "replacement": "x"}]},
            f"{P}.redactions[0].replacement",
        ),
        (
            {"redactions": [{"kind": "remove", "span": {"start": 0, "end": 1, "x y": 2}}]},
            f'{P}.redactions[0].span["x y"]',
        ),
        ({"exclusions": None}, f"{P}.exclusions"),
        ({"redactions": {"kind": "remove"}}, f"{P}.redactions"),
        ({"exclusions": ["0-1"]}, f"{P}.exclusions[0]"),
        ({"exclusions": [{"end": 1}]}, f"{P}.exclusions[0].start"),
        ({"exclusions": [{"start": 0}]}, f"{P}.exclusions[0].end"),
        ({"exclusions": [{"start": "0", "end": 1}]}, f"{P}.exclusions[0].start"),
        ({"exclusions": [{"start": 0, "end": 1.0}]}, f"{P}.exclusions[0].end"),
        ({"exclusions": [{"start": False, "end": 1}]}, f"{P}.exclusions[0].start"),
        ({"redactions": ["remove"]}, f"{P}.redactions[0]"),
        ({"redactions": [{"span": {"start": 0, "end": 1}}]}, f"{P}.redactions[0].kind"),
        ({"redactions": [{"kind": "mask", "span": {"start": 0, "end": 1}}]}, f"{P}.redactions[0].kind"),
        ({"redactions": [{"kind": "remove"}]}, f"{P}.redactions[0].span"),
        ({"redactions": [{"kind": "replace", "span": {"start": 0, "end": 1}}]}, f"{P}.redactions[0].replacement"),
        (
            {"redactions": [{"kind": "replace", "span": {"start": 0, "end": 1}, "replacement": 7}]},
            f"{P}.redactions[0].replacement",
        ),
    ],
)
def test_bad_shape_names_the_element(raw, path):
    assert error(raw).path == path


def test_unknown_policy_key_is_rejected_with_its_path():
    err = error({"exclusions": [], "mask": []})
    assert err.path == f"{P}.mask"
    assert "unknown field" in err.message
    assert str(err) == f"{P}.mask: {err.message}"


@pytest.mark.parametrize(
    "bad_span, field",
    [
        ({"start": -1, "end": 2}, "start"),
        ({"start": len(TEXT.encode()), "end": len(TEXT.encode()) + 1}, "start"),
        ({"start": 0, "end": len(TEXT.encode()) + 1}, "end"),
        ({"start": 3, "end": 3}, "end"),  # empty
        ({"start": 4, "end": 2}, "end"),  # reversed
    ],
)
def test_out_of_bounds_and_empty_spans_name_the_offset(bad_span, field):
    assert error(
        {"redactions": [{"kind": "remove", "span": {"start": 0, "end": 1}}, {"kind": "remove", "span": bad_span}]}
    ).path == (f"{P}.redactions[1].span.{field}")
    assert error({"exclusions": [bad_span]}).path == f"{P}.exclusions[0].{field}"


def test_any_span_on_empty_text_is_out_of_bounds():
    assert error({"exclusions": [{"start": 0, "end": 1}]}, text="").path == f"{P}.exclusions[0].start"
    assert parse_write_policy({"exclusions": []}, "", P) == WritePolicy((), ())


def test_offsets_inside_a_multibyte_character_are_misaligned():
    cup = at("☕")  # 3 bytes: cup+1 and cup+2 are continuation bytes
    assert error({"exclusions": [{"start": cup + 1, "end": cup + 3}]}).path == f"{P}.exclusions[0].start"
    assert error({"exclusions": [{"start": cup, "end": cup + 2}]}).path == f"{P}.exclusions[0].end"
    e = at("é")
    raw = {"redactions": [{"kind": "replace", "span": {"start": 0, "end": e + 1}, "replacement": "x"}]}
    err = error(raw)
    assert err.path == f"{P}.redactions[0].span.end"
    assert "multi-byte" in err.message
    # the same offsets on character boundaries are fine
    assert parse_write_policy({"exclusions": [{"start": cup, "end": cup + 3}]}, TEXT, P).exclusions == (
        Span(cup, cup + 3),
    )


@pytest.mark.parametrize(
    "raw, path, other",
    [
        ({"exclusions": [{"start": 0, "end": 6}, {"start": 5, "end": 9}]}, f"{P}.exclusions[1]", f"{P}.exclusions[0]"),
        ({"exclusions": [{"start": 5, "end": 9}, {"start": 0, "end": 6}]}, f"{P}.exclusions[1]", f"{P}.exclusions[0]"),
        (
            {"exclusions": [{"start": 0, "end": 20}, {"start": 6, "end": 10}]},
            f"{P}.exclusions[1]",
            f"{P}.exclusions[0]",
        ),
        (
            {
                "exclusions": [{"start": 0, "end": 5}],
                "redactions": [{"kind": "remove", "span": {"start": 0, "end": 5}}],
            },
            f"{P}.redactions[0].span",
            f"{P}.exclusions[0]",
        ),
        (
            {
                "exclusions": [{"start": 30, "end": 35}],
                "redactions": [
                    {"kind": "remove", "span": {"start": 0, "end": 5}},
                    {"kind": "replace", "span": {"start": 10, "end": 31}, "replacement": "#"},
                ],
            },
            f"{P}.redactions[1].span",
            f"{P}.exclusions[0]",
        ),
    ],
)
def test_overlapping_spans_name_the_later_span_and_the_one_it_overlaps(raw, path, other):
    err = error(raw)
    assert err.path == path
    assert err.message == f"overlaps {other}"


def test_replacement_limits():
    base = {"kind": "replace", "span": {"start": 0, "end": 1}}
    ok = parse_write_policy({"redactions": [{**base, "replacement": "x" * MAX_REPLACEMENT_CHARS}]}, TEXT, P)
    assert ok.redactions[0].replacement == "x" * MAX_REPLACEMENT_CHARS
    assert parse_write_policy({"redactions": [{**base, "replacement": ""}]}, TEXT, P).redactions[0].replacement == ""
    for bad in ("x" * (MAX_REPLACEMENT_CHARS + 1), "a\nb", "a\x00b", "a\u200bb"):
        assert error({"redactions": [{**base, "replacement": bad}]}).path == f"{P}.redactions[0].replacement"


def test_apply_with_multibyte_text_exclusions_replace_and_remove_together():
    raw = {
        "exclusions": [span(" stays secret"), span("Café ")],
        "redactions": [
            {"kind": "replace", "span": span("abc123"), "replacement": "[REDACTED]"},
            {"kind": "remove", "span": span("☕ ")},
            {"kind": "replace", "span": span("5€"), "replacement": "N€"},
        ],
    }
    policy = parse_write_policy(raw, TEXT, P)
    transformed, audit = apply_write_policy(TEXT, policy)
    assert transformed == "menu costs N€, token [REDACTED]."
    assert audit == {
        "exclusions": [span("Café "), span(" stays secret")],
        "redactions": [
            {"span": span("☕ "), "replacement": ""},
            {"span": span("5€"), "replacement": "N€"},
            {"span": span("abc123"), "replacement": "[REDACTED]"},
        ],
    }


def test_apply_empty_policy_keeps_text():
    assert apply_write_policy(TEXT, WritePolicy((), ())) == (TEXT, {"exclusions": [], "redactions": []})


def test_apply_excluding_everything_leaves_empty_text():
    size = len(TEXT.encode())
    policy = parse_write_policy({"exclusions": [{"start": 0, "end": size}]}, TEXT, P)
    assert apply_write_policy(TEXT, policy) == ("", {"exclusions": [{"start": 0, "end": size}], "redactions": []})
