"""Pure text helpers of the offline extractor: sentence and clause splitting, the sentence filters,
canonical-text rewriting (first person -> "the user") and key derivation. The statement rules that use them
are in ``local_extractor_rules``; see ``local_extractor``."""

from __future__ import annotations

import re
from collections.abc import Iterator

_I = re.IGNORECASE
APOS = "['’]"  # straight or typographic apostrophe

# --- sentences and clauses -----------------------------------------------------------------------------------

_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")
# Used with .match(text, pos): anchored at pos, so no "^" (which would only match at index 0).
_BULLET = re.compile(r"(?:[-*\u2022]\s+)+")
# Clause boundaries inside one sentence: ";" or ", and"/"and"/", but"/", so" before a new first-person
# subject or imperative trigger ("I prefer tabs and we decided to use ruff").
_CLAUSE_BOUNDARY = re.compile(
    rf";\s*|,?\s+(?:and|but|so|also)\s+(?=(?:I|I{APOS}\w+|we|my|let{APOS}s|please|never|always)\b)"
    rf"|,\s+(?=(?:I|I{APOS}\w+|we|we{APOS}\w+|my|let{APOS}s)\s)|,\s+so\s+"
    r"|,?\s+and\s+(?=(?-i:[A-Z][a-z]+)\s+(?:is|are|has)\s)",
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
    rf"^(?:if|suppose|supposing|imagine|assuming|hypothetically|say|what\s+if|in\s+case|unless|when)\b"
    r"|\bif\s+(?:I|we)\s+(?:were|was|had|could)\b|\bwere\s+I\b|\bhypothetically\b|\bin\s+theory\b"
    rf"|\bfor\s+the\s+sake\s+of\s+argument\b|\b(?:let{APOS}s\s+)?say\s+(?:I|we)\b|\bpretend\b|\bthought\s+experiment\b",
    _I,
)
_UNCERTAIN = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|might|may\s+be|not\s+sure|unsure|i\s+guess|i\s+wonder|"
    rf"don{APOS}t\s+know|do\s+not\s+know|no\s+idea|thinking\s+about|considering|undecided|"
    rf"(?:I|we)\s+think\s+(?:I|we){APOS}?(?:ll|\s+will|\s+should)|kidding|joking)\b",
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


_CREDENTIAL = re.compile(
    r"\b(?:password|passphrase|passcode|pin|token|api[ _-]?key|secret(?:\s+key)?|private\s+key|credentials?|"
    r"login|auth)\b",
    _I,
)
_VALUE_LIKE = re.compile(r"(?=\S*\d)(?=\S*[A-Za-z])\S{6,}|\b\d{4,}\b|\S*[!#$%^&*]\S*[A-Za-z0-9]\S*|[\"'].+[\"']")


def names_credential(sentence: str) -> bool:
    """A sentence that names a credential and holds a value-like token ("my token: glpat-xY7z...", "the PIN is
    4471"): formats the secret detector does not know still never reach a note."""
    return bool(_CREDENTIAL.search(sentence)) and bool(_VALUE_LIKE.search(sentence))


# --- first person -> "the user" ------------------------------------------------------------------------------

_MODALS = frozenset(["will", "would", "can", "could", "should", "shall", "must", "might", "may", "did"])
_IRREGULAR = {"am": "is", "have": "has", "do": "does", "was": "was", "go": "goes"}
_CONTRACTIONS = {"m": "is", "ll": "will", "ve": "has", "d": "would"}
_FIRST_PERSON = re.compile(
    rf"\b(?:I{APOS}(?P<contr>m|ll|ve|d)|I(?:\s+(?P<verb>[a-z]+))?|(?P<poss>my|mine|myself|me)|"
    rf"(?P<sub>when|whenever|if|that|because|before|after|while|as)\s+you\s+(?P<yverb>[a-z]+)|"
    rf"(?P<you>you{APOS}(?:re|ll|ve|d)|your|yours|yourself|you))\b",
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
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "our",
        "we",
        "they",
        "there",
        "all",
        "every",
        "each",
        "some",
        "any",
        "no",
        "one",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "of",
        "and",
        "or",
        "but",
        "as",
        "is",
        "be",
    ]
)


def lower_first(text: str) -> str:
    """Lower-case a leading function word ("The" -> "the"), never a name ("Postgres", "Ana")."""
    first = text.split(" ", 1)[0]
    return text[0].lower() + text[1:] if first.lower() in _FUNCTION_WORDS else text


# --- keys ---------------------------------------------------------------------------------------------------

_LANGUAGES = frozenset(
    [
        "Python",
        "TypeScript",
        "JavaScript",
        "Rust",
        "Go",
        "Golang",
        "Java",
        "Kotlin",
        "Swift",
        "Ruby",
        "PHP",
        "Perl",
        "Scala",
        "Haskell",
        "Elixir",
        "Erlang",
        "Clojure",
        "Julia",
        "Lua",
        "Dart",
        "Zig",
        "Nim",
        "OCaml",
        "Fortran",
        "COBOL",
        "C",
        "C++",
        "C#",
        "F#",
        "SQL",
        "Bash",
    ]
)
_THEME = re.compile(r"\b(?:dark|light)\s+(?:mode|theme)s?\b", _I)
_STOPWORDS = _FUNCTION_WORDS | frozenset(
    [
        "their",
        "them",
        "they",
        "user's",
        "user",
        "assistant's",
        "assistant",
        "over",
        "than",
        "when",
        "more",
        "most",
        "much",
        "very",
        "really",
        "just",
        "please",
        "always",
        "you",
        "your",
        "me",
        "my",
        "i",
        "using",
        "use",
        "have",
        "get",
    ]
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
