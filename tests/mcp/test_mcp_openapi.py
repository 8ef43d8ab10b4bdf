"""elf_mcp/openapi.json, from which elf-mcp builds its tool schemas, is what elf-api serves now; and
`manage.py export_openapi` writes it and checks it. No stack needed: the documents are generated in-process
from the same urlconfs elf-api serves."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from elf_project.management.commands import export_openapi
from elf_project.openapi_export import EXPORT_COMMAND, build_documents, render, target_path


def _differences(current: dict, expected: dict) -> list[str]:
    """Which bind's paths or components differ, so the failure says more than 'stale'."""
    out = []
    for bind in sorted(set(current) | set(expected)):
        old, new = current.get(bind, {}), expected.get(bind, {})
        for section, key in (("paths", None), ("components", "schemas")):
            a, b = old.get(section, {}), new.get(section, {})
            if key:
                a, b = a.get(key, {}), b.get(key, {})
            out += [f"{bind} {section} {name}" for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]
    return out


def test_checked_in_openapi_json_is_what_the_api_serves():
    expected = render(build_documents())
    current = target_path().read_text(encoding="utf-8")
    if current != expected:
        changed = _differences(json.loads(current), json.loads(expected)) or ["formatting only"]
        pytest.fail(f"{target_path()} is stale (elf-mcp's tool schemas come from it): run `{EXPORT_COMMAND}` "
                    f"and commit the file. Differences: {', '.join(changed[:20])}", pytrace=False)


def test_export_command_writes_the_file_and_check_fails_when_stale(tmp_path, monkeypatch):
    target = tmp_path / "openapi.json"
    monkeypatch.setattr(export_openapi, "target_path", lambda: target)
    with pytest.raises(CommandError, match="stale"):
        call_command("export_openapi", "--check")  # no file yet
    assert not target.exists()
    call_command("export_openapi")
    assert target.read_text(encoding="utf-8") == render(build_documents())
    call_command("export_openapi", "--check")
    target.write_text(target.read_text(encoding="utf-8").replace('"elf_notes_list"', '"renamed"'))
    with pytest.raises(CommandError, match="stale"):
        call_command("export_openapi", "--check")
