"""Every citation of the design resolves inside the repository (issue 34, part 1).

The specs and design notes live in docs/ (docs/spec/, docs/architecture.md, docs/style.md), and
docs/spec/README.md's legend maps each short citation form ("spec v2 section 13", "PRD 9.3", "supplement
section 4", ...) to its file. This test reads every tracked text file (git ls-files: .py, .md, .toml, .sh,
.importlinter, Makefile, .ci/run; not docs/spec/ itself) and fails, naming file:line, on:

- a path outside the repository: ``../shared`` or ``/work/shared`` (and ``"shared" / "specs"`` path joins, bare
  ``shared/specs``); only the LoCoMo benchmark data under ``../shared/benchmarks`` may stay outside;
- the seed's names of the design notes, ``ARCHITECTURE.md`` and ``STYLE.md``: cite docs/architecture.md and
  docs/style.md;
- a citation form the legend does not list (``spec v3``, ``core-memory section 4``, ``acb-prd.md``, ...).

Pure: no stack needed.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SPEC_DIR = REPO / "docs" / "spec"
LEGEND = SPEC_DIR / "README.md"
SELF = Path(__file__).resolve()

SCANNED_SUFFIXES = {".py", ".md", ".toml", ".sh"}
SCANNED_NAMES = {"Makefile", ".importlinter"}
SCANNED_PATHS = {".ci/run"}

# (a) outside the repository. The benchmark data (../shared/benchmarks) is the one exception.
OUTSIDE = [
    re.compile(r"/work/shared\b"),
    re.compile(r"(?:\.\./)+shared\b(?!/benchmarks\b)"),
    re.compile(r"""["']shared["']\s*/\s*["'](?!benchmarks["'])"""),  # Path(...) / "shared" / "specs"
    re.compile(r"(?<![\w./-])shared/(?:specs|design|hooks)\b"),
]
# (b) the seed's names of the design notes (built so that this file does not match itself).
SEED_DESIGN_NAMES = re.compile(r"\b(?:" + "ARCHITECTURE" + "|" + "STYLE" + r")\.md\b")

# (c) citation forms: each pattern's group 1 is the name cited, which the legend must list.
_SECTION = r"(?:'s)?`?\s+(?:sections?|§)\s*\d"
CITATIONS = [
    re.compile(r"\b([Ss]pec\s+v\d+(?:\.\d+)?)\b"),  # spec v2, Spec v2 section 5
    re.compile(r"\b(v\d+(?:\.\d+)?)" + _SECTION),  # v1 section 17
    re.compile(r"\b(?:sections?|§)\s*\d+(?:\.\d+)*\s+of\s+(v\d+)\b"),  # section 17 of v1
    re.compile(r"\b(PRD)(?:\s+section)?\s+\d"),  # PRD 9.3, PRD section 14
    re.compile(r"\b([Ss]upplement)" + _SECTION),  # supplement section 4
    re.compile(r"\b([Dd]oc [Ee]xtension(?:\s+v\d+)?)\b"),  # Doc Extension v1
    # a document named before its section: spec section 18, the spec's section 1, core-memory-markdown section 6,
    # `elf-memory-service-v2.md` sections 14-15 (plain words such as "the section 13" name no document)
    re.compile(r"`?([A-Za-z][\w.-]*[-.][\w.-]*|[Ss]pec|PRD|[Ss]upplement)" + _SECTION),
    # a spec's file name anywhere
    re.compile(r"\b([\w-]*(?:elf-memory-service|acb-prd|doc-extension|core-memory-markdown|supplement)[\w-]*\.md)\b"),
]
# Hyphenated or dotted words before "section N" that are not documents (tests/data file names, flags, ...).
NOT_A_DOCUMENT = re.compile(r"^(?:built-in|per-\w+|non-\w+|sub-\w+|e\.g\.?|i\.e\.?)$", re.I)


def _norm(name: str) -> str:
    name = name.strip("`").strip()
    if name.endswith("'s"):
        name = name[:-2]
    return re.sub(r"\s+", " ", name).lower()


def legend() -> tuple[dict[str, str], list[str]]:
    """The legend's table: {normalised citation form: linked file}, and every link target of the table."""
    text = LEGEND.read_text(encoding="utf-8")
    section = text.split("## Legend", 1)[1]
    forms: dict[str, str] = {}
    links: list[str] = []
    for line in section.splitlines():
        if not line.startswith("|") or line.startswith("|---") or "cited as" in line:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        targets = re.findall(r"\]\(([^)#]+)\)", cells[-1])
        assert targets, f"docs/spec/README.md legend row links no file: {line}"
        links.extend(targets)
        for form in re.findall(r"`([^`]+)`", cells[0].split("(", 1)[0]):
            forms[_norm(form)] = targets[0]
    return forms, links


