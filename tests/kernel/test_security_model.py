"""docs/security.md's route table names every route ELF serves, and nothing else (issue 31 item 8).

The routes come from both OpenAPI documents (generated as the binds serve them, no stack needed) and from both
URL configurations (the routes outside OpenAPI: schema and docs pages, /metrics, the Django admin), plus
elf-mcp's one endpoint. A route the table does not name fails, and so does a row naming a route that does not
exist on its bind.
"""

from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver
from drf_spectacular.generators import SchemaGenerator

from elf_mcp.server import MCP_PATH

PAGE = Path(__file__).resolve().parents[2] / "docs" / "security.md"
URLCONFS = {"public": "elf_project.urls_public", "admin": "elf_project.urls_admin"}
BINDS = {"public": ("public",), "admin": ("admin",), "both": ("public", "admin"), "mcp": ("mcp",)}
METHODS = ("get", "post", "put", "patch", "delete")
ROW = re.compile(r"^\|\s*`(?P<op>[A-Z]+ /[^`]*)`\s*\|\s*(?P<bind>[a-z]+)\s*\|(?P<who>[^|]*)\|(?P<what>[^|]*)\|\s*$")


def table() -> list[tuple[str, str, str, str]]:
    """(bind, operation, who, what decides) for each row; a table line that does not parse is an error."""
    rows = []
    for n, line in enumerate(PAGE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("| `"):
            continue
        m = ROW.match(line)
        assert m, f"docs/security.md line {n} is not `METHOD /path` | bind | who | what decides: {line}"
        assert m["bind"] in BINDS, f"line {n}: bind {m['bind']!r} is not one of {', '.join(BINDS)}"
        for bind in BINDS[m["bind"]]:
            rows.append((bind, m["op"], m["who"].strip(), m["what"].strip()))
    return rows


def openapi_operations() -> set[tuple[str, str]]:
    out = set()
    for bind, conf in URLCONFS.items():
        doc = SchemaGenerator(urlconf=conf).get_schema(request=None, public=True)
        out |= {(bind, f"{m.upper()} {path}") for path, ops in doc["paths"].items() for m in ops if m in METHODS}
    return out


def _openapi_path(route: str) -> str:
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def url_operations() -> set[tuple[str, str]]:
    """Every route of each bind's urlconf: an APIView's methods, GET for a plain view, ANY for an included tree."""
    out = set()
    for bind, conf in URLCONFS.items():
        for p in import_module(conf).urlpatterns:
            route = _openapi_path(str(p.pattern))
            if isinstance(p, URLResolver):
                out.add((bind, f"ANY {route}"))
                continue
            assert isinstance(p, URLPattern)
            cls = getattr(p.callback, "view_class", None)
            methods = [m for m in METHODS if cls is not None and hasattr(cls, m)] or ["get"]
            out |= {(bind, f"{m.upper()} {route}") for m in methods}
    return out


@pytest.fixture(scope="module")
def served() -> set[tuple[str, str]]:
    api = openapi_operations()
    urls = url_operations()
    assert api <= urls, f"OpenAPI operations no urlconf routes: {sorted(api - urls)}"
    return urls | {("mcp", f"POST {MCP_PATH}")}


def test_every_route_is_in_the_table(served):
    named = {(bind, op) for bind, op, _, _ in table()}
    missing = sorted(served - named)
    assert not missing, "docs/security.md names no row for: " + ", ".join(f"{op} ({bind})" for bind, op in missing)


def test_every_row_is_a_route(served):
    extra = sorted({(bind, op) for bind, op, _, _ in table()} - served)
    assert not extra, "docs/security.md names routes that do not exist: " + ", ".join(
        f"{op} ({bind})" for bind, op in extra)


def test_each_route_once_with_who_and_what_decides():
    rows = table()
    seen: set[tuple[str, str]] = set()
    for bind, op, who, what in rows:
        assert (bind, op) not in seen, f"{op} ({bind}) has two rows"
        seen.add((bind, op))
        assert who and what, f"{op} ({bind}): who may read/write it and what decides must both be said"


def test_the_table_is_not_vacuous(served):
    # the two binds' schema pages, the admin-only pages and the event log are where a forgotten route hides
    for route in [("public", "GET /openapi.json"), ("admin", "GET /docs/"), ("admin", "GET /metrics"),
                  ("admin", "ANY /admin/"), ("public", "GET /api/v1/artifacts/{artifact_id}"),
                  ("public", "POST /v1/memory/add_note"), ("admin", "GET /v2/context")]:
        assert route in served, route
    assert ("public", "GET /metrics") not in served and ("public", "ANY /admin/") not in served
