"""The offline extractor's broader shapes about people (issue 32): the user's profile stated without the explicit
"my name is / I work at / I live in" frames ("Call me Jo", "I joined Atlassian as a product manager", "I moved to
Hamburg"), and facts about third parties ("Daniel leads the platform team now", "Our CTO is Lena Vogt"). Tried
after the explicit rules; see ``local_extractor_broad``, which also holds the shared lead-in stripping."""

from __future__ import annotations

import re

from .local_extractor_text import APOS, lower_first, third_person

_I = re.IGNORECASE
NAME = r"(?-i:[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)"
NAMES = rf"{NAME}(?:\s+{NAME})?"
RELATIVE = (
    r"(?:manager|boss|lead|cto|ceo|cfo|vp|director|cofounder|co-founder|partner|wife|husband|girlfriend|boyfriend|"
    r"sister|brother|mom|mum|mother|dad|father|son|daughter|kid|kids|friend|colleague|coworker|landlord|neighbou?r|"
    r"intern|client|customer|vendor|designer|teammate|roommate)"
)
# Capitalised words that open ordinary sentences rather than name someone.
NOT_NAMES = frozenset(
    [
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "there",
        "here",
        "what",
        "which",
        "who",
        "why",
        "how",
        "when",
        "where",
        "sure",
        "thanks",
        "thank",
        "nice",
        "perfect",
        "great",
        "good",
        "hmm",
        "ok",
        "okay",
        "yes",
        "no",
        "yeah",
        "yep",
        "wow",
        "sorry",
        "please",
        "also",
        "just",
        "maybe",
        "so",
        "but",
        "and",
        "or",
        "if",
        "then",
        "now",
        "today",
        "tomorrow",
        "tonight",
        "everyone",
        "everything",
        "nothing",
        "something",
        "someone",
        "anyway",
        "well",
        "right",
        "fine",
        "cool",
        "happy",
        "i",
        "we",
        "you",
        "they",
        "he",
        "she",
        "our",
        "my",
        "your",
        "his",
        "her",
        "its",
        "their",
        "let",
        "hey",
        "hi",
        "hello",
        "actually",
        "honestly",
    ]
)
_DEMONYMS = frozenset(
    [
        "american",
        "british",
        "english",
        "irish",
        "scottish",
        "welsh",
        "canadian",
        "mexican",
        "brazilian",
        "argentinian",
        "chilean",
        "colombian",
        "peruvian",
        "spanish",
        "portuguese",
        "french",
        "german",
        "dutch",
        "belgian",
        "swiss",
        "austrian",
        "italian",
        "greek",
        "polish",
        "czech",
        "slovak",
        "hungarian",
        "romanian",
        "bulgarian",
        "serbian",
        "croatian",
        "ukrainian",
        "russian",
        "turkish",
        "swedish",
        "norwegian",
        "danish",
        "finnish",
        "icelandic",
        "estonian",
        "latvian",
        "lithuanian",
        "indian",
        "pakistani",
        "chinese",
        "japanese",
        "korean",
        "vietnamese",
        "thai",
        "filipino",
        "indonesian",
        "malaysian",
        "australian",
        "egyptian",
        "nigerian",
        "kenyan",
        "moroccan",
        "israeli",
        "iranian",
        "jewish",
        "muslim",
        "christian",
        "catholic",
        "fine",
        "good",
        "back",
        "done",
        "sorry",
        "here",
        "ready",
        "home",
        "new",
        "sure",
        "tired",
        "okay",
        "free",
        "busy",
    ]
)
_NOT_DEMONYMS = frozenset(
    ["fine", "good", "back", "done", "sorry", "here", "ready", "home", "new", "sure", "tired", "okay", "free", "busy"]
)


def _fact_text(statement: str) -> str:
    return "Fact: " + lower_first(third_person(statement, user_named=False)) + "."


def _user_text(kind: str, statement: str) -> str:
    return f"{kind}: " + lower_first(third_person(statement, user_named=False)) + "."


# --- profile --------------------------------------------------------------------------------------------------

