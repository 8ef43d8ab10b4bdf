"""PROFILE.md, SESSION.md and POLICY.md (core-memory-markdown section 5): parse, edit and render, pure.

A document is a ``# TITLE`` line, ``## Section`` lines and entry lines, one per entry::

    - key:response.tone | value:professional-friendly | priority:70 | ttl:none | source:user_explicit | updated_at:...

Fields are ``name:value`` pairs separated by ``|``; a literal ``|`` inside a value is written ``\\|`` and a literal
backslash before it ``\\\\``. ``key`` and ``value`` are required; ``kind`` defaults to the section's kind
(vocabulary.SECTION_KINDS), ``priority`` to 50, ``ttl`` to ``none``; ``source`` and ``updated_at`` are filled in
by the service that stores the document. Blank lines are kept. Anything else is a ParseError naming the line
(1-based, as an editor shows it) and the field.

Round trip: every parsed line keeps its exact text and line ending, so ``render(parse(text)) == text`` byte for
byte (CRLF, a missing final newline and hand-made spacing included). Lines the service writes are rendered in
the canonical form of the spec's examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from .ttl import SESSION_END, TtlError, parse_iso, parse_ttl
from .vocabulary import (
    DEFAULT_PRIORITY,
    HOME_SECTIONS,
    MAX_KEY_CHARS,
    MAX_PRIORITY,
    MAX_VALUE_CHARS,
    MIN_PRIORITY,
    PREFERRED_SECTIONS,
    SECTION_KINDS,
    TITLES,
    Kind,
    MemoryScope,
    Source,
)

FIELDS = ("key", "kind", "value", "priority", "ttl", "source", "updated_at")
KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_SECTION = re.compile(r"^##\s+(\S.*?)\s*$")
_TITLE = re.compile(r"^#\s+(\S.*?)\s*$")


class ParseError(ValueError):
    """A malformed line: ``line`` is 1-based, ``field`` the entry field at fault (or ``line`` for the line)."""

    def __init__(self, line: int, field: str, message: str):
        super().__init__(f"line {line}: {field}: {message}")
        self.line, self.field, self.message = line, field, message


@dataclass(frozen=True)
class Entry:
    key: str
    value: str
    kind: str
    priority: int = DEFAULT_PRIORITY
    ttl: str = "none"
    source: str | None = None
    updated_at: datetime | None = None
    written: tuple[str, ...] = ()  # the fields written on the line, in order ("" for a line the service writes)


@dataclass(frozen=True)
class Line:
    """One line: ``text`` without its ending, ``eol`` the ending as read (``\\n``, ``\\r\\n`` or ``""`` at the end).
    ``text`` is None for an entry the service wrote, rendered canonically."""

    role: str  # title | section | entry | blank
    text: str | None
    eol: str
    section: str | None = None  # the section a line belongs to (a section line: its own name)
    entry: Entry | None = None

    def rendered(self) -> str:
        if self.text is not None:
            return self.text
        assert self.entry is not None, "a line without its text is an entry written by an edit"
        return render_entry(self.entry, section_kind(self.section))


@dataclass(frozen=True)
class Document:
    scope: MemoryScope
    lines: tuple[Line, ...]

    def entries(self) -> list[tuple[int, Entry]]:
        """(1-based line number, entry) in document order."""
        return [(i + 1, ln.entry) for i, ln in enumerate(self.lines) if ln.entry is not None]

    @property
    def newline(self) -> str:
        return "\r\n" if any(ln.eol == "\r\n" for ln in self.lines) else "\n"


def section_kind(section: str | None) -> str | None:
    return SECTION_KINDS.get(section or "")


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("|", "\\|")


def format_time(t: datetime) -> str:
    t = t.astimezone(UTC)
    if t.microsecond:
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def render_entry(e: Entry, default_kind: str | None) -> str:
    parts = [f"key:{e.key}"]
    if e.kind != default_kind:
        parts.append(f"kind:{e.kind}")
    parts += [f"value:{escape(e.value)}", f"priority:{e.priority}", f"ttl:{e.ttl}"]
    if e.source is not None:
        parts.append(f"source:{e.source}")
    if e.updated_at is not None:
        parts.append(f"updated_at:{format_time(e.updated_at)}")
    return "- " + " | ".join(parts)


def render(doc: Document) -> str:
    return "".join(ln.rendered() + ln.eol for ln in doc.lines)


def empty_document(scope: MemoryScope) -> Document:
    return Document(scope, (Line("title", f"# {TITLES[scope]}", "\n"),))


# --- parsing -----------------------------------------------------------------------------------------------


def _split_fields(body: str, line_no: int) -> list[str]:
    """Split on unescaped ``|``; ``\\|`` and ``\\\\`` are escapes, any other backslash is literal."""
    parts, cur, i = [], [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and body[i + 1] in "|\\":
            cur.append(body[i + 1])
            i += 2
            continue
        if ch == "|":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def _entry(body: str, line_no: int, section: str | None, scope: MemoryScope) -> Entry:
    raw: dict[str, str] = {}
    order: list[str] = []
    for n, part in enumerate(_split_fields(body, line_no), start=1):
        part = part.strip()
        name, sep, value = part.partition(":")
        name = name.strip()
        if not sep or not name:
            raise ParseError(line_no, f"field {n}", f"{part!r} is not name:value (a '|' inside a value is "
                             "written '\\|')")
        if name not in FIELDS:
            raise ParseError(line_no, name, f"unknown field {name!r}; fields are {', '.join(FIELDS)}")
        if name in raw:
            raise ParseError(line_no, name, f"field {name!r} appears twice on the line")
        raw[name] = value.strip()
        order.append(name)
    for required in ("key", "value"):
        if required not in raw:
            raise ParseError(line_no, required, f"the entry has no {required}")
    key, value = raw["key"], raw["value"]
    if not KEY_RE.match(key) or len(key) > MAX_KEY_CHARS:
        raise ParseError(line_no, "key", f"a key is 1-{MAX_KEY_CHARS} of A-Z a-z 0-9 _ . - (starting with a "
                         "letter or digit)")
    if not value:
        raise ParseError(line_no, "value", "the value is empty")
    if len(value) > MAX_VALUE_CHARS:
        raise ParseError(line_no, "value", f"the value is longer than {MAX_VALUE_CHARS} characters")
    kind = raw.get("kind") or section_kind(section)
    if kind is None:
        raise ParseError(line_no, "kind", f"section {section!r} has no default kind: write kind: on the line "
                         f"({', '.join(Kind)})")
    if kind not in set(Kind):
        raise ParseError(line_no, "kind", f"unknown kind {kind!r}; kinds are {', '.join(Kind)}")
    priority = DEFAULT_PRIORITY
    if "priority" in raw:
        if not re.fullmatch(r"-?[0-9]{1,7}", raw["priority"]):
            raise ParseError(line_no, "priority", f"{raw['priority']!r} is not an integer")
        priority = int(raw["priority"])
        if not MIN_PRIORITY <= priority <= MAX_PRIORITY:
            raise ParseError(line_no, "priority", f"priority must be in [{MIN_PRIORITY}, {MAX_PRIORITY}]")
    ttl = raw.get("ttl", "none")
    try:
        parse_ttl(ttl)
    except TtlError as exc:
        raise ParseError(line_no, "ttl", str(exc)) from None
    if ttl == SESSION_END and scope is not MemoryScope.SESSION:
        raise ParseError(line_no, "ttl", "session_end is a TTL of SESSION.md entries only")
    source = raw.get("source")
    if source is not None and source not in set(Source):
        raise ParseError(line_no, "source", f"unknown source {source!r}; sources are {', '.join(Source)}")
    if source == Source.ADMIN and scope is not MemoryScope.POLICY:
        raise ParseError(line_no, "source", "source admin belongs to POLICY.md")
    updated_at = None
    if "updated_at" in raw:
        try:
            updated_at = parse_iso(raw["updated_at"])
        except ValueError as exc:
            raise ParseError(line_no, "updated_at", f"{raw['updated_at']!r} is not an ISO-8601 time: {exc}") from None
    return Entry(key=key, value=value, kind=str(kind), priority=priority, ttl=ttl, source=source, updated_at=updated_at,
                 written=tuple(order))


def _physical_lines(text: str) -> list[tuple[str, str]]:
    out = []
    for piece in text.split("\n"):
        out.append(piece)
    lines = []
    for i, piece in enumerate(out):
        last = i == len(out) - 1
        if last and piece == "":
            break
        eol = "" if last else "\n"
        if piece.endswith("\r") and not last:
            piece, eol = piece[:-1], "\r\n"
        lines.append((piece, eol))
    return lines


def parse(text: str, scope: MemoryScope) -> Document:
    """Parse a document of ``scope``; raise ParseError on the first malformed line."""
    title = TITLES[scope]
    lines: list[Line] = []
    section: str | None = None
    seen_title = False
    entries = 0
    for n, (piece, eol) in enumerate(_physical_lines(text), start=1):
        if "\r" in piece:
            raise ParseError(n, "line", "a carriage return is allowed only as part of a CRLF line ending")
        stripped = piece.strip()
        if not stripped:
            lines.append(Line("blank", piece, eol, section))
            continue
        if not seen_title:
            m = _TITLE.match(piece)
            if not m or m.group(1) != title:
                raise ParseError(n, "title", f"the document must start with the title line '# {title}'")
            seen_title = True
            lines.append(Line("title", piece, eol))
            continue
        if piece.startswith("## "):
            m = _SECTION.match(piece)
            if m is None:
                raise ParseError(n, "section", "a section line needs a name after '## '")
            section = m.group(1)
            lines.append(Line("section", piece, eol, section))
            continue
        if piece.startswith("- "):
            if section is None:
                raise ParseError(n, "line", "an entry must be under a '## Section' line")
            entries += 1
            lines.append(Line("entry", piece, eol, section, _entry(piece[2:], n, section, scope)))
            continue
        if piece.startswith("#"):
            raise ParseError(n, "line", "only one '# Title' line; sections are '## Name'")
        raise ParseError(n, "line", "not a '## Section' line or an entry line starting with '- '")
    return Document(scope, tuple(lines))


# --- edits (the service's writes) --------------------------------------------------------------------------


def _section_for(doc: Document, kind: str) -> str:
    preferred = PREFERRED_SECTIONS.get(doc.scope, {}).get(Kind(kind))
    names = [ln.section for ln in doc.lines if ln.role == "section"]
    if preferred and preferred in names:
        return preferred
    home = HOME_SECTIONS[Kind(kind)]
    if home in names:
        return home
    return preferred or home


def _with_final_newline(lines: list[Line], nl: str) -> list[Line]:
    if lines and lines[-1].eol == "":
        lines[-1] = replace(lines[-1], eol=nl)
    return lines


def remove_key(doc: Document, key: str) -> tuple[Document, list[tuple[int, Entry]]]:
    """The document without any line of ``key``, and the removed (line number, entry) pairs."""
    removed = [(n, e) for n, e in doc.entries() if e.key == key]
    gone = {n for n, _ in removed}
    return replace(doc, lines=tuple(ln for i, ln in enumerate(doc.lines) if i + 1 not in gone)), removed


def remove_lines(doc: Document, numbers: set[int]) -> Document:
    return replace(doc, lines=tuple(ln for i, ln in enumerate(doc.lines) if i + 1 not in numbers))


def upsert(doc: Document, entry: Entry) -> tuple[Document, list[tuple[int, Entry]]]:
    """Write ``entry`` as the only line of its key: in place of the key's first line when that line is in a
    section of the entry's kind, else at the end of the kind's section (created at the end when missing)."""
    nl = doc.newline
    first = next((i for i, ln in enumerate(doc.lines) if ln.entry is not None and ln.entry.key == entry.key), None)
    target = _section_for(doc, entry.kind)
    if first is not None and section_kind(doc.lines[first].section) == entry.kind:
        target = doc.lines[first].section or target
        lines = list(doc.lines)
        lines[first] = Line("entry", None, lines[first].eol or nl, target, entry)
        rest = {i for i, ln in enumerate(lines) if i != first and ln.entry is not None and ln.entry.key == entry.key}
        removed = [(i + 1, e) for i in (first, *sorted(rest)) if (e := doc.lines[i].entry) is not None]
        lines = [ln for i, ln in enumerate(lines) if i not in rest]
        return replace(doc, lines=tuple(lines)), removed
    doc, removed = remove_key(doc, entry.key)
    lines = _with_final_newline(list(doc.lines), nl)
    if not any(ln.role == "title" for ln in lines):
        lines.insert(0, Line("title", f"# {TITLES[doc.scope]}", nl))
    new = Line("entry", None, nl, target, entry)
    at = None
    for i, ln in enumerate(lines):
        if ln.section == target and ln.role in ("section", "entry"):
            at = i + 1
    if at is None:
        lines += [Line("blank", "", nl), Line("section", f"## {target}", nl, target), new]
    else:
        lines.insert(at, new)
    return replace(doc, lines=tuple(lines)), removed
