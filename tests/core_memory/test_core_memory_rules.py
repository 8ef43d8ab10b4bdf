"""core_memory's pure rules: precedence (Policy > Profile > Session; priority, updated_at, last write), every TTL
form, and the natural-language trigger classifier."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core_memory.domain.precedence import LAST_WRITE, PRIORITY, UPDATED_AT, Candidate, effective, tie_breaks
from core_memory.domain.ttl import TtlError, is_expired, parse_ttl
from core_memory.domain.utterances import classify
from core_memory.domain.vocabulary import MemoryScope

T0 = datetime(2026, 2, 7, 11, 0, tzinfo=UTC)
P, R, S = MemoryScope.POLICY, MemoryScope.PROFILE, MemoryScope.SESSION


def cand(scope, value, *, key="k", priority=50, at=T0, order=1):
    return Candidate(scope, key, value, "preference", priority, at, "user_explicit", "none", order)


def test_scope_beats_priority_and_time():
    best = effective([cand(S, "session", priority=1000, at=T0 + timedelta(days=9)),
                      cand(R, "profile", priority=0), cand(P, "policy", priority=0, at=T0 - timedelta(days=9))])
    assert best["k"].value == "policy"
    assert effective([cand(S, "session", priority=1000), cand(R, "profile", priority=0)])["k"].value == "profile"


def test_within_a_scope_priority_then_updated_at_then_last_write():
    assert effective([cand(R, "low", priority=10, order=2), cand(R, "high", priority=90, order=1)])["k"].value == "high"
    newer = T0 + timedelta(seconds=1)
    assert effective([cand(R, "old", order=2), cand(R, "new", at=newer, order=1)])["k"].value == "new"
    assert effective([cand(R, "first", order=1), cand(R, "last", order=2)])["k"].value == "last"


def test_tie_breaks_name_the_rule_that_decided():
    rules = {t.loser.value: t.rule for t in tie_breaks([
        cand(R, "win", priority=90, at=T0 + timedelta(hours=1), order=1),
        cand(R, "by-priority", priority=10, order=2),
        cand(R, "by-time", priority=90, order=3)])}
    assert rules == {"by-priority": PRIORITY, "by-time": UPDATED_AT}
    (tb,) = tie_breaks([cand(R, "a", order=1), cand(R, "b", order=2), cand(S, "c", order=3)])
    assert (tb.winner.value, tb.loser.value, tb.rule) == ("b", "a", LAST_WRITE)
    assert "line 2 beats line 1" in tb.reason()
    assert tie_breaks([cand(R, "x", key="a"), cand(R, "y", key="b")]) == []


@pytest.mark.parametrize("text, seconds", [("30m", 1800), ("8h", 28800), ("7d", 604800), ("45s", 45), ("2w", 1209600)])
def test_duration_ttls_expire_after_their_length(text, seconds):
    ttl = parse_ttl(text)
    assert ttl.seconds == seconds and ttl.expires_at(T0) == T0 + timedelta(seconds=seconds)
    assert not is_expired(ttl, T0, T0 + timedelta(seconds=seconds - 1), run_ended=False)
    assert is_expired(ttl, T0, T0 + timedelta(seconds=seconds), run_ended=False)


def test_absolute_none_and_session_end_ttls():
    at = parse_ttl("2026-03-01T00:00:00+07:00")
    assert at.expires_at(T0) == datetime(2026, 2, 28, 17, 0, tzinfo=UTC)
    assert not is_expired(at, T0, datetime(2026, 2, 28, 16, 59, tzinfo=UTC), run_ended=True)
    assert is_expired(at, T0, datetime(2026, 2, 28, 17, 0, tzinfo=UTC), run_ended=False)
    assert parse_ttl("2026-03-01T00:00:00Z").at == datetime(2026, 3, 1, tzinfo=UTC)
    forever = parse_ttl("none")
    assert forever.expires_at(T0) is None and not is_expired(forever, T0, T0 + timedelta(days=3650), run_ended=True)
    end = parse_ttl("session_end")
    assert end.session_end and end.expires_at(T0) is None
    assert not is_expired(end, T0, T0 + timedelta(days=365), run_ended=False)
    assert is_expired(end, T0, T0, run_ended=True)


@pytest.mark.parametrize("bad", ["", "8", "8x", "0h", "-5m", "soon", "2026-03-01T00:00:00", "2026-13-01T00:00:00Z",
                                 "99999999d", "NONE"])
def test_bad_ttls_are_refused(bad):
    with pytest.raises(TtlError):
        parse_ttl(bad)


@pytest.mark.parametrize("text, op, scope, key, value, ttl", [
    ("Remember that I prefer short answers.", "upsert", "profile", "response.verbosity", "concise", "none"),
    ("remember that my dog is named Rex", "upsert", "profile", "fact.dog_named_rex", "my dog is named Rex", "none"),
    ("From now on answer in bullet points", "upsert", "profile", "response.format.default", "bullet-points", "none"),
    ("from now on, reply in Thai", "upsert", "profile", "response.language", "th", "none"),
    ("from now on, always cite your sources", "upsert", "profile", "instruction.cite_sources",
     "always cite your sources", "none"),
    ("Set the reply tone to professional-friendly", "upsert", "profile", "response.tone", "professional-friendly",
     "none"),
    ("change my preference for editor theme to dark", "upsert", "profile", "preference.editor_theme", "dark", "none"),
    ("For this session, remember that the deadline is Friday", "upsert", "session", "fact.deadline_friday",
     "the deadline is Friday", "session_end"),
    ("remember that the build is red for the next 2 hours", "upsert", "session", "fact.build_red", "the build is red",
     "2h"),
    ("forget my reply tone", "delete", "profile", "response.tone", None, "none"),
    ("Please forget response.language", "delete", "profile", "response.language", None, "none"),
    ("forget that I prefer short answers", "delete", "profile", "response.verbosity", None, "none"),
    ("what is the weather like", "none", "profile", None, None, "none"),
])
def test_triggers_are_classified(text, op, scope, key, value, ttl):
    got = classify(text)
    assert (got.op, got.scope, got.key, got.value, got.ttl) == (op, scope, key, value, ttl)
    assert (got.confidence >= 0.8) == (op != "none")


def test_guesses_and_hedges_fall_below_the_default_threshold():
    guess = classify("change my preference to dark mode")
    assert (guess.key, guess.confidence) == ("preference.dark_mode", 0.6)
    hedged = classify("maybe remember that I like green tea")
    assert (hedged.op, hedged.key, hedged.confidence) == ("upsert", "preference.green_tea", 0.6)
    assert classify("remember that I like green tea").confidence == 0.9


def test_classification_is_deterministic():
    text = "From now on, answer formally for this session"
    assert len({classify(text) for _ in range(5)}) == 1
    assert classify(text).key == "response.tone" and classify(text).ttl == "session_end"
