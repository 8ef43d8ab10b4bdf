"""manage.py core_memory export|import: PROFILE.md and SESSION.md as files, edited on disk, stored back through
the PUT path's validation, all or nothing. Runs the real command as a subprocess on the test stack."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import REPO, TEST_CONFIG

pytestmark = pytest.mark.django_db

PROFILE_EDIT = (
    "\n## Preferences\n"
    "- key:response.tone | value:warm and direct | priority:70 | ttl:none | source:user_explicit\n"
    "-   key:response.format.default |value:short bullet lists|priority:60\n"  # hand spacing is kept as written
)
SESSION_TEXT = (
    "# SESSION\r\n\r\n## Context\r\n"  # CRLF line endings survive the round trip
    "- key:task.current_goal | value:draft the release notes | priority:80 | ttl:session_end | source:system\r\n"
    "- key:response.tone | value:formal | priority:90 | ttl:8h\r\n"
)


def core_memory(action: str, folder: Path, tenant: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", "core_memory", action, "--workspace", str(folder),
                           "--tenant", tenant, "--project", "p1", *extra, "-c", str(TEST_CONFIG)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def stored(tenant: str) -> dict[str, tuple[int, str]]:
    from core_memory.models import CoreMemoryDocument

    return {d.scope: (d.version, d.content) for d in CoreMemoryDocument.objects.filter(tenant_id=tenant)}


@pytest.fixture
def tenant(test_stack) -> str:
    return f"t-{uuid.uuid4().hex}"


def test_export_edit_import_export_round_trips_bytes(tenant, tmp_path) -> None:
    out = ok(core_memory("export", tmp_path / "a", tenant, "--run", "r1"))
    assert "PROFILE.md version 0" in out and "SESSION.md version 0" in out
    profile, session = tmp_path / "a" / "PROFILE.md", tmp_path / "a" / "SESSION.md"
    assert profile.read_bytes() == b"# PROFILE\n" and session.read_bytes() == b"# SESSION\n"

    profile.write_bytes(profile.read_bytes() + PROFILE_EDIT.encode())
    session.write_bytes(SESSION_TEXT.encode())
    out = ok(core_memory("import", tmp_path / "a", tenant, "--run", "r1"))
    assert "imported PROFILE.md: version 1 (changed, 2 entries" in out
    assert "imported SESSION.md: version 1 (changed, 2 entries" in out

    ok(core_memory("export", tmp_path / "b", tenant, "--run", "r1"))
    assert (tmp_path / "b" / "PROFILE.md").read_bytes() == profile.read_bytes()
    assert (tmp_path / "b" / "SESSION.md").read_bytes() == session.read_bytes()
    assert stored(tenant) == {"profile": (1, "# PROFILE\n" + PROFILE_EDIT), "session": (1, SESSION_TEXT)}

    out = ok(core_memory("import", tmp_path / "b", tenant, "--run", "r1"))  # the same text again: no new version
    assert "PROFILE.md: version 1 (unchanged" in out and "SESSION.md: version 1 (unchanged" in out
    assert stored(tenant)["profile"][0] == 1


def test_profile_only_import_without_run(tenant, tmp_path) -> None:
    (tmp_path / "PROFILE.md").write_text("# PROFILE\n\n## Facts\n- key:user.city | value:a small coastal town\n")
    assert "imported PROFILE.md: version 1 (changed, 1 entries" in ok(core_memory("import", tmp_path, tenant))
    assert set(stored(tenant)) == {"profile"}


def test_malformed_line_exits_non_zero_naming_it_and_stores_nothing(tenant, tmp_path) -> None:
    (tmp_path / "PROFILE.md").write_text(
        "# PROFILE\n\n## Preferences\n- key:response.tone | value:calm | priority:70\n"
    )
    ok(core_memory("import", tmp_path, tenant))
    before = stored(tenant)
    assert before["profile"][0] == 1

    (tmp_path / "PROFILE.md").write_text(
        "# PROFILE\n\n## Preferences\n- key:response.tone | value:calm | priority:high\n"
    )
    proc = core_memory("import", tmp_path, tenant)
    assert proc.returncode != 0
    assert "PROFILE.md: Line 4, priority: 'high' is not an integer" in proc.stderr
    assert "nothing was imported" in proc.stderr
    assert stored(tenant) == before


def test_bad_session_leaves_profile_unwritten(tenant, tmp_path) -> None:
    good_profile = "# PROFILE\n\n## Preferences\n- key:response.language | value:English | priority:80\n"
    (tmp_path / "PROFILE.md").write_text(good_profile)
    (tmp_path / "SESSION.md").write_text("# SESSION\n\n## Context\n- key:task.goal | value:ship it | ttl:soon\n")
    proc = core_memory("import", tmp_path, tenant, "--run", "r1")
    assert proc.returncode != 0
    assert "SESSION.md: Line 4, ttl:" in proc.stderr and "PROFILE.md" not in proc.stderr
    assert stored(tenant) == {}


def test_gate_errors_name_the_file_and_line(tenant, tmp_path) -> None:
    (tmp_path / "PROFILE.md").write_text(
        "# PROFILE\n\n## Facts\n"
        "- key:user.name | value:the user is called Sam\n"
        "- key:user.token | value:api key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n"
    )
    proc = core_memory("import", tmp_path, tenant)
    assert proc.returncode != 0
    assert "PROFILE.md:" in proc.stderr and "(Line 5, value) [REJECT_SECRET]" in proc.stderr
    assert stored(tenant) == {}


def test_session_file_without_run_is_refused(tenant, tmp_path) -> None:
    (tmp_path / "PROFILE.md").write_text("# PROFILE\n")
    (tmp_path / "SESSION.md").write_text("# SESSION\n")
    proc = core_memory("import", tmp_path, tenant)
    assert proc.returncode != 0 and "no --run was given" in proc.stderr
    assert stored(tenant) == {}
