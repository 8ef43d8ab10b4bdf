"""Secret and PII detection for the WriteGate (spec v2 section 9) and for redacting logs and traces.

Pure and regex-based. Token formats with a fixed prefix are matched directly; everything that can look
like ordinary text (phone numbers, card numbers, IBANs, credential assignments, seed phrases) is matched
loosely and then validated (digit counts, date shapes, Luhn and IIN ranges, ISO 13616 lengths and mod-97,
placeholder values, stopwords) so that versions, dates, prices and plain sentences do not trip it.

Offsets are Python string indices (code points) into the text given. Callers that gate on normalized text
(the WriteGate uses NFKC) pass the normalized text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

PEM_PRIVATE_KEY = "pem_private_key"
SSH_KEY = "ssh_key"
SK_API_KEY = "sk_api_key"
AWS_ACCESS_KEY_ID = "aws_access_key_id"
AWS_SECRET_ACCESS_KEY = "aws_secret_access_key"
GITHUB_TOKEN = "github_token"
SLACK_TOKEN = "slack_token"
GOOGLE_API_KEY = "google_api_key"
STRIPE_KEY = "stripe_key"
JWT = "jwt"
BEARER_TOKEN = "bearer_token"
CREDENTIAL_ASSIGNMENT = "credential_assignment"
SEED_PHRASE = "seed_phrase"
EMAIL = "email"
PHONE_NUMBER = "phone_number"
CARD_NUMBER = "card_number"
IBAN = "iban"


@dataclass(frozen=True)
class SecretFinding:
    """One detected secret: its kind and the half-open span [start, end). Never holds the matched text, so
    a finding can be logged as is."""

    kind: str
    start: int
    end: int


Span = tuple[int, int]
Detector = Callable[[str], Iterable[Span]]


def _regex(pattern: str, flags: int = 0, accept: Callable[[re.Match[str]], bool] | None = None) -> Detector:
    compiled = re.compile(pattern, flags)

    def detect(text: str) -> Iterator[Span]:
        for m in compiled.finditer(text):
            if accept is None or accept(m):
                yield m.span()

    return detect


def _has_digit_and_letter(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


# --- Fixed-prefix credentials ---------------------------------------------------------------------------

_PEM_HEADER = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----")


def _pem(text: str) -> Iterator[Span]:
    # The whole block when its END line follows, else the header alone (a truncated paste still leaks).
    for m in _PEM_HEADER.finditer(text):
        footer = f"-----END {m.group(1)}-----"
        end = text.find(footer, m.end())
        yield m.start(), (end + len(footer) if end >= 0 else m.end())


# Public keys in authorized_keys format: algorithm name plus the base64 blob (the name alone is prose).
_ssh = _regex(
    r"(?<![\w-])(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp(?:256|384|521)"
    r"|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+AAAA[0-9A-Za-z+/]{16,}={0,3}"
)
# OpenAI-style (sk-, sk-proj-, sk-svcacct-, sk-admin-; Anthropic's sk-ant- too). Random keys hold digits;
# hyphenated words after "sk-" do not.
_sk = _regex(
    r"(?<![\w-])sk-[A-Za-z0-9_-]{20,}",
    accept=lambda m: _has_digit_and_letter(m.group()[3:]),
)
_aws_key_id = _regex(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_aws_secret = _regex(
    r"(?<![A-Za-z0-9])aws[_-]?secret[_-]?(?:access[_-]?)?key[\"']?\s*[:=]\s*[\"']?"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])",
    re.IGNORECASE,
)
_github = _regex(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})")
_slack = _regex(
    r"(?<![A-Za-z0-9-])xox[abprs]-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+",
    accept=lambda m: len(m.group()) >= 20 and any(c.isdigit() for c in m.group()),
)
_google = _regex(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])")
_stripe = _regex(r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")
# Header and payload are base64url JSON objects, so both start with eyJ ('{"').
_jwt = _regex(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}")
_bearer = _regex(
    r"(?<![A-Za-z])bearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
    re.IGNORECASE,
    accept=lambda m: _has_digit_and_letter(m.group(1)),
)

# --- Credential assignments ---------------------------------------------------------------------------

# The keyword must be the last part of a name (DB_PASSWORD, "api_key", client-secret), not the first
# (password_hash, token_count).
_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_-])(?:[A-Za-z0-9]+[_-])*"
    r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key"
    r"|private[_-]?key|client[_-]?secret)"
    r"(?![A-Za-z0-9])[\"']?"
    r"(?:\s*(?P<op>[:=])|\s+(?:is|was)\b)\s*"
    r"(?:(?P<q>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=q)|(?P<bare>[^\s\"'`,;]{1,256}))",
    re.IGNORECASE,
)
_TRAILING_PUNCT = ".,;:!?)]}>"
_PLACEHOLDER = re.compile(
    r"<.*|\$\{.*|\$\(.*|\$[A-Z_][A-Z0-9_]*|\{\{.*|%\(.*|[*x.…•-]+|\[?redacted\]?|none|null|nil|empty"
    r"|true|false|required|optional|unset|hidden|masked|your[_-]?\w*",
    re.IGNORECASE,
)


def _credential_assignments(text: str) -> Iterator[Span]:
    for m in _ASSIGNMENT.finditer(text):
        quoted = m.group("quoted")
        value = quoted if quoted is not None else m.group("bare").rstrip(_TRAILING_PUNCT)
        if len(value) < 4 or _PLACEHOLDER.fullmatch(value) or value.startswith(("/", "~/", "./")):
            continue
        # `name=value` is configuration syntax: any real value counts. After ':' or 'is' the value is often
        # prose ("password: required", "the token is valid"), so it must look like a secret.
        if m.group("op") != "=" and quoted is None and not _looks_secret(value):
            continue
        end = m.end() if quoted is not None else m.start("bare") + len(value)
        yield m.start(), end


def _looks_secret(value: str) -> bool:
    return any(c.isdigit() for c in value) or any(not c.isalnum() for c in value) or any(c.isupper() for c in value[1:])


# --- Seed phrases -------------------------------------------------------------------------------------

# BIP39 words are 3-8 lowercase letters and the list holds none of these; prose almost always does.
_STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "you",
        "are",
        "was",
        "not",
        "but",
        "have",
        "has",
        "had",
        "from",
        "they",
        "them",
        "their",
        "will",
        "would",
        "what",
        "when",
        "where",
        "which",
        "who",
        "his",
        "her",
        "she",
        "our",
        "its",
        "into",
        "than",
        "then",
        "there",
        "these",
        "those",
        "been",
        "were",
        "should",
        "could",
        "can",
        "may",
        "might",
        "must",
        "does",
        "did",
        "some",
        "very",
        "just",
        "your",
        "yours",
        "also",
        "only",
        "such",
        "each",
        "other",
        "more",
        "most",
        "many",
        "much",
        "any",
    ]
)
_WORD_RUN = r"(?<![A-Za-z0-9'-])[a-z]{3,8}(?:\s+(?:[0-9]{1,2}[.)]\s*)?[a-z]{3,8})*(?![A-Za-z0-9'-])"
_BARE_SEED = re.compile(_WORD_RUN)
_KEYWORD_SEED = re.compile(
    r"(?i:(?:seed|recovery|mnemonic|backup|secret)\s+(?:phrase|words)|mnemonic)"
    r"(?:\s*(?i:is|was)\b)?[\s\"':=-]*(?P<run>" + _WORD_RUN + ")"
)
_SEED_LENGTHS = frozenset({12, 15, 18, 21, 24})


def _bip39_like(words: list[str]) -> bool:
    return not any(w in _STOPWORDS for w in words)


def _seed_phrases(text: str) -> Iterator[Span]:
    # A keyword ("seed phrase", "recovery phrase", "mnemonic") followed by at least six BIP39-looking words.
    for m in _KEYWORD_SEED.finditer(text):
        words = re.findall(r"[a-z]+", m.group("run"))
        if len(words) >= 6 and _bip39_like(words[:6]):
            yield m.span()
    # Or a bare run of exactly 12/15/18/21/24 such words.
    for m in _BARE_SEED.finditer(text):
        words = re.findall(r"[a-z]+", m.group())
        if len(words) in _SEED_LENGTHS and _bip39_like(words):
            yield m.span()


# --- PII ----------------------------------------------------------------------------------------------

_email = _regex(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}(?![\w-])")

# A phone number stands alone: not the tail or head of a longer run of digit groups (IBANs, card numbers).
_PHONE_START = r"(?<![\w+.-])(?<![0-9][ .-])"
_PHONE_END = r"(?![0-9]|[ .-][0-9])"
_PHONE_PATTERNS = (
    # International / E.164: +CC then groups. The plus sign is start enough.
    re.compile(r"(?<![\w+])\+[1-9][0-9]{0,2}(?:[ .-]?\(?[0-9]{1,4}\)?){2,6}" + _PHONE_END),
    # NANP with separators: (415) 555-2671, 415-555-2671, 415.555.2671, 1 415 555 2671.
    re.compile(
        _PHONE_START + r"(?:1[ .-]?)?(?:\([2-9][0-9]{2}\) ?|[2-9][0-9]{2}[ .-])[2-9][0-9]{2}[ .-][0-9]{4}" + _PHONE_END
    ),
    # National trunk-prefix formats: 020 7946 0958, 030 12345678, 01 23 45 67 89, 07700900123.
    re.compile(_PHONE_START + r"0[1-9][0-9]{0,3}(?:[ .-]?[0-9]{2,4}){2,4}" + _PHONE_END),
)
_DATE_LIKE = re.compile(
    r"(?:19|20)[0-9]{2}[./-][01]?[0-9][./-][0-3]?[0-9]|[0-3]?[0-9][./-][01]?[0-9][./-](?:19|20)[0-9]{2}"
)


def _phone_numbers(text: str) -> Iterator[Span]:
    for pattern in _PHONE_PATTERNS:
        for m in pattern.finditer(text):
            candidate = m.group()
            digits = sum(c.isdigit() for c in candidate)
            if 10 <= digits <= 15 and not _DATE_LIKE.search(candidate):
                yield m.span()


_CARD_PATTERNS = (
    re.compile(r"(?<![0-9])[0-9]{4}([ -])[0-9]{4}\1[0-9]{4}\1[0-9]{4}\1[0-9]{3}(?![0-9])"),  # 19: 4-4-4-4-3
    re.compile(r"(?<![0-9])[0-9]{4}([ -])[0-9]{4}\1[0-9]{4}\1[0-9]{4}(?![0-9])"),  # 16: 4-4-4-4
    re.compile(r"(?<![0-9])[0-9]{4}([ -])[0-9]{6}\1[0-9]{4,5}(?![0-9])"),  # 15 Amex 4-6-5, 14 Diners 4-6-4
    re.compile(r"(?<![0-9.,])[0-9]{13,19}(?![0-9]|[.,][0-9])"),
)


def luhn_valid(digits: str) -> bool:
    """Luhn (mod 10) checksum over a string of ASCII digits."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def plausible_card_iin(digits: str) -> bool:
    """Issuer prefix and length of the major networks (Visa, Mastercard, Amex, Discover, JCB, Diners,
    UnionPay, Maestro)."""
    n = len(digits)
    p2, p4, p6 = int(digits[:2]), int(digits[:4]), int(digits[:6])
    if digits[0] == "4":
        return n in (13, 16, 19)
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:
        return n == 16
    if p2 in (34, 37):
        return n == 15
    if p4 == 6011 or 644 <= p4 // 10 <= 649 or p2 == 65 or 622126 <= p6 <= 622925:
        return 16 <= n <= 19
    if 3528 <= p4 <= 3589:
        return 16 <= n <= 19
    if 300 <= p4 // 10 <= 305 or p2 in (36, 38, 39):
        return 14 <= n <= 19
    if p2 == 62:
        return 16 <= n <= 19
    if p2 == 50 or 56 <= p2 <= 69:
        return 12 <= n <= 19
    return False


