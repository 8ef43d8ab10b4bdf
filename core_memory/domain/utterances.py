"""The natural-language triggers of core memory (core-memory-markdown section 6), deterministic and pure.

English only (the service's boundary: upstream canonicalises other languages first). Recognised:

- "remember that ...": a preference ("I prefer / like / want ...") or a fact, kept in PROFILE.md;
- "from now on ...": a lasting instruction on how to answer (tone, language, format, length, or free text);
- "set the reply tone to ...": ``response.tone``;
- "change my preference [for X] to ...": the preference named, or, when none is named, a guess that is staged;
- "forget ...": delete the key the words name.

"for this session", "for now", "for this task" or "for the next N minutes|hours|days" send a write to SESSION.md
(with ``session_end`` or that duration as TTL). Known topics map onto the spec's canonical keys
(``response.tone``, ``response.language``, ``response.format.default``, ``response.verbosity``); anything else is
keyed by a slug of its words (``preference.dark_mode``, ``fact.dog_named_rex``, ``instruction.cite_sources``).

Confidence: 0.95 for a known topic, 0.9 for an explicit trigger with free text, 0.6 for a guess (a preference
change that names no preference) and 0.3 less for a hedge ("maybe", "I think", "probably"). The service writes at
once at or above ``core_memory.inferred_min_confidence`` and stages the rest as pending.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .vocabulary import UtteranceOp

# What classify() decides (pending is the service's, for a guess below the confidence threshold).
UPSERT, DELETE, NONE = UtteranceOp.UPSERT, UtteranceOp.DELETE, UtteranceOp.NONE
KNOWN, EXPLICIT, GUESS, HEDGE_PENALTY = 0.95, 0.9, 0.6, 0.3

LANGUAGES = {"english": "en", "thai": "th", "french": "fr", "spanish": "es", "german": "de", "italian": "it",
             "portuguese": "pt", "dutch": "nl", "japanese": "ja", "chinese": "zh", "korean": "ko"}
SHORT = ("short", "brief", "briefly", "concise", "concisely", "terse", "one sentence", "few words", "succinct")
LONG = ("detailed", "in detail", "long", "thorough", "thoroughly", "verbose", "step by step")
FORMATS = {"bullet": "bullet-points", "bullets": "bullet-points", "bullet points": "bullet-points",
           "table": "table", "tables": "table", "markdown": "markdown", "json": "json", "prose": "prose",
           "plain text": "plain-text", "numbered list": "numbered-list", "code": "code"}
TONES = ("formal", "formally", "casual", "casually", "friendly", "professional", "polite", "politely", "warm",
         "neutral", "direct", "playful", "professional-friendly")
HEDGES = ("maybe", "i think", "probably", "perhaps", "i guess", "might", "not sure", "possibly")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "that",
        "this",
        "is",
        "am",
        "are",
        "be",
        "to",
        "of",
        "and",
        "or",
        "for",
        "in",
        "on",
        "with",
        "at",
        "by",
        "it",
        "its",
        "as",
        "so",
        "do",
        "does",
        "please",
        "always",
        "never",
        "should",
        "would",
        "will",
        "just",
        "about",
    ]
)

_LEAD = re.compile(r"^(?:(?:please|ok|okay|hey|also|and)[, ]+)+", re.I)
_HEDGE_LEAD = re.compile(r"^(?:(?:maybe|perhaps|probably|possibly|i think|i guess)[, ]+)+", re.I)
_SESSION_HINT = re.compile(
    r"[, ]*\b(?:for (?:this|the) (?:session|task|run|conversation|chat)|for now|"
    r"for the rest of (?:this|the) (?:session|task|run|conversation))\b",
    re.I,
)
_FOR_NEXT = re.compile(r"[, ]*\bfor the next (\d{1,4}) (minute|hour|day|week)s?\b", re.I)


@dataclass(frozen=True)
class Intent:
    op: str  # upsert | delete | none
    trigger: str | None = None
    scope: str = "profile"
    kind: str | None = None
    key: str | None = None
    value: str | None = None
    ttl: str = "none"
    confidence: float = 0.0
    explanation: str = ""


def slug(words: str, limit: int = 5) -> str:
    tokens = [t for t in re.findall(r"[a-z0-9]+", words.lower()) if t not in STOPWORDS]
    return "_".join(tokens[:limit]) or "item"


def _topic(text: str) -> tuple[str, str] | None:
    """(key, canonical value) when ``text`` is about how to answer: language, format, length or tone."""
    low = f" {text.lower()} "
    for name, code in LANGUAGES.items():
        if re.search(rf"\b(?:in|use|speak|write in|answer in|reply in)\s+{name}\b", low) or low.strip() == name:
            return "response.language", code
    if any(re.search(rf"\b{re.escape(w)}\b", low) for w in SHORT):
        return "response.verbosity", "concise"
    if any(re.search(rf"\b{re.escape(w)}\b", low) for w in LONG):
        return "response.verbosity", "detailed"
    for word, fmt in sorted(FORMATS.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"\b{re.escape(word)}\b", low):
            return "response.format.default", fmt
    for tone in TONES:
        if re.search(rf"\b{re.escape(tone)}\b", low):
            return "response.tone", tone.removesuffix("ly") if tone.endswith("ally") or tone.endswith("tely") else tone
    return None


def _named_key(text: str) -> str | None:
    """A dotted key written out (``forget response.tone``), or a known topic's key named in words."""
    m = re.search(r"\b([a-z0-9_\-]+(?:\.[a-z0-9_\-]+)+)\b", text.lower())
    if m:
        return m.group(1)
    low = text.lower()
    for word, key in (
        ("tone", "response.tone"),
        ("language", "response.language"),
        ("format", "response.format.default"),
        ("verbosity", "response.verbosity"),
        ("length", "response.verbosity"),
    ):
        if re.search(rf"\b{word}\b", low):
            return key
    return None


