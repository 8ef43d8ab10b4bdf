"""The OpenAPI documents elf-api serves, one per listener, rendered into elf-mcp's ``openapi.json``.

elf-mcp builds its tool input schemas from that checked-in file instead of importing the API's
serializers, so it runs without Django. ``manage.py -c elf.toml export_openapi`` writes the file;
tests/mcp/test_mcp_openapi.py fails when the checked-in copy differs from what ``render()`` gives now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import elf_mcp
from elf_mcp.openapi_doc import OPENAPI_FILE

# bind -> the urlconf its listener serves (elf_project.entrypoints.api mounts the same two).
URLCONFS = {"public": "elf_project.urls_public", "admin": "elf_project.urls_admin"}
EXPORT_COMMAND = "python manage.py -c elf.toml.example export_openapi"


def target_path() -> Path:
    """Where the file lives: inside the elf_mcp package, so it ships with it."""
    return Path(elf_mcp.__file__).resolve().parent / OPENAPI_FILE


def build_documents() -> dict[str, dict[str, Any]]:
    """Each bind's document exactly as its /openapi.json serves it (Django must be set up)."""
    from drf_spectacular.generators import SchemaGenerator

    return {bind: SchemaGenerator(urlconf=conf).get_schema(request=None, public=True)
            for bind, conf in URLCONFS.items()}


def render(documents: dict[str, dict[str, Any]]) -> str:
    """Stable text: the documents keep drf-spectacular's own key order (so a tool's arguments keep the
    serializer's field order), which is the same on every run; two-space indent, trailing newline."""
    return json.dumps(documents, indent=2, ensure_ascii=False) + "\n"
