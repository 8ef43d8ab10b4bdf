"""The offline extractor's broader statement shapes (issue 32), tried after the explicit rules of
``local_extractor_rules`` found nothing in a clause.

The explicit rules recognise "I prefer X", "we decided X", "my name is X". People also state memories as
"The API has to respond in under 200 ms", "I went with Hetzner", "Our plan is to ...", "Daniel is the new head
of security", "Call me Jo" or with a lead-in ("Actually, ...", "Heads up - ..."). These shapes were chosen from
the dev half of tests/data/extractor_set_v2.json (never the held-out half) and each still requires an explicit
grammatical frame: a modal of obligation, a decision verb in the past, a time phrase with a first-person
subject, a proper-name subject with a present-tense verb. Questions, hypotheticals, uncertain and credential
sentences were already dropped (``local_extractor_text.skippable`` and ``names_credential``).
"""

from __future__ import annotations

import re

from . import local_extractor_people as people
from .local_extractor_people import NAME, NAMES
from .local_extractor_rules import Statement, match_statement
from .local_extractor_text import APOS, lower_first, third_person

_I = re.IGNORECASE
_REST = r"\s+(?P<rest>\S.*)$"
# A discourse lead-in before the statement proper: "Actually,", "Heads up -", "ok so", "Correction:".
_LEAD_IN = re.compile(
    r"^(?:(?:actually|correction|small\s+correction|update|oops|sorry|wait|no\s+wait|scratch\s+that|ok(?:ay)?|so|"
    r"yep|yeah|yes|hey|hi|hello|fwiw|btw|also|and|but|reminder|heads\s+up|quick\s+context|honestly|anyway|well|"
    r"alright|turns\s+out|background|a\s+bit\s+about\s+me|just\s+so\s+you\s+know|for\s+future\s+reference|"
    r"to\s+be\s+clear|in\s+short|currently|now|these\s+days|nowadays|final\s+call|for\s+context)"
    r"\b\s*[,:!.\-–—]*\s*)+",
    _I,
)


_TIME_LEAD = re.compile(r"^(?:later\s+today|today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week|weekend)|"
                        r"next\s+(?:week|month|year|sprint|quarter)|on\s+\w+day)\s*,?\s+(?=(?:I|we)\b)", _I)
# "Meeting notes: ...", "I mixed it up before: ..." -- a short label before a colon.
_LABEL = re.compile(r"^[^:\d]{1,40}:\s+(?=\S)")


def strip_lead_in(clause: str) -> str:
    clause = _LEAD_IN.sub("", clause, count=1).strip()
    clause = _TIME_LEAD.sub("", clause, count=1)
    if not _TIME_COLON.match(clause):
        clause = _LABEL.sub("", clause, count=1)
    return clause.strip()


def _fact_text(statement: str) -> str:
    return "Fact: " + lower_first(third_person(statement, user_named=False)) + "."


def _user_text(kind: str, statement: str) -> str:
    return f"{kind}: " + lower_first(third_person(statement, user_named=False)) + "."


# --- preferences ----------------------------------------------------------------------------------------------

_HABIT = re.compile(
    r"^I\s+(?:(?:usually|always|mostly|normally|typically|generally|tend\s+to|really|strongly|absolutely|totally)\s+)?"
    r"(?:use|go\s+with|drink|listen\s+to|take|stick\s+with|work\s+best|dislike|hate|can" + APOS + r"t\s+stand|"
    r"despise)\s+(?P<rest>\S.*)$",
    _I,
)
_HABIT_DURABLE = re.compile(
    r"\b(?:usually|always|mostly|normally|typically|generally|everywhere|every|all|whenever|while|instead|"
    r"rather|over|dislike|hate|stand|best|distracting|annoying|confusing|person|instead\s+of)\b",
    _I,
)
_ASK_STYLE = re.compile(
    r"^(?:please\s+)?(?:use|keep|give|write|reply|answer|respond|format|explain|show|prefer|add|include|put|"
    r"stick\s+to|talk|call)\b(?P<rest>.*)$",
    _I,
)
_DURABLE_ASK = re.compile(
    r"\b(?:always|every|all|with\s+me|for\s+me|to\s+me|when\s+you|in\s+your|from\s+now\s+on|going\s+forward|"
    r"in\s+future|in\s+the\s+future|examples|snippets?|replies|answers|responses|code\s+comments|"
    r"minimal|over)\b",
    _I,
)
_I_D_PREFER = re.compile(rf"^I(?:{APOS}d|\s+would)\s+(?:prefer|like)\s+(?:it\s+)?(?:if|that|to)\s+(?P<rest>\S.*)$", _I)
_NOUN_PLEASE = re.compile(r"^(?P<rest>[\w\s-]{3,40}?)\s+(?:for\s+me\s+)?please(?:[,.!]|$)", _I)


