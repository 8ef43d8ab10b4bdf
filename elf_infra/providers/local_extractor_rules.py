"""Pure helpers of the offline extractor: sentence and clause splitting, the sentence filters, the statement
rules, canonical-text rewriting (first person -> "the user") and key derivation. See ``local_extractor``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_I = re.IGNORECASE
_APOS = "['’]"

# --- sentences and clauses -----------------------------------------------------------------------------------

_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")
# Used with .match(text, pos): anchored at pos, so no "^" (which would only match at index 0).
_BULLET = re.compile(r"(?:[-*\u2022]\s+)+")
# Clause boundaries inside one sentence: ";" or ", and"/"and"/", but"/", so" before a new first-person
# subject or imperative trigger ("I prefer tabs and we decided to use ruff").
_CLAUSE_BOUNDARY = re.compile(
    rf";\s*|,?\s+(?:and|but|so|also)\s+(?=(?:I|I{_APOS}\w+|we|my|let{_APOS}s|please|never|always)\b)|,\s+(?=(?:I|I{_APOS}\w+|we|my|let{_APOS}s)\s)",
)


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each sentence or line of ``text``, trimmed of whitespace and list bullets."""
    start = 0
    for boundary in _SENTENCE_BOUNDARY.finditer(text):
        yield from _trimmed(text, start, boundary.start())
        start = boundary.end()
    yield from _trimmed(text, start, len(text))


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    bullet = _BULLET.match(text, start, end)
    if bullet:
        start = bullet.end()
    if start < end:
        yield start, end


def clauses(sentence: str) -> list[str]:
    """The sentence cut into clauses that each may hold one statement, trailing punctuation removed."""
    parts = (p.strip().rstrip(".!,;:").strip() for p in _CLAUSE_BOUNDARY.split(sentence))
    return [p for p in parts if p]


# --- sentence filters ---------------------------------------------------------------------------------------

_QUESTION_START = re.compile(
    r"^(?:what|how|why|when|where|who|which|can|could|would|should|shall|do(?!\s+not\b)|does|did|is|are|was|were|will|"
    r"have|has|any|anything)\b",
    _I,
)
_HYPOTHETICAL = re.compile(
    r"^(?:if|suppose|supposing|imagine|assuming|hypothetically|say|what\s+if|in\s+case|unless|when)\b"
    r"|\bif\s+(?:I|we)\s+(?:were|was|had|could)\b|\bwere\s+I\b|\bhypothetically\b|\bin\s+theory\b",
    _I,
)
_UNCERTAIN = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|might|may\s+be|not\s+sure|unsure|i\s+guess|i\s+wonder|"
    rf"don{_APOS}t\s+know|do\s+not\s+know|no\s+idea|thinking\s+about|considering|undecided|"
    rf"(?:I|we)\s+think\s+(?:I|we){_APOS}?(?:ll|\s+will|\s+should)|kidding|joking)\b",
    _I,
)


def skippable(sentence: str) -> bool:
    """Questions, hypotheticals and negated/uncertain statements: never a memory."""
    return (
        sentence.rstrip().endswith("?")
        or bool(_QUESTION_START.match(sentence))
        or bool(_HYPOTHETICAL.search(sentence))
        or bool(_UNCERTAIN.search(sentence))
    )


# --- first person -> "the user" ------------------------------------------------------------------------------

_MODALS = frozenset("will would can could should shall must might may did".split())
_IRREGULAR = {"am": "is", "have": "has", "do": "does", "was": "was", "go": "goes"}
_CONTRACTIONS = {"m": "is", "ll": "will", "ve": "has", "d": "would"}
_FIRST_PERSON = re.compile(
    rf"\b(?:I{_APOS}(?P<contr>m|ll|ve|d)|I(?:\s+(?P<verb>[a-z]+))?|(?P<poss>my|mine|myself|me)|"
    rf"(?P<sub>when|whenever|if|that|because|before|after|while|as)\s+you\s+(?P<yverb>[a-z]+)|"
    rf"(?P<you>you{_APOS}(?:re|ll|ve|d)|your|yours|yourself|you))\b",
)
_YOU = {
    "your": "the assistant's",
    "yours": "the assistant's",
    "yourself": "the assistant",
    "you": "the assistant",
}


