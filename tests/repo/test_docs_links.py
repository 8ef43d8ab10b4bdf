"""The documentation's relative links resolve (issue 34, part 2).

Reads README.md and docs/**/*.md (the specs in docs/spec/ included) and fails, naming file:line, on a markdown
link ``[text](path)`` or ``[text](path#anchor)`` whose path names no file or folder of the repository, whose
path leaves the repository (the docs must stand alone in a clone), or whose ``#anchor`` names no heading of the
target page (GitHub's heading ids). Links inside code blocks and inline code are not links; ``http(s)://`` and
``mailto:`` links are not checked. README.md stays at most 300 lines: the rest belongs in docs/. Pure: no stack.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README_MAX_LINES = 300

LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?\s*\)")
INLINE_CODE = re.compile(r"(`+).*?\1")


def doc_pages() -> list[Path]:
    return [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


def _prose_lines(path: Path):
    """(line number, text) of the lines outside fenced code blocks, with inline code blanked."""
    fence = None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.lstrip()
        m = re.match(r"(```+|~~~+)", stripped)
        if m:
            if fence is None:
                fence = m.group(1)
            elif stripped.startswith(fence):
                fence = None
            continue
        if fence is None:
            yield n, INLINE_CODE.sub(lambda c: " " * len(c.group(0)), line)


def github_slug(heading: str) -> str:
    """The id GitHub gives a heading: lowercase, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in _headings(path):
        slug = github_slug(line)
        k = seen.get(slug, 0)
        out.add(slug if k == 0 else f"{slug}-{k}")
        seen[slug] = k + 1
    return frozenset(out)


def _headings(path: Path):
    fence = None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.lstrip()
        m = re.match(r"(```+|~~~+)", stripped)
        if m:
            fence = m.group(1) if fence is None else (None if stripped.startswith(fence) else fence)
            continue
        if fence is None and re.match(r"#{1,6} ", line):
            yield n, line.lstrip("#").strip()


def links(path: Path):
    for n, line in _prose_lines(path):
        for pattern in (LINK, IMAGE):
            for m in pattern.finditer(line):
                yield n, m.group(1)


def problem(page: Path, target: str) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
        return None
    path_part, _, anchor = target.partition("#")
    dest = page if not path_part else (page.parent / path_part).resolve()
    if REPO not in dest.parents and dest != REPO:
        return "leaves the repository"
    if not dest.exists():
        return "names no file"
    if anchor and dest.is_file() and dest.suffix == ".md" and anchor not in anchors(dest):
        return f"names no heading #{anchor} in {dest.relative_to(REPO)}"
    return None


def test_relative_links_of_readme_and_docs_resolve():
    broken = []
    for page in doc_pages():
        for n, target in links(page):
            why = problem(page, target)
            if why:
                broken.append(f"{page.relative_to(REPO)}:{n}: ({target}) {why}")
    assert not broken, "broken links in the documentation:\n" + "\n".join(broken)


def test_every_docs_page_is_reachable_from_the_readme():
    """Every page under docs/ can be reached by following links from README.md (the contents list)."""
    seen, todo = set(), [REPO / "README.md"]
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        for _, target in links(page):
            path_part = target.partition("#")[0]
            if not path_part or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue
            dest = (page.parent / path_part).resolve()
            if dest.is_dir():
                dest = dest / "README.md"
            if dest.suffix == ".md" and dest.is_file() and REPO in dest.parents:
                todo.append(dest)
    unreachable = [str(p.relative_to(REPO)) for p in sorted((REPO / "docs").rglob("*.md")) if p not in seen]
    assert not unreachable, "docs pages no link chain from README.md reaches: " + ", ".join(unreachable)


def test_the_readme_stays_short():
    n = len((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines (at most {README_MAX_LINES}): move detail into docs/"


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Graph predicate registry (admin)", "graph-predicate-registry-admin"),
        ("Recall (issue 32, 2026-11-27): protocol, levers, per category",
         "recall-issue-32-2026-11-27-protocol-levers-per-category"),
        ("Extraction: `elf-bench extractor` (issue 32)", "extraction-elf-bench-extractor-issue-32"),
        ("What changed to get there (before / after, same data, same machine)",
         "what-changed-to-get-there-before--after-same-data-same-machine"),
        ("add_note", "add_note"),
        ("`[service]`", "service"),
    ],
)
def test_github_slugs(heading, slug):
    assert github_slug(heading) == slug


def test_the_link_check_catches_what_it_should(tmp_path):
    page = REPO / "docs" / "api" / "README.md"
    assert problem(page, "notes.md") is None
    assert problem(page, "../operations.md#rate-limits") is None
    assert problem(page, "no-such-page.md") == "names no file"
    assert problem(page, "../operations.md#no-such-heading").startswith("names no heading")
    assert problem(page, "../../../elsewhere/supplement.md") == "leaves the repository"
    assert problem(page, "https://example.com/x.md") is None