_NUMERIC_LIMIT = re.compile(r"\b(?:under|below|over|above|at\s+most|at\s+least|max(?:imum)?|no\s+more\s+than|"
                            r"fewer\s+than|less\s+than)\s+\$?\d", _I)
_IMPERATIVE_LIMIT = re.compile(r"^(?:please\s+)?(?:keep|limit|cap|stay)\b", _I)


def _imperative(clause: str) -> str:
    clause = re.sub(r"^please\s+", "", clause, flags=_I)
    return clause[:1].lower() + clause[1:]


def preference(clause: str) -> str | None:
    m = _I_D_PREFER.match(clause)
    if m:
        return _user_text("Preference", f"the user would prefer that {m.group('rest')}")
    m = _HABIT.match(clause)
    if m and _HABIT_DURABLE.search(clause):
        return _user_text("Preference", clause)
    m = _ASK_STYLE.match(clause)
    if m and _DURABLE_ASK.search(clause) and not re.search(r"\b(?:this|these|that|it)\b", m.group("rest"), _I):
        if _NUMERIC_LIMIT.search(clause):
            return None  # "Keep answers under 200 words": a limit, left to ``constraint``
        return f"Preference: the assistant should {_imperative(third_person(clause))}."
    m = _NOUN_PLEASE.match(clause)
    if m and re.search(r"\b(?:mode|theme|format|style|units?|tone|language)\b", m.group("rest"), _I):
        return f"Preference: {m.group('rest').strip()}, please."
    return None


# --- constraints ----------------------------------------------------------------------------------------------

_OBLIGED = re.compile(
    rf"^(?P<subject>(?:the|all|every|each|our|any|no|my)\s+[\w\s-]{{1,40}}?|[A-Za-z][\w-]*s|we|I)\s+"
    rf"(?P<modal>must(?:\s+always)?|has\s+to|have\s+to|can{APOS}t|cannot|can\s+only|may\s+only|need\s+to|needs\s+to|"
    rf"(?:is|are)(?:\s+not|n{APOS}t)\s+allowed\s+to|(?:is|are)\s+required\s+to|should\s+always|should\s+never)"
    rf"\s+(?P<rest>\S.*)$",
    _I,
)
_EPISTEMIC = re.compile(r"^be\s+(?!\w+ed\b|\w+en\b|in\b|under\b|below\b|above\b|at\b|kept\b|done\b)", _I)
_EPHEMERAL_NEED = re.compile(r"^(?:go|leave|run|think|grab|get|check|fix|look|ask|see|wait|figure|sleep|eat)\b", _I)
_CAPPED = re.compile(r"\b(?:budget|limit|cap|maximum|max)\b.*\b(?:is|are|of)\s+(?:capped\s+at|limited\s+to|"
                     r"under|below|at\s+most|max(?:imum)?|no\s+more\s+than)\b|\b(?:is|are)\s+(?:capped|limited)\s+"
                     r"(?:at|to)\b", _I)
_DONT_DO = re.compile(rf"^(?:please\s+)?(?:don{APOS}t|dont)\s+(?P<rest>\S.*)$", _I)
_DONT_CHAT = re.compile(r"^(?:worry|bother|mind|forget|hesitate|panic|apologi[sz]e|sweat|stress|be\s+sorry|know|"
                        r"think|get\s+me|remember)\b", _I)
_MAKE_SURE = re.compile(r"^(?:please\s+)?(?:make\s+sure|ensure)\s+(?P<rest>\S.*)$", _I)
_ALLERGIC = re.compile(r"^I(?:" + APOS + r"m|\s+am|m)\s+(?P<rest>allergic\s+to\s+\S.*)$", _I)
_NO_RULE = re.compile(r"^no\s+(?P<rest>[\w-]+(?:\s+[\w-]+){0,3}\s+(?:on|in|for|before|after|during)\b.*|"
                      r"(?:force\s+pushes|exceptions|meetings|deploys|pushes)\b.*)$", _I)