def _third_person_verb(verb: str) -> str:
    if verb in _MODALS:
        return verb
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str, *, user_named: bool = True) -> str:
    """``text`` with the speaker's first person rewritten about "the user" (after ``user_named`` as
    they/their) and "you" as "the assistant"; verbs after "I" agree with the new subject."""
    named = user_named

    def swap(m: re.Match[str]) -> str:
        nonlocal named
        if m.group("sub"):
            return f"{m.group('sub')} the assistant {_third_person_verb(m.group('yverb'))}"
        if m.group("you"):
            word = m.group("you").lower()
            if word in _YOU:
                return _YOU[word]
            return {
                "re": "the assistant is",
                "ll": "the assistant will",
                "ve": "the assistant has",
                "d": "the assistant would",
            }[word[4:]]
        poss = (m.group("poss") or "").lower()
        first = not named
        named = True
        if poss == "my":
            return "the user's" if first else "their"
        if poss == "mine":
            return "the user's" if first else "theirs"
        if poss in ("me", "myself"):
            return "the user" if first else ("them" if poss == "me" else "themselves")
        if m.group("contr"):
            aux = _CONTRACTIONS[m.group("contr").lower()]
            return f"the user {aux}" if first else "they " + {"is": "are", "has": "have"}.get(aux, aux)
        verb = m.group("verb")
        if verb is None:
            return "the user" if first else "they"
        if first:
            return f"the user {_third_person_verb(verb)}"
        return "they " + {"am": "are", "was": "were"}.get(verb, verb)

    return _FIRST_PERSON.sub(swap, text)


_FUNCTION_WORDS = frozenset(
    "a an the this that these those it its our we they there all every each some any no one to in on at for "
    "with by from of and or but as is be".split()
)


def lower_first(text: str) -> str:
    """Lower-case a leading function word ("The" -> "the"), never a name ("Postgres", "Ana")."""
    first = text.split(" ", 1)[0]
    return text[0].lower() + text[1:] if first.lower() in _FUNCTION_WORDS else text


# --- keys ---------------------------------------------------------------------------------------------------

_LANGUAGES = frozenset(
    "Python TypeScript JavaScript Rust Go Golang Java Kotlin Swift Ruby PHP Perl Scala Haskell Elixir Erlang "
    "Clojure Julia Lua Dart Zig Nim OCaml Fortran COBOL C C++ C# F# SQL Bash".split()
)
_THEME = re.compile(r"\b(?:dark|light)\s+(?:mode|theme)s?\b", _I)
_STOPWORDS = _FUNCTION_WORDS | frozenset(
    "their them they user's user assistant's assistant over than when more most much very really just "
    "please always you your me my i using use have get".split()
)
MAX_KEY_CHARS = 48


def slug(text: str, *, words: int = 4, max_chars: int = MAX_KEY_CHARS) -> str:
    """Lower-case ASCII slug of the first ``words`` content words, cut at a word boundary to ``max_chars``."""
    kept: list[str] = []
    for token in re.findall(r"[a-z0-9+#]+", text.lower()):
        token = token.replace("+", "p").replace("#", "sharp")
        if token not in _STOPWORDS:
            kept.append(token)
        if len(kept) == words:
            break
    out = ""
    for token in kept:
        candidate = f"{out}_{token}" if out else token
        if len(candidate) > max_chars:
            break
        out = candidate
    return out


def preference_key(obj: str) -> str | None:
    """``preferred_language`` when the object starts with a programming language, ``preferred_editor_theme``
    for dark/light mode, else ``preference_<slug>``."""
    first = obj.split(" ", 1)[0].rstrip(",.;:")
    if first in _LANGUAGES:
        return "preferred_language"
    if _THEME.search(obj):
        return "preferred_editor_theme"
    rest = slug(obj, max_chars=MAX_KEY_CHARS - len("preference_"))
    return f"preference_{rest}" if rest else None


# --- rules --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """What a rule recognised in one clause: the note type, its key and the canonical note text."""

    rule: str
    note_type: str
    key: str | None
    text: str


@dataclass(frozen=True)
class Rule:
    name: str
    note_type: str
    patterns: tuple[re.Pattern[str], ...]
    build: Callable[[re.Match[str]], tuple[str | None, str] | None]  # (key, text) or None to reject
    assistant: bool = False  # also applies to assistant messages


def _rest(m: re.Match[str]) -> str:
    return m.group("rest").strip()


def _fact(m: re.Match[str]) -> tuple[None, str]:
    return None, "Fact: " + lower_first(third_person(_rest(m), user_named=False)) + "."


_LIKE_VERB = {"prefer": "prefers", "like": "likes", "love": "loves", "enjoy": "enjoys"}


_DEICTIC = re.compile(r"^(?:this|that|these|those|it|them)\b", _I)


def _preference(m: re.Match[str]) -> tuple[str | None, str] | None:
    if _DEICTIC.match(_rest(m)):  # "I like that idea": about the conversation, not a durable preference
        return None
    obj = third_person(_rest(m))
    verb = m.group("verb").strip().lower()
    text = f"the user would rather {obj}" if "rather" in verb else f"the user {_LIKE_VERB[verb.split()[-1]]} {obj}"
    return preference_key(_rest(m)), f"Preference: {text}."