def _card_numbers(text: str) -> Iterator[Span]:
    for pattern in _CARD_PATTERNS:
        for m in pattern.finditer(text):
            digits = re.sub(r"[ -]", "", m.group())
            if plausible_card_iin(digits) and luhn_valid(digits):
                yield m.span()


# ISO 13616 IBAN lengths by country (SWIFT registry).
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22,
    "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25,
    "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
    "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip
_IBAN_START = re.compile(r"(?<![A-Za-z0-9])([A-Z]{2})[0-9]{2}")


def iban_valid(compact: str) -> bool:
    """ISO 13616: known country, its length, and the ISO 7064 mod-97 check equal to 1."""
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact.isalnum() or not compact.isascii():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def _ibans(text: str) -> Iterator[Span]:
    # Compact (DE89370400440532013000) or printed in groups of four (DE89 3704 0044 0532 0130 00): read
    # exactly the country's length, allowing one space only between groups, then require a boundary.
    for m in _IBAN_START.finditer(text):
        length = IBAN_LENGTHS.get(m.group(1))
        if length is None:
            continue
        chars: list[str] = []
        i = m.start()
        while len(chars) < length and i < len(text):
            c = text[i]
            if c == " " and chars and len(chars) % 4 == 0 and i + 1 < len(text) and text[i + 1] != " ":
                i += 1
                continue
            if not ("A" <= c <= "Z" or "0" <= c <= "9"):
                break
            chars.append(c)
            i += 1
        if len(chars) == length and (i == len(text) or not text[i].isalnum()) and iban_valid("".join(chars)):
            yield m.start(), i