_CALL_ME = re.compile(
    rf"^(?:call\s+me|my\s+name{APOS}s|my\s+name\s+is\s+spelled|this\s+is|I{APOS}?m|I\s+am|it{APOS}s)\s+(?P<name>{NAME})"
    rf"(?:\s*,|\s+from\b|\s+here\b|\s+and\b|\s*$|\s+(?:not|everyone)\b)",
    _I,
)
_MOVED = re.compile(
    rf"^I\s+(?:just\s+|recently\s+|have\s+|{APOS}ve\s+)?(?:moved|relocated)\s+to\s+"
    rf"(?P<place>{NAMES})",
    _I,
)
_EMPLOYED = re.compile(
    rf"^I(?:{APOS}m|\s+am|\s+was|m)?\s+(?:now\s+|currently\s+)?(?:employed\s+by|joined|at|working\s+at|with)\s+"
    rf"(?P<org>(?-i:[A-Z][\w&.-]*)(?:\s+(?-i:[A-Z][\w&.-]*))*)(?P<rest>.*)$",
    _I,
)
_AS_ROLE = re.compile(r"\bas\s+(?P<art>an?\s+)(?P<role>[\w\s-]{2,40}?)(?:\s+(?:in|since|for)\b.*)?$", _I)
_RUN_TEAM = re.compile(
    r"^I\s+(?:run|lead|head|manage|work\s+on|am\s+on|" + APOS + r"m\s+on)\s+(?P<rest>(?:the\s+)?"
    r"[\w\s-]{1,30}?\s+(?:team|squad|group|department|rotation)\b.*)$",
    _I,
)
_TEACH = re.compile(r"^I\s+(?:teach|study|studied|lecture\s+in)\s+(?P<rest>\S.*)$", _I)
_TRAIT = re.compile(
    rf"^I(?:{APOS}m|\s+am|m)\s+(?P<rest>(?:a\s+)?(?:vegetarian|vegan|pescatarian|colou?rblind|left-handed|"
    rf"right-handed|diabetic|celiac|coeliac|lactose\s+intolerant|deaf|hard\s+of\s+hearing|\d{{1,2}}(?:\s+years\s+old)?"
    rf")\b.*)$",
    _I,
)
_SPEAK = re.compile(r"^I\s+(?:speak|am\s+fluent\s+in)\s+(?P<rest>\S.*)$", _I)
_FAMILY = re.compile(
    r"^I\s+(?:have|own|got)\s+(?P<rest>(?:a|an|one|two|three|four|five|\d+)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:kids?|children|sons?|daughters?|dogs?|cats?|retrievers?|puppy|kitten|brothers?|sisters?|twins)\b.*)$",
    _I,
)
_MY_THING = re.compile(
    r"^my\s+(?P<what>background|birthday|native\s+language|first\s+language|mother\s+tongue|timezone|time\s+zone|"
    r"pronouns|degree|major|job|day\s+job|title|job\s+title)\s+(?:is|are)\s+(?P<rest>\S.*)$",
    _I,
)
_EXPERIENCE = re.compile(
    rf"^I(?:{APOS}ve|\s+have)\s+(?:been\s+(?:using|writing|doing|working\s+with|an?\s+)|used|worked\s+(?:with|as|in))"
    rf"\s*(?P<rest>\S.*\bfor\s+(?:about\s+|over\s+|almost\s+|nearly\s+)?(?:\d+|a|an|one|two|three|four|five|six|seven|"
    rf"eight|nine|ten|eleven|twelve|fifteen|twenty)\s+years?\b.*)$",
    _I,
)


_FROM_TEAM = re.compile(r"\bfrom\s+(?P<team>the\s+[\w\s-]{1,30}?\s+(?:team|squad|group|department))\b", _I)
_DEMONYM = re.compile(rf"^I(?:{APOS}m|\s+am|m)\s+(?P<who>[A-Za-z]+)$", _I)
_FIRST_LANGUAGE = re.compile(
    r"^(?P<lang>[A-Z][a-z]+)\s+(?:is|isn" + APOS + r"t|is\s+not)\s+my\s+(?:first|native|"
    r"mother)\s+(?:language|tongue)\b",
    _I,
)


def profile(clause: str) -> list[tuple[str | None, str]]:
    """(key, text) profile notes of the clause, possibly two ("I joined Atlassian as a product manager")."""
    m = _CALL_ME.match(clause)
    if m and m.group("name").lower() not in _DEMONYMS | NOT_NAMES:
        found: list[tuple[str | None, str]] = [("user_name", f"Profile: the user's name is {m.group('name')}.")]
        team = _FROM_TEAM.search(clause)
        if team:
            found.append(("role", f"Profile: the user is from {team.group('team')}."))
        return found
    m = _MOVED.match(clause)
    if m:
        return [("home_city", f"Profile: the user lives in {m.group('place')}.")]
    m = _EMPLOYED.match(clause)
    if m and m.group("org").lower() not in NOT_NAMES:
        notes: list[tuple[str | None, str]] = [("employer", f"Profile: the user works at {m.group('org')}.")]
        role = _AS_ROLE.search(m.group("rest"))
        if role:
            notes.append(("role", f"Profile: the user is {role.group('art')}{role.group('role').strip()}."))
        return notes
    m = _RUN_TEAM.match(clause)
    if m:
        return [("role", _user_text("Profile", clause))]
    for pattern in (_TEACH, _EXPERIENCE):
        if pattern.match(clause):
            return [("role" if pattern is _TEACH else None, _user_text("Profile", clause))]
    m = _DEMONYM.match(clause)
    if m and m.group("who").lower() in _DEMONYMS - _NOT_DEMONYMS:
        return [(None, _user_text("Profile", clause))]
    if _FIRST_LANGUAGE.match(clause):
        return [(None, _user_text("Profile", clause))]
    for pattern in (_TRAIT, _SPEAK, _FAMILY, _MY_THING):
        if pattern.match(clause):
            return [(None, _user_text("Profile", clause))]
    return []


