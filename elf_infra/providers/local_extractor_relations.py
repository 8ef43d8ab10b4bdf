"""The relations of the offline extractor: subject-predicate-object triples (spec v2 section 18,
``structured.relations``) that a statement rule can read off its own clause, precision first.

A relation is emitted only when the triple is explicit in the clause, so graph memory never stores a fact
the user did not state. Every subject and object text is a verbatim substring of the clause (and so of the
note's evidence quote), except the speaker, who is ``the user`` (first person), and the speaker's team in a
decision, ``the project`` ("we decided to use ..."). ``valid_from``/``valid_to`` are always null: graph
memory dates a fact from its note, and these rules do not parse dates.

Shapes (the rule names are those of ``local_extractor_rules``):

- my_name_is: (the user, ``name``, value "Priya").
- i_work_at: (the user, ``works at``, organization "Acme"); i_live_in: (the user, ``lives in``, place
  "Berlin"). The object is the leading capitalised name ("the" allowed before it, not kept); what follows
  must be an innocuous tail (``_tail_ok``), so "I work at Acme and Co" or "I live in Berlin until June"
  give no relation.
- i_am_a: (the user, ``role``, value "backend engineer on the payments team") when the role's head noun is
  a job (``ROLE_NOUNS``): "I'm a vegetarian" keeps its profile note but gets no relation.
- i_lead / x_leads: "I lead ...", "Alice (now) leads/heads/manages/owns/maintains/reports to ...",
  "Alice is (now) the lead/head/manager/owner/maintainer of ..." -> (Alice, ``leads``/``manages``/
  ``owns``/``maintains``/``reports to``, entity). The object is a capitalised name or "the" + up to four
  words ("the data team" -> "data team"); a lone generic noun ("the team") is too vague to be an entity.
- we_decided with "use": "we decided/agreed to use X", "let's use X", "we will use X" -> (the project,
  ``uses``, technology X) when X is capitalised ("Postgres", "Python 3.11"); lowercase tools and "go with"
  decisions (options, days, people) get none.
- remember_that: the relations of the statement it wraps ("FYI, Alice leads the data team").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .local_extractor_text import APOS

_I = re.IGNORECASE


@dataclass(frozen=True)
class Entity:
    """A relation end: its canonical text and kind (``person``, ``organization``, ``place``, ``team``,
    ``technology``, ``project`` or None when the rules cannot tell)."""

    canonical: str
    kind: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"canonical": self.canonical, "kind": self.kind, "aliases": None}


# Every predicate these rules emit. Each is the canonical name of a predicate of the global registry ELF ships
# (graph.domain.predicate_seed; tests/graph/test_graph_seeded_predicates.py holds the two together), so the facts they
# give are current by default: "Alice now leads the platform team" supersedes "Alice leads the data team".
PREDICATES = frozenset({"name", "works at", "lives in", "role", "leads", "manages", "owns", "maintains", "reports to",
                        "uses"})


@dataclass(frozen=True)
class Relation:
    """One triple; exactly one of ``entity`` and ``value`` is set (spec v2 section 18)."""

    subject: Entity
    predicate: str
    entity: Entity | None = None
    value: str | None = None

    def __post_init__(self) -> None:
        if (self.entity is None) == (self.value is None):
            raise ValueError("a relation has exactly one of entity and value")
        if self.predicate not in PREDICATES:
            raise ValueError(f"{self.predicate!r} is not one of the extractor's PREDICATES")

    def as_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject.as_dict(),
            "predicate": self.predicate,
            "object": {"entity": None if self.entity is None else self.entity.as_dict(), "value": self.value},
            "valid_from": None,
            "valid_to": None,
        }


THE_USER = Entity("the user", "person")
THE_PROJECT = Entity("the project", "project")

# --- names, phrases and tails ---------------------------------------------------------------------------------

# A capitalised token: "Acme", "AT&T", "C++", "Node.js", "Hewlett-Packard"; never the pronoun "I", and no
# apostrophe, so a possessive ("Alice's team") never reads as a name.
_NAME_TOKEN = r"(?!I\b)[A-Z][A-Za-z0-9&+#]*(?:[.-][A-Za-z0-9]+)*"
NAME_RUN = rf"{_NAME_TOKEN}(?: {_NAME_TOKEN}){{0,3}}"
_PROPER = re.compile(rf"(?:the )?(?P<name>{NAME_RUN})")
_TECH = re.compile(rf"(?P<name>{_NAME_TOKEN}(?: (?:{_NAME_TOKEN}|\d[\w.]*)){{0,3}})")  # "Python 3.11"

# Words that end a "the ..." object phrase: what follows them is the tail.
_PHRASE_STOP = (
    "of|for|to|on|in|at|with|and|or|but|since|now|from|as|by|until|till|instead|rather|than|because|while|when|"
    "if|so|is|are|was|were|who|that|which|currently|today|these|those|too|also|again|here|there|together|alone"
)
_THE_PHRASE = re.compile(rf"the (?P<name>(?!(?:{_PHRASE_STOP})\b)[A-Za-z0-9][\w-]*(?: (?!(?:{_PHRASE_STOP})\b)"
                         r"[A-Za-z0-9][\w-]*){0,3})(?![\w'’-])")
# A lone noun after "the" that names no particular thing: "Alice leads the team" is not a graph entity.
_GENERIC = frozenset(
    [
        "team",
        "project",
        "company",
        "group",
        "org",
        "organisation",
        "organization",
        "department",
        "product",
        "meeting",
        "call",
        "way",
        "charge",
        "effort",
        "work",
        "room",
        "show",
        "process",
        "thing",
        "things",
        "rest",
        "others",
        "problem",
        "mistake",
        "issue",
        "bug",
        "decision",
        "outcome",
        "situation",
        "conversation",
        "discussion",
        "fix",
        "budget",
    ]
)
TEAM_WORDS = frozenset(
    ["team", "squad", "group", "guild", "department", "crew", "chapter", "tribe", "division", "unit", "org"]
)
# Capitalised one-word subjects that are departments, not people ("Security owns the vault").
_DEPARTMENTS = frozenset(
    [
        "security",
        "finance",
        "legal",
        "marketing",
        "sales",
        "engineering",
        "ops",
        "operations",
        "support",
        "hr",
        "it",
        "product",
        "design",
        "platform",
        "infra",
        "infrastructure",
        "data",
        "qa",
        "devops",
        "research",
        "management",
        "leadership",
        "compliance",
        "procurement",
    ]
)
# Capitalised words that start a sentence without naming anyone.
_NOT_A_NAME = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "he",
        "she",
        "they",
        "we",
        "you",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "who",
        "which",
        "what",
        "everyone",
        "everybody",
        "someone",
        "somebody",
        "nobody",
        "anyone",
        "anybody",
        "each",
        "every",
        "no",
        "one",
        "there",
        "here",
        "also",
        "then",
        "now",
        "currently",
        "actually",
        "today",
        "still",
        "just",
        "only",
        "so",
        "and",
        "but",
        "or",
        "yes",
        "ok",
        "okay",
        "honestly",
        "basically",
        "apparently",
        "usually",
        "sometimes",
        "obviously",
    ]
)
_PRONOUN = re.compile(
    rf"\b(?:I|me|my|mine|we|us|our|ours|you|your|yours|he|him|his|she|her|they|them|their|"
    rf"it|its|I{APOS}\w+)\b",
    _I,
)

# An innocuous tail after the object: a qualifier that does not change whether the triple holds now.
_SAFE_TAIL = re.compile(
    r"(?:,\s*)?(?:now|currently|these\s+days|from\s+now\s+on|going\s+forward|full[\s-]time|everywhere|"
    r"(?:since|for|on|in|at|with|as|over|across|instead\s+of|rather\s+than)\s+\S.*)",
    _I,
)
# ... unless it makes the triple conditional, negated or future: "in case", "as long as", "not", "until",
# "next month", "in Q3", "in 2026" (a past "since 2020" is fine).
_UNSAFE_TAIL = re.compile(
    r"^(?:,\s*)?(?:in\s+case|for\s+(?:example|instance|a\s+while|a\s+bit)|as\s+(?:long|soon|needed|required|"
    r"necessary|if)|in\s+theory)\b"
    rf"|\b(?:not|no\s+longer|anymore|any\s+more|never|\w+n{APOS}t|until|till|unless|if|whether|next|later|soon|"
    r"eventually|tomorrow|starting|future|Q[1-4])\b"
    r"|^(?!,?\s*since\b).*\b(?:\d{4}|(?-i:January|February|March|April|May|June|July|August|September|October|"
    r"November|December))\b",
    _I,
)


def tail_ok(tail: str) -> bool:
    """Whether ``tail`` (the clause after a relation's object) leaves the triple true as stated."""
    tail = tail.strip()
    return not tail or (_SAFE_TAIL.fullmatch(tail) is not None and _UNSAFE_TAIL.search(tail) is None)


def _proper_object(rest: str, kind: str | None) -> Entity | None:
    """The capitalised name ``rest`` starts with (after an optional "the"), when the tail is innocuous."""
    m = _PROPER.match(rest)
    if m is None or not tail_ok(rest[m.end() :]):
        return None
    return Entity(m.group("name"), kind)


def _kind_of_group(name: str, default: str | None) -> str | None:
    last = name.rsplit(" ", 1)[-1].lower()
    return "team" if last in TEAM_WORDS or (" " not in name and last in _DEPARTMENTS) else default


def object_phrase(rest: str, *, person: bool = False) -> Entity | None:
    """A capitalised name or "the" + up to four words at the start of ``rest`` (the article not kept),
    when the tail is innocuous and the phrase names something particular. ``person``: a capitalised
    name is a person ("reports to Bob")."""
    m = _PROPER.match(rest)
    if m is not None and not rest.startswith("the "):
        kind = _kind_of_group(m.group("name"), "person" if person else None)
    else:
        m = _THE_PHRASE.match(rest)
        if m is None or m.group("name").lower() in _GENERIC or _PRONOUN.search(m.group("name")):
            return None
        kind = _kind_of_group(m.group("name"), None)
    if not tail_ok(rest[m.end() :]):
        return None
    return Entity(m.group("name"), kind)


def subject_entity(name: str) -> Entity | None:
    """A capitalised subject: a person, or a team when it ends in a team word or is a department."""
    if name.split(" ", 1)[0].lower() in _NOT_A_NAME:
        return None
    return Entity(name, _kind_of_group(name, "person"))


# --- profile ---------------------------------------------------------------------------------------------------


def name_relations(name: str) -> tuple[Relation, ...]:
    """my_name_is: ``name`` is the leading capitalised words the rule kept ("Priya")."""
    return (Relation(THE_USER, "name", value=name),) if name else ()


def employer_relations(rest: str) -> tuple[Relation, ...]:
    """i_work_at: ``rest`` follows "I work at/for"."""
    entity = _proper_object(rest, "organization")
    return (Relation(THE_USER, "works at", entity=entity),) if entity else ()


def home_relations(rest: str) -> tuple[Relation, ...]:
    """i_live_in: ``rest`` follows "I live in" / "I'm based in"."""
    entity = _proper_object(rest, "place")
    return (Relation(THE_USER, "lives in", entity=entity),) if entity else ()


ROLE_NOUNS = frozenset(
    [
        "engineer",
        "developer",
        "dev",
        "programmer",
        "designer",
        "architect",
        "analyst",
        "scientist",
        "researcher",
        "manager",
        "lead",
        "head",
        "director",
        "founder",
        "co-founder",
        "cofounder",
        "cto",
        "ceo",
        "cfo",
        "coo",
        "vp",
        "owner",
        "maintainer",
        "administrator",
        "admin",
        "sre",
        "devops",
        "consultant",
        "contractor",
        "freelancer",
        "specialist",
        "coordinator",
        "officer",
        "recruiter",
        "marketer",
        "tester",
        "student",
        "intern",
        "teacher",
        "professor",
        "lecturer",
        "instructor",
        "tutor",
        "postdoc",
        "writer",
        "editor",
        "journalist",
        "nurse",
        "doctor",
        "physician",
        "lawyer",
        "accountant",
        "technician",
        "operator",
        "advocate",
        "mentor",
        "coach",
    ]
)
_ROLE_PREPOSITIONS = frozenset(["on", "of", "at", "for", "in", "with"])
_ROLE_WORD = re.compile(r"[A-Za-z0-9][\w&+#.-]*")


def role_relations(role: str) -> tuple[Relation, ...]:
    """i_am_a: ``role`` follows "I am a/an" (article not included). The value is the whole role when it is
    a job title of at most four words, optionally followed by one short prepositional phrase."""
    words = role.split(" ")
    cut = next((i for i, w in enumerate(words) if w.lower() in _ROLE_PREPOSITIONS), len(words))
    head, phrase = words[:cut], words[cut + 1 :]
    if not 1 <= len(head) <= 4 or head[-1].lower() not in ROLE_NOUNS or len(phrase) > 5:
        return ()
    if cut < len(words) and not phrase:  # a role ending in a dangling preposition
        return ()
    if not all(_ROLE_WORD.fullmatch(w) for w in head + phrase) or _PRONOUN.search(role):
        return ()
    if any(w.lower() in _ROLE_PREPOSITIONS for w in phrase) or not tail_ok(" ".join(words[cut:])):
        return ()
    return (Relation(THE_USER, "role", value=role),)


# --- who leads what -----------------------------------------------------------------------------------------

_LEAD_PREDICATES = {
    "lead": "leads", "leads": "leads", "head": "leads", "heads": "leads", "team lead": "leads", "tech lead": "leads",
    "manage": "manages", "manages": "manages", "manager": "manages", "engineering manager": "manages",
    "own": "owns", "owns": "owns", "owner": "owns", "product owner": "owns",
    "maintain": "maintains", "maintains": "maintains", "maintainer": "maintains",
    "report to": "reports to", "reports to": "reports to",
}  # fmt: skip
_ADV = r"(?:(?P<adv>now|currently|still)\s+)?"
_ROLE_OF = (
    r"(?P<the>the\s+(?:new\s+|current\s+)?(?P<role>lead|head|team\s+lead|tech\s+lead|manager|"
    r"engineering\s+manager|owner|product\s+owner|maintainer)\s+(?:of|for))"
)
# Case-sensitive on purpose: the subject must be capitalised and the verb a lowercase present tense.
LEAD_PATTERNS = (
    re.compile(
        rf"^(?P<subject>{NAME_RUN})\s+{_ADV}(?P<verb>leads|heads|manages|owns|maintains|reports\s+to)"
        r"\s+(?P<rest>\S.*)$"
    ),
    re.compile(rf"^(?P<subject>{NAME_RUN})\s+is\s+{_ADV}{_ROLE_OF}\s+(?P<rest>\S.*)$"),
    re.compile(rf"^I\s+{_ADV}(?P<verb>lead|head|manage|own|maintain|report\s+to)\s+(?P<rest>\S.*)$"),
    re.compile(rf"^I(?:\s+am|{APOS}m)\s+{_ADV}{_ROLE_OF}\s+(?P<rest>\S.*)$"),
)


def lead_relation(m: re.Match[str]) -> Relation | None:
    """The triple of a ``LEAD_PATTERNS`` match, or None when its subject or object is not safe."""
    groups = m.groupdict()
    subject = THE_USER if groups.get("subject") is None else subject_entity(groups["subject"])
    predicate = _LEAD_PREDICATES[" ".join((groups.get("verb") or groups["role"]).split())]
    obj = object_phrase(m.group("rest"), person=predicate == "reports to")
    if subject is None or obj is None:
        return None
    return Relation(subject, predicate, entity=obj)


# --- decisions ----------------------------------------------------------------------------------------------

_TO_USE = re.compile(r"to\s+use\s+(?P<rest>\S.*)$", _I)


def use_relations(verb: str, rest: str) -> tuple[Relation, ...]:
    """we_decided: ``verb`` is the rule's lead ("we decided", "let's use", ...), ``rest`` what follows it.
    Only "use" decisions: "go with"/"chose"/"settled on" also take options, days and people."""
    verb = " ".join(verb.lower().split())
    if verb.endswith(("decided", "agreed")):
        m = _TO_USE.match(rest)
        if m is None:
            return ()
        rest = m.group("rest")
    elif not verb.endswith("use"):
        return ()
    m = _TECH.match(rest)
    if m is None or not tail_ok(rest[m.end() :]):
        return ()
    return (Relation(THE_PROJECT, "uses", entity=Entity(m.group("name"), "technology")),)