# In priority order: when two findings start at the same index and are equally long, the earlier kind wins.
_DETECTORS: tuple[tuple[str, Detector], ...] = (
    (PEM_PRIVATE_KEY, _pem),
    (SSH_KEY, _ssh),
    (AWS_SECRET_ACCESS_KEY, _aws_secret),
    (AWS_ACCESS_KEY_ID, _aws_key_id),
    (GITHUB_TOKEN, _github),
    (SLACK_TOKEN, _slack),
    (GOOGLE_API_KEY, _google),
    (STRIPE_KEY, _stripe),
    (SK_API_KEY, _sk),
    (JWT, _jwt),
    (BEARER_TOKEN, _bearer),
    (CREDENTIAL_ASSIGNMENT, _credential_assignments),
    (SEED_PHRASE, _seed_phrases),
    (EMAIL, _email),
    (CARD_NUMBER, _card_numbers),
    (IBAN, _ibans),
    (PHONE_NUMBER, _phone_numbers),
)
SECRET_KINDS = tuple(kind for kind, _ in _DETECTORS)


def find_secrets(text: str) -> list[SecretFinding]:
    """Secrets and PII in ``text`` as non-overlapping findings sorted by start. Where findings overlap, the
    one starting first wins, then the longer, then the more specific kind (SECRET_KINDS order)."""
    raw = [
        (start, -end, priority, kind)
        for priority, (kind, detect) in enumerate(_DETECTORS)
        for start, end in detect(text)
    ]
    findings: list[SecretFinding] = []
    covered_to = 0
    for start, neg_end, _, kind in sorted(raw):
        if start >= covered_to:
            findings.append(SecretFinding(kind, start, -neg_end))
            covered_to = -neg_end
    return findings


def contains_secret(text: str) -> bool:
    """Whether ``text`` holds any secret or PII that ``find_secrets`` detects."""
    return bool(find_secrets(text))


def redact_secrets(text: str) -> str:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``."""
    parts, pos = [], 0
    for f in find_secrets(text):
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)