def constraint(clause: str) -> str | None:
    if _IMPERATIVE_LIMIT.match(clause) and _NUMERIC_LIMIT.search(clause):
        return f"Constraint: {_imperative(clause)}."
    m = _ALLERGIC.match(clause)
    if m:
        return f"Constraint: the user is {m.group('rest')}."
    m = _OBLIGED.match(clause)
    if m:
        subject, rest = m.group("subject").strip(), m.group("rest")
        personal = subject.lower() in ("i", "we")
        durable_need = re.match(r"^(?:stay|be|keep|remain|support|comply|follow|run\s+on|work\s+on)\b", rest, _I)
        if _EPISTEMIC.match(rest) or (personal and (_EPHEMERAL_NEED.match(rest)
                                                    or ("need" in m.group("modal") and not durable_need))):
            return None
        if subject.lower() in ("it", "that", "this", "there", "you"):
            return None
        if subject.lower() == "i" and not re.match(r"^(?:(?:only\s+)?(?:eat|drink|have|use|work|travel|fly|attend|"
                                                   r"meet|take|do\s+\w+days))\b", rest, _I):
            return None  # "I can't live without them", "I have to say": feelings, not rules
        return _user_text("Constraint", clause)
    if _CAPPED.search(clause):
        return _user_text("Constraint", clause)
    m = _DONT_DO.match(clause) or _MAKE_SURE.match(clause)
    if m and not _DONT_CHAT.match(m.group("rest")):
        lead = "never" if _DONT_DO.match(clause) else "make sure"
        return f"Constraint: {lead} {third_person(m.group('rest'))}."
    if re.match(r"^(?:our|my|the)\s+[\w\s'’-]{1,30}?\s+(?:is|are)\s+.*\bonly\b", clause, _I):
        return _user_text("Constraint", clause)
    m = _NO_RULE.match(clause)
    if m:
        return f"Constraint: no {m.group('rest')}."
    return None


# --- decisions ------------------------------------------------------------------------------------------------

_DECIDED = re.compile(
    rf"^(?:after\s+[\w\s-]{{1,40}}?,?\s+)?(?P<subject>I|we|the\s+[\w\s-]{{1,30}}?|our\s+[\w\s-]{{1,30}}?|"
    rf"management|leadership|everyone|{NAMES})\s+(?:(?:have|has|had)\s+|{APOS}ve\s+|finally\s+|then\s+)?"
    rf"(?P<verb>decided|agreed|chose|picked|settled\s+on|landed\s+on|went\s+with|opted\s+for|voted|"
    rf"signed\s+off\s+on|approved|dropped|scrapped|standardi[sz]ed\s+on|committed\s+to)\b(?P<rest>.*)$",
    _I,
)
_GOING_WITH = re.compile(
    rf"^(?:(?:I|we){APOS}?(?:re|m|\s+are|\s+am)\s+|(?:I|we)\s+(?:will|{APOS}ll)\s+)?"
    rf"(?:going\s+with|sticking\s+with|using|staying\s+(?:on|with)|keeping|switching\s+(?:\w+\s+)*?to|moving\s+to|"
    rf"standardi[sz]ing\s+on|standardi[sz]e\s+on)\s+(?P<rest>\S.*)$",
    _I,
)
_DECISION_LEAD = re.compile(r"^(?:decision|decided|agreed|final\s+call|verdict|outcome|resolution)\b[^:]{0,40}:\s*"
                            r"(?P<rest>\S.*)$", _I)


def decision(clause: str) -> str | None:
    m = _DECISION_LEAD.match(clause)
    if m:
        return _user_text("Decision", m.group("rest"))
    m = _DECIDED.match(clause)
    if m and m.group("rest").strip() and not re.match(r"^\s*(?:it|this|that|them|up)\b", m.group("rest"), _I):
        if re.search(r"\b(?:picked|chose)\s+up\b", clause, _I):
            return None
        return _user_text("Decision", clause)
    m = _GOING_WITH.match(clause)
    if m and not re.match(r"^(?:it|this|that|them|the\s+flow)\b", m.group("rest"), _I):
        return _user_text("Decision", clause)
    return None


# --- plans ----------------------------------------------------------------------------------------------------

_WHEN = (
    r"(?:tomorrow|tonight|later\s+today|this\s+(?:week|weekend|month|year|quarter|summer|spring|fall|autumn|winter|"
    r"afternoon|evening|sprint)|next\s+\w+|in\s+(?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december|q[1-4]|the\s+(?:spring|summer|fall|autumn|winter)|\d+\s+(?:days|weeks|months))|"
    r"on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|by\s+(?:the\s+)?end\s+of|"
    r"at\s+some\s+point|after\s+the\s+\w+|(?:january|february|march|april|june|july|august|september|october|"
    r"november|december)\s+\d{1,2}|on\s+the\s+\d{1,2}(?:st|nd|rd|th))"
)
_PLAN_LEAD = re.compile(
    r"^(?:my|our)\s+(?:\w+\s+)?(?:plan|goal|aim|intention|target)\s+(?:\w+\s+){0,3}?is\s+to\s+(?P<rest>\S.*)$", _I)
