"""English gate (spec v2 section 3), pure: NFKC, control and invisible characters, script allowlist, and
language identification (LID) for natural-language fields.

Identifiers (ids, keys, headers, URLs) get the character and script checks only. Natural-language fields
(note text, message content, queries, doc text) may contain newlines and tabs and, when long and letter-dense
enough once technical tokens are removed, go through py3langid. Only a confident non-English verdict
rejects: a low-confidence or "no linguistic content" verdict never does.

LID runs over all of py3langid's languages, not a restricted candidate set. Measured on 86 English notes
(69 of them long enough for LID: accented names such as José/Zoë/Müller, lists of Spanish place names and
dishes, code, SQL, URLs, shell commands) and 27 one-sentence French/Spanish/German/Italian/Portuguese/Dutch
notes: with every language a candidate, no English note came closer than 0.28 to a non-English verdict,
while restricting to en+fr+es+de+it+pt pushed name-heavy English lists up to 0.69 (the probability that
related languages share collapses onto few candidates). Neither falsely rejected English at 0.85; each let
one sentence through (all languages: a short Portuguese one at 0.53; restricted: Dutch read as German at
0.69). Multi-sentence paragraphs in those languages score 0.98-1.00.
"""

from __future__ import annotations

import enum
import functools
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import regex
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from .jsonpath import member_path

# Zero-width and invisible characters rejected anywhere (supplement section 4), plus bidi controls.
INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u180e\u200b\u200c\u200d\u2060\ufeff"
    "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
ALLOWED_CONTROLS = frozenset("\n\r\t")
_DISALLOWED_SCRIPT = regex.compile(r"[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]")

CONTROL_OR_INVISIBLE = "CONTROL_OR_INVISIBLE"
DISALLOWED_SCRIPT = "DISALLOWED_SCRIPT"
NOT_ENGLISH = "NOT_ENGLISH"

ENGLISH = "en"
# py3langid's label for input without linguistic content (keyboard mash, symbol soup): never a rejection.
NO_LANGUAGE = "zxx"


class FieldKind(enum.Enum):
    """How a field is gated: identifiers skip LID (spec v2 section 3, step 3)."""

    NATURAL = "natural"
    IDENTIFIER = "identifier"


@dataclass(frozen=True)
class GateFailure:
    """Why a value failed the gate. ``detail`` names a code point (``U+200B``) or a verdict (``fr 0.99``),
    never the input text itself."""

    reason_code: str
    detail: str


@dataclass(frozen=True)
class LidThresholds:
    """When LID runs and when its verdict rejects (supplement section 4 reference values as defaults)."""

    min_letters: int = 32
    min_non_space: int = 64
    min_letter_density: float = 0.6
    min_confidence: float = 0.85


REFERENCE_LID_THRESHOLDS = LidThresholds()

# source_ref keys whose string values are prose; every other source_ref string is an identifier
# (schema ids, resolver names, refs, paths, URLs, hashes, locators).
NATURAL_SOURCE_REF_KEYS = frozenset(
    {
        "title",
        "summary",
        "quote",
        "quotes",
        "text",
        "description",
        "note",
        "notes",
        "excerpt",
        "snippet",
        "content",
        "comment",
        "message",
    }
)


def normalize(text: str) -> str:
    """Unicode NFKC, the form every check of this gate judges."""
    return unicodedata.normalize("NFKC", text)


# Characters that may be forbidden: all but printable ASCII (and tab/newline/CR where those are allowed). Printable
# ASCII is never a control or invisible character, so only these need a look; a regex finds them at C speed.
_MAYBE_FORBIDDEN = regex.compile(r"[^\x20-\x7e]")
_MAYBE_FORBIDDEN_WITH_NEWLINES = regex.compile(r"[^\x20-\x7e\n\r\t]")