def _favourite(m: re.Match[str]) -> tuple[str | None, str]:
    what, value = m.group("what").strip(), third_person(_rest(m))
    key = "preferred_language" if re.search(r"\blanguage\b", what, _I) else preference_key(f"favorite {what}")
    return key, f"Preference: the user's {m.group('adj').lower()} {what} is {value}."


def _always(m: re.Match[str]) -> tuple[str | None, str]:
    obj = third_person(_rest(m))
    return preference_key(_rest(m)), f"Preference: the assistant should always {obj}."


_CHITCHAT_VERBS = re.compile(r"^(?:worry|bother|mind|hesitate|panic|apologi[sz]e|sweat|stress|be\s+sorry)\b", _I)


def _never(m: re.Match[str]) -> tuple[None, str] | None:
    rest = _rest(m)
    if _CHITCHAT_VERBS.match(rest):
        return None
    return None, f"Constraint: never {third_person(rest)}."


def _subject_must_not(m: re.Match[str]) -> tuple[None, str]:
    subject = m.group("subject")
    if subject.lower() in ("you", "we"):
        return None, f"Constraint: never {third_person(_rest(m))}."
    return None, f"Constraint: {lower_first(subject)} must not {third_person(_rest(m))}."


def _avoid(m: re.Match[str]) -> tuple[None, str]:
    return None, f"Constraint: avoid {third_person(_rest(m))}."


def _decision(m: re.Match[str]) -> tuple[None, str]:
    lead = re.sub(rf"^we(?:\s+have|{_APOS}ve)?\s+", "we ", m.group("verb"), flags=_I).lower()
    lead = {
        "let's go with": "go with",
        "let’s go with": "go with",
        "let's use": "use",
        "let’s use": "use",
        "we will use": "use",
        "we'll use": "use",
        "we’ll use": "use",
        "we're going with": "go with",
        "we’re going with": "go with",
        "we are going with": "go with",
    }.get(lead, lead)
    return None, f"Decision: {lead} {third_person(_rest(m))}."


_PROFILE_TEXT = {"user_name": "the user's name is", "employer": "the user works at", "home_city": "the user lives in"}


def _profile(key: str) -> Callable[[re.Match[str]], tuple[str, str] | None]:
    def build(m: re.Match[str]) -> tuple[str, str] | None:
        value = _rest(m)
        if key == "user_name":  # the leading capitalised words: "Priya", not "not important here"
            value = " ".join(re.match(r"^(?:[A-Z][\w'-]*\s*)*", value).group().split())
            if not value:
                return None
        if key == "home_city" and re.search(r"\d", value):  # a street address is PII, a city is not
            return None
        if key == "employer" and not value[:1].isupper():  # "I work at night" is not an employer
            return None
        return key, f"Profile: {_PROFILE_TEXT[key]} {value}."

    return build


_NOT_A_ROLE = re.compile(
    r"^(?:bit|little|lot|tad|fan|huge|big|total|complete|kind|sort|mess|fool|sucker|night\s+owl|morning\s+person)\b",
    _I,
)


def _role(m: re.Match[str]) -> tuple[str, str] | None:
    role = _rest(m)
    if _NOT_A_ROLE.match(role):
        return None
    return "role", f"Profile: the user is {m.group('art').lower()} {third_person(role)}."


_EPHEMERAL_PLAN = re.compile(
    r"^(?:try|check|look|let|think|see|get\s+back|take\s+a\s+look|give\s+it|do\s+that|do\s+it|test\s+it|"
    r"keep\s+that|be\s+right|be\s+honest|brb|read\s+it|need\s+to\s+think|go\s+now|talk\s+to\s+you|ping\s+you)\b",
    _I,
)


def _plan(m: re.Match[str]) -> tuple[None, str] | None:
    rest = _rest(m)
    if _EPHEMERAL_PLAN.match(rest):
        return None
    aux = m.group("verb").lower()
    aux = "is going to" if "going" in aux else ("plans to" if "plan" in aux else "will")
    return None, f"Plan: the user {aux} {third_person(rest)}."


def _dated_plan(m: re.Match[str]) -> tuple[None, str]:
    text = third_person(m.group(0).strip(), user_named=False)
    text = text[0].lower() + text[1:] if text.startswith(("Next", "Tomorrow")) else lower_first(text)
    return None, f"Plan: {text}."


def _r(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, _I) for p in patterns)


_REST = r"\s+(?P<rest>\S.*)$"
_PLEASE = r"^(?:please\s+|also\s+|and\s+)?"
_DONT = rf"don{_APOS}t"