_WANT_WHEN = re.compile(
    rf"^(?:\w+\s+){{0,6}}?(?:I|we)\s+(?:want|hope|aim|need|would\s+like|{APOS}d\s+like)\s+(?:to\s+)?"
    rf"(?P<rest>\S.*)$",
    _I,
)
_GOING_TO = re.compile(
    rf"^(?:(?:[\w\s,]{{1,20}}?\s+)?(?:{NAME}\s+and\s+I|my\s+\w+\s+and\s+I|we|I)\s+(?:are|am|{APOS}re|{APOS}m)\s+|"
    rf"(?:[\w\s]{{1,20}}\s+)?(?:I|we)\s*(?:{APOS}ll|\s+will)\s+|)"
    rf"(?:going\s+to|gonna|planning\s+(?:to|on|a|an)|flying|travel+ing|taking|starting|launching|moving)\s+"
    rf"(?P<rest>\S.*)$",
    _I,
)
_TIME_COLON = re.compile(rf"^{_WHEN}\s*:\s*(?P<rest>\S.*)$", _I)
_EVENT_MOVED = re.compile(
    rf"^the\s+(?:[\w-]+\s+){{0,2}}?(?:meeting|launch|release|deadline|demo|call|deploy(?:ment)?|review|standup|sync|"
    rf"interview|appointment|party|wedding|trip|flight|offsite|workshop|kickoff|retro)\s+(?:is\s+now|is|got|has\s+been|"
    rf"moved|was\s+moved|will\s+be)\b.*(?:{_WHEN}|\b\d{{1,2}}(?:st|nd|rd|th)\b|\b\d{{1,2}}\s*(?:am|pm)\b|"
    rf"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)",
    _I,
)
_PAST = re.compile(r"\b(?:was|were|had|did|went|yesterday|last\s+(?:week|month|year|night))\b", _I)


def plan(clause: str) -> str | None:
    if _EVENT_MOVED.match(clause):
        return _fact_text(clause).replace("Fact: ", "Plan: ", 1)
    if _PAST.search(clause):
        return None
    m = _PLAN_LEAD.match(clause)
    if m:
        return _user_text("Plan", clause)
    m = _TIME_COLON.match(clause)
    if m:
        return _user_text("Plan", clause)
    has_when = re.search(rf"\b{_WHEN}\b", clause, _I)
    m = _WANT_WHEN.match(clause)
    if m and has_when:
        return _user_text("Plan", clause)
    m = _GOING_TO.match(clause)
    if (
        m
        and (has_when or re.match(r"^(?:going|gonna|planning)", clause, _I))
        and not re.match(r"^(?:check|try|look|see|think|be|do\s+it|get\s+back)\b", m.group("rest"), _I)
    ):
        return _user_text("Plan", clause)
    return None


# --- all statements of a clause ---------------------------------------------------------------------------------


def match_statements(clause: str, *, role: str) -> list[Statement]:
    """The statements of ``clause``: the first explicit rule that recognises it (or its text after a lead-in
    such as "Actually," or "Heads up -"), else the broader shapes below and in ``local_extractor_people`` (user
    messages only). A role with an organisation ("I'm a PhD student at ETH Zurich") also gives the employer."""
    stripped = strip_lead_in(clause)
    first = match_statement(clause, role=role) or (
        match_statement(stripped, role=role) if stripped and stripped != clause else None
    )
    if first is not None:
        found = [first]
        org = people.employer_in(clause) if first.rule == "i_am_a" else None
        if org:
            found.append(Statement("i_am_a", "profile", "employer", f"Profile: the user works at {org}."))
        return found
    if role != "user" or not stripped:
        return []
    profile = people.profile(stripped)
    if profile:
        return [Statement("broad_profile", "profile", key, text) for key, text in profile]
    for name, note_type, shape in (
        ("broad_decision", "decision", decision),
        ("broad_constraint", "constraint", constraint),
        ("broad_preference", "preference", preference),
        ("broad_plan", "plan", plan),
        ("broad_fact", "fact", people.third_party),
    ):
        text = shape(stripped)
        if text:
            return [Statement(name, note_type, None, text)]
    return []