def first_forbidden_char(text: str, *, allow_newlines: bool) -> str | None:
    """The first control (Unicode Cc/Cf/Co/Cs/Cn) or invisible character; tabs/newlines only where allowed."""
    candidates = (_MAYBE_FORBIDDEN_WITH_NEWLINES if allow_newlines else _MAYBE_FORBIDDEN).finditer(text)
    for m in candidates:
        ch = m.group()
        if ch in INVISIBLE:
            return ch
        if ch in ALLOWED_CONTROLS:
            if not allow_newlines:
                return ch
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Cn"):
            return ch
    return None


def _code_point(ch: str) -> str:
    return f"U+{ord(ch):04X}"


def check_characters(text: str, *, allow_newlines: bool) -> GateFailure | None:
    """The character and script steps of the gate on ``text`` as given (already NFKC): no control or invisible
    character (newline/CR/tab only where allowed), Latin/Common/Inherited scripts only."""
    return _check_chars(text, allow_newlines=allow_newlines)


def _check_chars(text: str, *, allow_newlines: bool) -> GateFailure | None:
    bad = first_forbidden_char(text, allow_newlines=allow_newlines)
    if bad is not None:
        return GateFailure(CONTROL_OR_INVISIBLE, _code_point(bad))
    m = _DISALLOWED_SCRIPT.search(text)
    if m is not None:
        return GateFailure(DISALLOWED_SCRIPT, _code_point(m.group()))
    return None


def check_identifier(value: str) -> GateFailure | None:
    """Identifier gate (ids, keys, headers, URLs): NFKC, then no control/invisible characters (newlines and
    tabs included) and Latin/Common/Inherited scripts only. None when the value passes."""
    return _check_chars(normalize(value), allow_newlines=False)


def passes_identifier_gate(value: str) -> bool:
    """Identifiers (ids, keys, headers): NFKC, no control/invisible characters, Latin/Common/Inherited only."""
    return check_identifier(value) is None


# Links, addresses and code-span markers, removed before LID so that an English note that cites them is not
# read as another language. Code spans are not dropped whole (prose wrapped in backticks would then skip
# LID); the code inside goes token by token like any other text.
_TECHNICAL_SPANS = regex.compile(
    r"""
      (?<![\w+.-])(?i:[a-z][a-z0-9+.-]*)://\S+   # URL with a scheme
    | \b(?i:www)\.\S+                           # bare www. URL
    | (?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+  # email address
    | `+                                        # code span and fence markers
    """,
    regex.VERBOSE,
)
# A whitespace-separated token is technical when its core (surrounding punctuation trimmed) holds a digit,
# a code symbol, an inner dot or colon (dotted.names, host:port, 1.2.3), or a lower-to-upper case change.
_TOKEN_EDGE_PUNCT = "\"'()[]{}<>.,;:!?«»“”‘’"
_TECHNICAL_TOKEN = regex.compile(r"\d|[/\\_=<>{}\[\]()*#$|~^@+%&`]|\w[.:]\w|\p{Ll}\p{Lu}")


def _without_technical_spans(text: str) -> str:
    """``text`` with every _TECHNICAL_SPANS match replaced by a space. Each alternative needs a literal that
    most prose lacks ("://", "www.", "@", "`"): without any of them nothing can match and the scan (a tenth of
    a millisecond on a search query, paid by every search and every note) is skipped."""
    if "://" in text or "@" in text or "`" in text or "www." in text.lower():
        return _TECHNICAL_SPANS.sub(" ", text)
    return text


def prose_for_lid(text: str) -> str:
    """The prose left once URLs, emails, code-span markers, paths, identifier-looking tokens and numbers are
    removed, tokens joined by single spaces."""
    kept = []
    for token in _without_technical_spans(text).split():
        core = token.strip(_TOKEN_EDGE_PUNCT)
        if core and _TECHNICAL_TOKEN.search(core) is None:
            kept.append(token)
    return " ".join(kept)


def lid_applies(prose: str, thresholds: LidThresholds) -> bool:
    """Whether ``prose`` is long and letter-dense enough for a LID verdict to mean anything."""
    letters = sum(ch.isalpha() for ch in prose)
    non_space = sum(not ch.isspace() for ch in prose)
    return (
        letters >= thresholds.min_letters
        and non_space >= thresholds.min_non_space
        and any(ch.isspace() for ch in prose)
        and letters / non_space >= thresholds.min_letter_density
    )