# Order matters: the first rule that accepts a clause wins ("Remember that I prefer tabs" is a fact).
RULES = (
    Rule(
        "remember_that",
        "fact",
        _r(
            rf"{_PLEASE}(?:remember|note|{_DONT}\s+forget|do\s+not\s+forget|keep\s+in\s+mind|be\s+aware)\s+that{_REST}",
            rf"^(?:fyi|for\s+your\s+information|for\s+the\s+record|just\s+so\s+you\s+know)\s*[:,-]?{_REST}",
        ),
        _fact,
    ),
    Rule("my_name_is", "profile", _r(rf"\bmy\s+name\s+is{_REST}"), _profile("user_name")),
    Rule("i_work_at", "profile", _r(rf"\bI\s+work\s+(?:at|for){_REST}"), _profile("employer")),
    Rule(
        "i_live_in", "profile", _r(rf"\bI(?:\s+live|\s+am\s+based|{_APOS}m\s+based)\s+in{_REST}"), _profile("home_city")
    ),
    Rule("i_am_a", "profile", _r(rf"^I(?:\s+am|{_APOS}m|\s+work\s+as)\s+(?P<art>an?)\s+(?P<rest>\S.*)$"), _role),
    Rule(
        "i_prefer",
        "preference",
        _r(
            r"\bI(?:\s+(?:really|strongly|usually|generally|always|much|definitely|absolutely))?"
            rf"(?P<verb>\s+(?:prefer|like|love|enjoy|would\s+rather)|{_APOS}d\s+rather){_REST}"
        ),
        _preference,
    ),
    Rule(
        "my_favourite",
        "preference",
        _r(rf"\bmy\s+(?P<adj>preferred|favou?rite)\s+(?P<what>\w+(?:\s+\w+)?)\s+is{_REST}"),
        _favourite,
    ),
    Rule(
        "please_always",
        "preference",
        _r(rf"^(?:please\s+)?always{_REST}", rf"\bI\s+want\s+you\s+to\s+always{_REST}"),
        _always,
    ),
    Rule(
        "never",
        "constraint",
        _r(
            rf"^(?:please\s+)?(?:never|do\s+not|{_DONT}\s+ever|do\s+not\s+ever){_REST}",
            rf"\b(?:you|we)\s+(?:should|must)\s+never{_REST}",
        ),
        _never,
    ),
    Rule(
        "must_not",
        "constraint",
        _r(
            rf"^(?P<subject>you|we|the\s+\w+(?:\s+\w+)?)\s+(?:must\s+not|mustn{_APOS}t|should\s+not|shouldn{_APOS}t){_REST}"
        ),
        _subject_must_not,
    ),
    Rule(
        "avoid",
        "constraint",
        _r(rf"^(?:please\s+)?(?:always\s+)?avoid{_REST}", rf"\b(?:you|we)\s+(?:should|must)\s+avoid{_REST}"),
        _avoid,
    ),
    Rule(
        "we_decided",
        "decision",
        _r(
            rf"(?P<verb>\bwe(?:\s+have|{_APOS}ve)?\s+(?:decided|agreed|chose|picked|settled\s+on)|"
            rf"\blet{_APOS}s\s+(?:go\s+with|use)|\bwe(?:\s+will|{_APOS}ll)\s+use|"
            rf"\bwe(?:{_APOS}re|\s+are)\s+going\s+with){_REST}"
        ),
        _decision,
        assistant=True,
    ),
    Rule(
        "i_will",
        "plan",
        _r(
            rf"^(?:also\s+|then\s+)?(?:I|we)(?P<verb>\s+will|{_APOS}ll|\s+am\s+going\s+to|{_APOS}m\s+going\s+to|"
            rf"\s+plan\s+to|\s+am\s+planning\s+to|{_APOS}m\s+planning\s+to|\s+intend\s+to){_REST}"
        ),
        _plan,
    ),
    Rule(
        "dated_plan",
        "plan",
        _r(
            r"^(?=.*\b(?:next\s+(?:week|month|year|sprint|monday|tuesday|wednesday|thursday|friday)|tomorrow)\b)"
            r"(?=.*\b(?:I|we)\b).+$"
        ),
        _dated_plan,
    ),
)


def match_statement(clause: str, *, role: str) -> Statement | None:
    """The first rule that recognises ``clause`` (from a message with ``role``), or None."""
    for rule in RULES:
        if role != "user" and not rule.assistant:
            continue
        for pattern in rule.patterns:
            m = pattern.search(clause)
            built = rule.build(m) if m is not None else None
            if built is not None:
                return Statement(rule.name, rule.note_type, built[0], built[1])
    return None