_AT_ORG = re.compile(r"\b(?:at|for)\s+(?P<org>(?-i:[A-Z][\w&.-]*)(?:\s+(?-i:[A-Z][\w&.-]*))*)")


def employer_in(role_text: str) -> str | None:
    """The organisation named in a role ("a PhD student at ETH Zurich"), for a second profile note."""
    m = _AT_ORG.search(role_text)
    return m.group("org") if m and m.group("org").lower() not in NOT_NAMES else None


# --- third parties --------------------------------------------------------------------------------------------

_THIRD = re.compile(
    rf"^(?P<subject>(?:(?:my|our)\s+(?:[\w-]+\s+){{0,2}}?{RELATIVE}(?:s)?(?:,?\s+{NAMES},?)?)|{NAMES}(?:{APOS}s\s+\w+)?"
    rf"(?:\s+from\s+(?:the\s+)?[\w\s]{{1,20}}?)?|the\s+(?:[\w'’-]+\s+){{0,2}}?(?:team|client|vendor|customer|partner)"
    rf"{APOS}?s?(?:\s+[\w-]+)?)\s+(?P<verb>is|are|has|works|lives|leads|heads|manages|owns|maintains|handles|runs|"
    rf"prefers|likes|loves|hates|uses|reports|joined|wants|needs|plays|speaks|does|knows|builds|built)\b(?P<rest>.*)$",
    _I,
)
_MY_X_IS = re.compile(rf"^(?:our|my)\s+(?:[\w-]+\s+){{0,2}}?(?P<what>[\w-]+)\s+(?:is|are)\s+(?P<rest>{NAMES}\b.*)$", _I)
_SENSITIVE = re.compile(
    r"\b(?:password|passcode|pin|email|e-mail|phone|address|account\s+(?:number|no|id)|card|ssn|"
    r"salary|iban|"
    r"login|token|key|secret)\b",
    _I,
)


_CORRECTED = re.compile(
    r"^(?:I\s+meant|(?:the|our|my)\s+[\w\s-]{1,30}?\s+(?:is|are|runs|uses|has|costs|was)|"
    r"it(?:" + APOS + r"s|\s+is))\s+(?P<right>[^,]+?),\s+not\s+(?P<wrong>[^,]+)$",
    _I,
)
_WE_ARE = re.compile(
    rf"^we(?:{APOS}re|\s+are)\s+(?:a|an)\s+(?:[\w-]+\s+){{0,2}}?(?:team|company|startup|agency|group|"
    rf"shop|studio|nonprofit|consultancy)\b",
    _I,
)


def third_party(clause: str) -> str | None:
    if _SENSITIVE.search(clause):
        return None
    if _CORRECTED.match(clause) or _WE_ARE.match(clause):
        return _fact_text(clause)
    m = _MY_X_IS.match(clause)
    if m and not re.search(r"\b(?:only|never|must|at\s+most|no\s+more\s+than)\b", clause, _I):
        return _fact_text(clause)
    m = _THIRD.match(clause)
    if not m:
        return None
    subject = m.group("subject")
    first = subject.split()[0].lower().strip(",")
    if first in NOT_NAMES - {"my", "our", "the"} or first in _DEMONYMS:
        return None
    if not m.group("rest").strip() or re.match(r"^\s*(?:it|this|that)\b", m.group("rest"), _I):
        return None
    if len(subject.split()) == 1 and re.match(
        rf"^\s+(?:is|are)\s+(?:such|so|very|really|pretty|super|too|always|just|amazing|awesome|important|great|"
        rf"fun|hard|tough|the\s+best|a\s+great|one\s+of|(?:my|our)\s+(?!{RELATIVE}\b))",
        clause[len(subject) :],
        _I,
    ):
        return None  # "Dance is my stress fix", "Food is such a pleasure": a capitalised noun, not a person
    if first == "the" and not re.search(r"\b(?:team|client|vendor|customer|partner)", subject, _I):
        return None
    return _fact_text(clause)