_identifier: LanguageIdentifier | None = None
_identifier_lock = threading.Lock()


def _language_identifier() -> LanguageIdentifier:
    # Loading the model takes about a second; do it once, on first use, whichever thread gets there first.
    # classify() only reads the model, so the shared instance is safe to use from many threads.
    global _identifier
    if _identifier is None:
        with _identifier_lock:
            if _identifier is None:
                _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return _identifier


def identify_language(text: str) -> tuple[str, float]:
    """py3langid's verdict over all its languages: (ISO 639 code, normalized probability)."""
    language, confidence = _language_identifier().classify(text)
    return str(language), float(confidence)


def check_natural_language(text: str, *, thresholds: LidThresholds = REFERENCE_LID_THRESHOLDS) -> GateFailure | None:
    """Natural-language gate (note text, message content, queries): NFKC, no control/invisible characters
    except newline/CR/tab, Latin/Common/Inherited scripts only, then LID on the remaining prose when it is
    long and letter-dense enough, rejecting only a non-English verdict with confidence >= threshold.
    None when the text passes. The verdicts of recent texts are remembered: one add_note text is checked by
    the request's field check and again by the WriteGate, and the second answer is the first's."""
    return _check_natural_language(text, thresholds)


@functools.lru_cache(maxsize=256)
def _check_natural_language(text: str, thresholds: LidThresholds) -> GateFailure | None:
    normalized = normalize(text)
    failure = _check_chars(normalized, allow_newlines=True)
    if failure is not None:
        return failure
    return check_language(normalized, thresholds)


def check_language(text: str, thresholds: LidThresholds = REFERENCE_LID_THRESHOLDS) -> GateFailure | None:
    """The LID step alone on ``text`` (already NFKC): NOT_ENGLISH when its prose is long and letter-dense enough
    and py3langid names another language with confidence >= threshold; None otherwise."""
    prose = prose_for_lid(text)
    if not lid_applies(prose, thresholds):
        return None
    language, confidence = identify_language(prose)
    if language not in (ENGLISH, NO_LANGUAGE) and confidence >= thresholds.min_confidence:
        return GateFailure(NOT_ENGLISH, f"{language} {confidence:.2f}")
    return None


def check_field(value: str, kind: FieldKind) -> GateFailure | None:
    """The gate for a field of the given kind."""
    return check_natural_language(value) if kind is FieldKind.NATURAL else check_identifier(value)


def collect_non_english(fields: Iterable[tuple[str, str, FieldKind]]) -> list[str]:
    """JSONPaths of the (jsonpath, value, kind) fields that fail the gate, in input order."""
    return [path for path, value, kind in fields if check_field(value, kind) is not None]


def _walk(obj: Any, path: str, key: str | None) -> Iterator[tuple[str, str, str | None]]:
    if isinstance(obj, str):
        yield path, obj, key
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _walk(v, member_path(path, str(k)), str(k))
    elif isinstance(obj, Sequence) and not isinstance(obj, (bytes, bytearray)):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]", key)


def walk_strings(obj: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    """Every string value inside a JSON-like object (dicts, lists) with its JSONPath, depth first in
    document order, e.g. ``("$.notes[1].source_ref.title", "...")``. Member names are not yielded."""
    for p, value, _ in _walk(obj, path, None):
        yield p, value


def source_ref_fields(source_ref: Any, path: str) -> Iterator[tuple[str, str, FieldKind]]:
    """The string fields of a source_ref as (jsonpath, value, kind) for ``collect_non_english``: NATURAL
    when the nearest member name (a list's elements take the list's name) is in NATURAL_SOURCE_REF_KEYS,
    IDENTIFIER otherwise."""
    for p, value, key in _walk(source_ref, path, None):
        kind = FieldKind.NATURAL if key in NATURAL_SOURCE_REF_KEYS else FieldKind.IDENTIFIER
        yield p, value, kind