def _clean(text: str) -> str:
    t = " ".join(text.split()).strip(" ,;:")
    return _HEDGE_LEAD.sub("", _LEAD.sub("", t)).rstrip(" .!")


def _session(text: str) -> tuple[str, str, str]:
    """(text without the hint, scope, ttl) from a session hint."""
    m = _FOR_NEXT.search(text)
    if m:
        unit = {"minute": "m", "hour": "h", "day": "d", "week": "w"}[m.group(2).lower()]
        return _clean(text[: m.start()] + text[m.end() :]), "session", f"{int(m.group(1))}{unit}"
    m = _SESSION_HINT.search(text)
    if m:
        return _clean(text[: m.start()] + text[m.end() :]), "session", "session_end"
    return text, "profile", "none"


def _preference(rest: str) -> tuple[str, str, str, float] | None:
    m = re.match(r"^(?:i|we) (?:prefer|like|want|would like|love)\s+(.+)$", rest, re.I) or re.match(
        r"^my (?:preferred|favou?rite) ([a-z ]+?) is (.+)$", rest, re.I
    )
    if m is None:
        return None
    if len(m.groups()) == 2:
        return f"preference.{slug(m.group(1))}", m.group(2), "preference", EXPLICIT
    value = m.group(1)
    topic = _topic(value)
    if topic:
        return topic[0], topic[1], "preference", KNOWN
    return f"preference.{slug(value)}", value, "preference", EXPLICIT


def classify(text: str) -> Intent:
    """What an utterance asks core memory to do; ``op`` none when it holds no trigger."""
    hedged = any(re.search(rf"\b{re.escape(h)}\b", text.lower()) for h in HEDGES)
    t = _clean(text)
    t, scope, ttl = _session(t)
    intent = _match(t)
    if intent.op == NONE:
        return intent
    conf = round(max(intent.confidence - (HEDGE_PENALTY if hedged else 0.0), 0.0), 2)
    why = intent.explanation + ("; hedged wording lowers confidence" if hedged else "")
    if intent.op == DELETE:
        return Intent(DELETE, intent.trigger, key=intent.key, confidence=conf, explanation=why)
    return Intent(UPSERT, intent.trigger, scope, intent.kind, intent.key, intent.value, ttl, conf, why)


def _match(t: str) -> Intent:
    m = re.match(r"^forget (?:about |that |this[: ]+|the |my )?(.+)$", t, re.I)
    if m:
        what = m.group(1)
        key = _named_key(what)
        if key is None:
            pref = _preference(what)
            key = pref[0] if pref else f"fact.{slug(what)}"
        return Intent(DELETE, "forget", key=key, confidence=EXPLICIT, explanation=f"forget names {key}")
    m = re.match(r"^set (?:the |my )?(?:reply |response |answer )?tone to (.+)$", t, re.I)
    if m:
        return Intent(
            UPSERT,
            "set the reply tone to",
            kind="preference",
            key="response.tone",
            value=m.group(1).strip(),
            confidence=KNOWN,
            explanation="the reply tone",
        )
    m = re.match(r"^from now on,? (.+)$", t, re.I)
    if m:
        rest = m.group(1)
        topic = _topic(rest)
        if topic:
            return Intent(
                UPSERT,
                "from now on",
                kind="preference",
                key=topic[0],
                value=topic[1],
                confidence=KNOWN,
                explanation=f"a lasting answer preference ({topic[0]})",
            )
        return Intent(
            UPSERT,
            "from now on",
            kind="instruction",
            key=f"instruction.{slug(rest)}",
            value=rest,
            confidence=EXPLICIT,
            explanation="a lasting instruction",
        )
    m = re.match(r"^change my preference(?: (?:for|on|about|of) (.+?))? to (.+)$", t, re.I)
    if m:
        named, value = m.group(1), m.group(2).strip()
        topic = _topic(value) if named is None else None
        if named:
            key = _named_key(named) or f"preference.{slug(named)}"
            return Intent(
                UPSERT,
                "change my preference",
                kind="preference",
                key=key,
                value=value,
                confidence=EXPLICIT,
                explanation=f"the preference named ({key})",
            )
        if topic:
            return Intent(
                UPSERT,
                "change my preference",
                kind="preference",
                key=topic[0],
                value=topic[1],
                confidence=KNOWN - 0.1,
                explanation=f"no preference named; the words say {topic[0]}",
            )
        return Intent(
            UPSERT,
            "change my preference",
            kind="preference",
            key=f"preference.{slug(value)}",
            value=value,
            confidence=GUESS,
            explanation="no preference named: a guess, staged for confirmation",
        )
    m = re.match(r"^(?:remember|note|keep in mind)(?: that|:)? (.+)$", t, re.I)
    if m:
        rest = m.group(1)
        pref = _preference(rest)
        if pref:
            key, value, kind, conf = pref
            return Intent(
                UPSERT,
                "remember that",
                kind=kind,
                key=key,
                value=value,
                confidence=conf,
                explanation=f"a stated preference ({key})",
            )
        return Intent(
            UPSERT,
            "remember that",
            kind="fact",
            key=f"fact.{slug(rest)}",
            value=rest,
            confidence=EXPLICIT,
            explanation="a fact to keep",
        )
    return Intent(
        NONE,
        explanation="no memory trigger (remember that, from now on, set the reply tone to, "
        "change my preference to, forget)",
    )
