"""The statement rules of the offline extractor: which sentence shapes are memory-worthy, and the kind, key,
canonical text and relations each yields. Text helpers are in ``local_extractor_text``, the relation shapes in
``local_extractor_relations``; see ``local_extractor``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from . import local_extractor_relations as rel
from .local_extractor_relations import Relation
from .local_extractor_text import APOS as _APOS
from .local_extractor_text import lower_first, preference_key, third_person

_I = re.IGNORECASE

# --- rules --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """What a rule recognised in one clause: the note type, its key, the canonical note text and the
    relations the clause states explicitly (often none)."""

    rule: str
    note_type: str
    key: str | None
    text: str
    relations: tuple[Relation, ...] = ()


@dataclass(frozen=True)
class Rule:
    name: str
    note_type: str
    patterns: tuple[re.Pattern[str], ...]
    build: Callable[[re.Match[str]], tuple[str | None, str] | None]  # (key, text) or None to reject
    assistant: bool = False  # also applies to assistant messages
    relate: Callable[[re.Match[str]], tuple[Relation, ...]] | None = None  # the clause's relations, if any
    needs_relation: bool = False  # a statement only when ``relate`` finds its triple (the triple is the memory)


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


# A lead-in that denies or doubts the decision: "I don't think we'll use Kafka", "ask whether we agreed ...".
_DOUBTED = re.compile(
    rf"\b(?:(?:don{_APOS}t|do\s+not|didn{_APOS}t|did\s+not)\s+(?:think|believe|recall|remember|say)|doubt|whether|"
    rf"if|unless|nobody|no\s+one)\b",
    _I,
)


def _decision(m: re.Match[str]) -> tuple[None, str] | None:
    if _DOUBTED.search(m.string[: m.start()]):
        return None
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
        if key == "user_name":
            value = _user_name(value)
            if not value:
                return None
        if key == "home_city" and re.search(r"\d", value):  # a street address is PII, a city is not
            return None
        if key == "employer" and not value[:1].isupper():  # "I work at night" is not an employer
            return None
        return key, f"Profile: {_PROFILE_TEXT[key]} {value}."

    return build


def _user_name(rest: str) -> str:
    """The leading capitalised words: "Priya", not "not important here"."""
    return " ".join(re.match(r"^(?:[A-Z][\w'-]*\s*)*", rest).group().split())


def _profile_relations(key: str) -> Callable[[re.Match[str]], tuple[Relation, ...]]:
    def relate(m: re.Match[str]) -> tuple[Relation, ...]:
        if key == "user_name":
            return rel.name_relations(_user_name(_rest(m)))
        return (rel.employer_relations if key == "employer" else rel.home_relations)(_rest(m))

    return relate


_NOT_A_ROLE = re.compile(
    r"^(?:bit|little|lot|tad|fan|huge|big|total|complete|kind|sort|mess|fool|sucker|night\s+owl|morning\s+person)\b",
    _I,
)


def _role_relations(m: re.Match[str]) -> tuple[Relation, ...]:
    return rel.role_relations(_rest(m))


def _lead_relations(m: re.Match[str]) -> tuple[Relation, ...]:
    relation = rel.lead_relation(m)
    return (relation,) if relation else ()


_THIRD_PERSON_VERB = {"lead": "leads", "head": "heads", "manage": "manages", "own": "owns", "maintain": "maintains"}


def _i_lead(m: re.Match[str]) -> tuple[None, str]:
    """First person: "I (now) lead X" -> "the user (now) leads X", "I'm the lead of X" -> "the user is the lead
    of X"."""
    adv = f"{m.group('adv').lower()} " if m.group("adv") else ""
    rest = third_person(m.group("rest"))
    if m.groupdict().get("verb"):
        verb = " ".join(m.group("verb").split())
        verb = "reports to" if verb == "report to" else _THIRD_PERSON_VERB[verb]
        return None, f"Profile: the user {adv}{verb} {rest}."
    return None, f"Profile: the user is {adv}{' '.join(m.group('the').split())} {rest}."


def _x_leads(m: re.Match[str]) -> tuple[None, str]:
    return None, f"Fact: {third_person(m.group(0).strip(), user_named=False)}."


def _wrapped_relations(m: re.Match[str]) -> tuple[Relation, ...]:
    """remember_that: the relations of the statement it wraps ("FYI, I work at Acme")."""
    inner = match_statement(_rest(m), role="user")
    return inner.relations if inner else ()


def _use_relations(m: re.Match[str]) -> tuple[Relation, ...]:
    return rel.use_relations(m.group("verb"), _rest(m))


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
        relate=_wrapped_relations,
    ),
    Rule(
        "my_name_is",
        "profile",
        _r(rf"\bmy\s+name\s+is{_REST}"),
        _profile("user_name"),
        relate=_profile_relations("user_name"),
    ),
    Rule(
        "i_work_at",
        "profile",
        _r(rf"\bI\s+work\s+(?:at|for){_REST}"),
        _profile("employer"),
        relate=_profile_relations("employer"),
    ),
    Rule(
        "i_live_in",
        "profile",
        _r(rf"\bI(?:\s+live|\s+am\s+based|{_APOS}m\s+based)\s+in{_REST}"),
        _profile("home_city"),
        relate=_profile_relations("home_city"),
    ),
    Rule(
        "i_am_a",
        "profile",
        _r(rf"^I(?:\s+am|{_APOS}?m|\s+work\s+as)\s+(?P<art>an?)\s+(?P<rest>\S.*)$"),
        _role,
        relate=_role_relations,
    ),
    # Who leads, manages, owns or maintains what: only with a safe triple (case-sensitive patterns).
    Rule("i_lead", "profile", rel.LEAD_PATTERNS[2:], _i_lead, relate=_lead_relations, needs_relation=True),
    Rule("x_leads", "fact", rel.LEAD_PATTERNS[:2], _x_leads, relate=_lead_relations, needs_relation=True),
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
            rf"\blet{_APOS}s\s+(?:go\s+with|use)|\bwe(?:\s+will|{_APOS}ll)\s+(?:use|standardi[sz]e\s+on)|"
            rf"\bwe(?:{_APOS}re|\s+are)\s+going\s+with){_REST}"
        ),
        _decision,
        assistant=True,
        relate=_use_relations,
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
            if built is None:
                continue
            relations = rule.relate(m) if rule.relate else ()
            if rule.needs_relation and not relations:
                continue
            return Statement(rule.name, rule.note_type, built[0], built[1], relations)
    return None