def scanned_files() -> list[tuple[str, Path]]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: git ls-files names the files to scan")
    files = []
    for rel in out.decode("utf-8").split("\0"):
        if not rel or rel.startswith("docs/spec/"):
            continue
        path = REPO / rel
        if path.resolve() == SELF:
            continue
        scanned = path.suffix in SCANNED_SUFFIXES or path.name in SCANNED_NAMES or rel in SCANNED_PATHS
        # a tracked file deleted in the working tree (a move in progress) is skipped
        if scanned and path.is_file():
            files.append((rel, path))
    return files


def offending_lines(check) -> list[str]:
    found = []
    for rel, path in scanned_files():
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            why = check(line)
            if why:
                found.append(f"{rel}:{n}: {why}: {line.strip()[:200]}")
    return found


def test_the_legend_names_every_spec_file_and_links_only_files_that_exist():
    forms, links = legend()
    missing = [t for t in links if not (SPEC_DIR / t).resolve().is_file()]
    assert not missing, f"docs/spec/README.md links files that do not exist: {missing}"
    linked = {(SPEC_DIR / t).resolve() for t in links}
    unlisted = [p.name for p in sorted(SPEC_DIR.glob("*.md")) if p.name != "README.md" and p.resolve() not in linked]
    assert not unlisted, f"spec files the legend does not map a citation to: {unlisted}"
    for must in ("spec v2", "spec v1", "v1", "supplement", "prd", "doc extension", "core-memory-markdown"):
        assert must in forms, f"the legend lacks the citation form {must!r}"


def test_nothing_is_cited_from_outside_the_repository():
    def check(line: str) -> str | None:
        return "outside the repository" if any(p.search(line) for p in OUTSIDE) else None

    found = offending_lines(check)
    assert not found, (
        "references outside the repository (the specs are in docs/spec/, the design notes in docs/; only "
        "../shared/benchmarks may stay):\n" + "\n".join(found)
    )


def test_the_design_notes_are_cited_by_their_docs_paths():
    def check(line: str) -> str | None:
        return "cite docs/architecture.md or docs/style.md" if SEED_DESIGN_NAMES.search(line) else None

    found = offending_lines(check)
    assert not found, "the seed's design note names (cite docs/architecture.md, docs/style.md):\n" + "\n".join(found)


def test_every_spec_citation_uses_a_form_of_the_legend():
    forms, _ = legend()

    def check(line: str) -> str | None:
        unknown = []
        for pattern in CITATIONS:
            for m in pattern.finditer(line):
                raw = m.group(1)
                if NOT_A_DOCUMENT.match(raw.strip("`")):
                    continue
                if _norm(raw) not in forms:
                    unknown.append(raw)
        return f"citation not in docs/spec/README.md's legend: {sorted(set(unknown))}" if unknown else None

    found = offending_lines(check)
    assert not found, "citations the legend does not resolve:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("line", "ok"),
    [
        ("spec v2 section 13 step 15", True),
        ("(v1 section 17; the ids are filled from [mcp])", True),
        ("Section 17 of v1: one tool per v1 route", True),
        ("PRD 9.3 asks for agent isolation", True),
        ("the PRD's open questions (PRD section 14)", True),
        ("rank blending (supplement section 4)", True),
        ("(agent-memory-acb-prd section 7)", True),
        ("`elf-memory-service-v2.md` sections 14-15", True),
        ("the spec's section 1 template", True),
        ("the built-in section 18 prompt", True),
        ("Doc Extension v1: long documents", True),
        ("core-memory-markdown section 6 rule 2", True),
        ("spec v3 section 2", False),
        ("core-memory section 4", False),
        ("acb-prd.md", False),
        ("Doc Extension v2", False),
        ("the design-doc section 3", False),
    ],
)
def test_the_citation_check_itself(line, ok):
    forms, _ = legend()
    unknown = [
        m.group(1)
        for p in CITATIONS
        for m in p.finditer(line)
        if not NOT_A_DOCUMENT.match(m.group(1).strip("`")) and _norm(m.group(1)) not in forms
    ]
    assert (not unknown) == ok, unknown


@pytest.mark.parametrize(
    ("line", "outside"),
    [
        ("--dataset ../shared/benchmarks/locomo/locomo_retrieval.json", False),
        ('Path(__file__).parents[2].parent / "shared" / "benchmarks" / "locomo"', False),
        ("(shared/benchmarks/locomo, beside the repository)", False),
        ("docs: /work/shared/specs/core-memory-markdown.md", True),
        ('SPEC = Path(__file__).resolve().parents[2] / "shared" / "specs" / "core-memory-markdown.md"', True),
        ("The specs are in `shared/specs/`.", True),
        ("see ../shared/design", True),
    ],
)
def test_the_outside_check_itself(line, outside):
    assert any(p.search(line) for p in OUTSIDE) == outside
