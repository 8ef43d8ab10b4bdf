"""elf-api refuses to start on a non-loopback bind while security.bind_localhost_only = true."""

from __future__ import annotations

import subprocess
import tomllib

import pytest

from elf_config.toml_writer import dumps
from tests.conftest import REPO, entry_point

EXAMPLE = tomllib.loads((REPO / "elf.toml.example").read_text())


@pytest.mark.parametrize("key,host", [("http_bind", "0.0.0.0"), ("admin_bind", "192.0.2.10"), ("http_bind", "[::]")])
def test_elf_api_refuses_public_bind_when_localhost_only(tmp_path, key, host):
    data = {**EXAMPLE, "service": {**EXAMPLE["service"], key: f"{host}:28089"}}
    assert data["security"]["bind_localhost_only"] is True
    config = tmp_path / "elf.toml"
    config.write_text(dumps(data))
    result = subprocess.run([entry_point("elf-api"), "-c", str(config)], capture_output=True, text=True, timeout=60,
                            cwd=REPO)
    assert result.returncode == 2, result.stdout + result.stderr
    shown = host.strip("[]")
    assert f"service.{key} binds {shown}, but security.bind_localhost_only = true requires a loopback address" in (
        result.stderr
    )
